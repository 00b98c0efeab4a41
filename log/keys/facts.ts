// Key-event chains in the log (issue 25; docs/KEYS.md; JCP §2.1): what the log reads from an
// entry to keep an identity's chain (a key event's fields, or a receipt's steward and kid), the
// state it keeps per identity, the codes of its refusals, and what an append under an identity
// answers. Pure data; log/keys/read.ts reads the facts from an envelope, log/keys/judge.ts judges
// them against the state inside the sequencer's step.
import { toHex } from "../../verify/mod.ts";

/** A key event's facts (JCP §2.1 `KeyEvent`), its fields already checked (read.ts). */
export interface KeyEventFact {
  kind: "event";
  /** The inception did:key, stable for life. */
  identity: string;
  /** 0 = inception, N = the Nth rotation (an exact integer). */
  seq: number;
  /** The controlling key from this event on (the envelope's signer). */
  current: string;
  /** BLAKE3 of the current key's 32 public bytes: what the previous event's next_hash commits. */
  currentHash: Uint8Array;
  /** BLAKE3 of the next key's 32 public bytes, 32 bytes. */
  nextHash: Uint8Array;
  /** The previous event's content id, 32 bytes; absent at inception. */
  parent?: Uint8Array;
  /** This event's content id (JCP §3: BLAKE3 of its canonical bytes), 32 bytes. */
  cid: Uint8Array;
}

/** A receipt's signer facts: its steward (the identity) and the COSE kid that signed it. */
export interface SignedFact {
  kind: "signed";
  identity: string;
  kid: string;
}

/** What the key checks read from an entry. */
export type KeyFact = KeyEventFact | SignedFact;

/** An identity's resolved state: its first chain's last event (the head). O(1) per append. */
export interface KeyHead {
  identity: string;
  seq: number;
  current: string;
  nextHash: Uint8Array;
  /** The head event's content id: the next event's required `parent`. */
  cid: Uint8Array;
  /** The head event's log index. */
  index: number;
  /** Set once a second, validly chained event at a logged seq was logged: the first such entry. */
  forkedAt?: number;
}

/** One logged event of an identity's first chain (the state the fork check reads). */
export interface KeyChainEvent {
  seq: number;
  current: string;
  nextHash: Uint8Array;
  cid: Uint8Array;
  index: number;
}

/** A fork's evidence: the second event at `seq` (`index`) and the chain's event there (`first`). */
export interface KeyFork {
  seq: number;
  index: number;
  first: number;
}

/** GET /v1/keys/{identity}: the head, the chain's event indices in seq order, the forks. */
export interface IdentityRecord {
  head: KeyHead;
  events: number[];
  forks: KeyFork[];
}

/** Why a key event or a receipt under an identity is not logged (422; docs/KEYS.md). */
export type KeyRefusalCode =
  | "key-event-seq-gap"
  | "key-event-parent-mismatch"
  | "key-event-next-mismatch"
  | "key-event-bad-signature"
  | "key-event-fork"
  | "key-rotated-out";

/** Every refusal code, in the order docs/KEYS.md lists them. */
export const KEY_REFUSAL_CODES: readonly KeyRefusalCode[] = [
  "key-event-seq-gap",
  "key-event-parent-mismatch",
  "key-event-next-mismatch",
  "key-event-bad-signature",
  "key-event-fork",
  "key-rotated-out",
];

/**
 * What an append under an identity answers (`AppendResult.key_event`): the event it was judged
 * under (a key event: itself; a receipt: the identity's head at its append), and for a fork the
 * evidence it is.
 */
export interface KeyOutcome {
  identity: string;
  seq: number;
  /** The log index of that event. */
  index: number;
  /** The identity is frozen by a fork (docs/KEYS.md "Forks"): the first fork's entry. */
  forked_at?: number;
  /** This entry is a fork: the chain's own event at its seq. */
  fork_of?: number;
}

/** The key state's writes of one batch, made in its commit (log/sql/keys.ts). */
export interface KeyWrites {
  /** Events that extend (or start) a chain, in index order. */
  events: { identity: string; event: KeyChainEvent }[];
  /** Forks logged as evidence. */
  forks: { identity: string; fork: KeyFork }[];
}

/** An identity as GET /v1/keys/{identity} answers it (the JSON, and the RDF's input). */
export interface IdentityJson {
  identity: string;
  seq: number;
  current: string;
  /** lowercase hex */
  next_hash: string;
  events: number[];
  forks: KeyFork[];
  forked_at?: number;
}

/** The answer of GET /v1/keys/{identity} from its record (one form for the route and the RDF). */
export function identityJson(identity: string, rec: IdentityRecord): IdentityJson {
  const h = rec.head;
  return {
    identity,
    seq: h.seq,
    current: h.current,
    next_hash: toHex(h.nextHash),
    events: rec.events,
    forks: rec.forks,
    ...(h.forkedAt !== undefined ? { forked_at: h.forkedAt } : {}),
  };
}
