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
  /** The shard that holds `index`, when an earlier one (a carried head; absent: this shard). */
  shard?: string;
  /** Set once a second, validly chained event at a logged seq was logged: the first such entry. */
  forkedAt?: number;
  /** The shard that holds `forkedAt`, when an earlier one. */
  forkedShard?: string;
}

/** One logged event of an identity's first chain (the state the fork check reads). */
export interface KeyChainEvent {
  seq: number;
  current: string;
  nextHash: Uint8Array;
  cid: Uint8Array;
  index: number;
  /** The shard that holds `index`, when an earlier one (carried at a rotation of the log). */
  shard?: string;
}

/** A fork's evidence: the second event at `seq` (`index`) and the chain's event there (`first`). */
export interface KeyFork {
  seq: number;
  index: number;
  first: number;
  /** The shard that holds `index`, when an earlier one (carried at a rotation of the log). */
  shard?: string;
  /** The shard that holds `first`, when an earlier one. */
  first_shard?: string;
}

/** GET /v1/keys/{identity}: the head, the chain's event indices in seq order, the forks. */
export interface IdentityRecord {
  head: KeyHead;
  events: number[];
  /**
   * Set when an event lies in an earlier shard (docs/SHARDS.md "Carried state"): each event's
   * shard, in `events`' order, null for this shard's.
   */
  eventShards?: (string | null)[];
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
  /** The shard that holds `index`, when an earlier one than the answering shard (carried). */
  shard?: string;
  /** The identity is frozen by a fork (docs/KEYS.md "Forks"): the first fork's entry. */
  forked_at?: number;
  /** The shard that holds `forked_at`, when an earlier one. */
  forked_shard?: string;
  /** This entry is a fork: the chain's own event at its seq. */
  fork_of?: number;
  /** The shard that holds `fork_of`, when an earlier one. */
  fork_of_shard?: string;
}

/** The key state's writes of one batch, made in its commit (log/sql/keys.ts). */
export interface KeyWrites {
  /** Events that extend (or start) a chain, in index order. */
  events: { identity: string; event: KeyChainEvent }[];
  /** Forks logged as evidence. */
  forks: { identity: string; fork: KeyFork }[];
}

/**
 * An identity's key state as carried into a new shard at a rotation of the log (docs/SHARDS.md
 * "Carried state"): every row of the frozen shard's key state, each event and fork qualified by
 * the shard that holds its index. Written into the new shard's store in one transaction before
 * the directory lists the shard, so the new shard's sequencer judges against the whole chain.
 */
export interface CarriedKeys {
  /** The shard the state was carried from (the one frozen by the rotation). */
  from: string;
  heads: { identity: string; seq: number; forked: number | null; forkedShard: string | null }[];
  events: { identity: string; event: KeyChainEvent & { shard: string } }[];
  forks: { identity: string; fork: KeyFork & { shard: string; first_shard: string } }[];
}

/** An identity as GET /v1/keys/{identity} answers it (the JSON, and the RDF's input). */
export interface IdentityJson {
  identity: string;
  seq: number;
  current: string;
  /** lowercase hex */
  next_hash: string;
  events: number[];
  /** docs/SHARDS.md "Carried state": each event's shard when some lie in an earlier one. */
  event_shards?: (string | null)[];
  forks: KeyFork[];
  forked_at?: number;
  forked_shard?: string;
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
    ...(rec.eventShards ? { event_shards: rec.eventShards } : {}),
    forks: rec.forks,
    ...(h.forkedAt !== undefined ? { forked_at: h.forkedAt } : {}),
    ...(h.forkedShard !== undefined ? { forked_shard: h.forkedShard } : {}),
  };
}
