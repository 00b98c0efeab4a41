// What the log reads from an entry to answer for streams (issue 24; docs/STREAMS.md): the facts
// of one envelope that relate it to other entries. Pure data; verify/stream_facts.ts reads them
// from an envelope, the append route may hand them over already read.
import type { AccountFacts } from "../accounts/mod.ts";
import type { KeyFact } from "../keys/mod.ts";

/** A hash-chained stream's link (JCP §8.1: `seq` from 0, `prev` the previous envelope's id). */
export interface ChainLink {
  /** The stream's identity under its steward (docs/STREAMS.md "Stream keys"): "jcp". */
  key: string;
  /** JCP §8.1 `seq`, an exact integer (a seq past 2^53 − 1 is refused before the log). */
  seq: number;
  /** JCP §8.1 `prev`: the content id of the previous entry's envelope, 32 bytes. */
  prev: Uint8Array;
}

/** The facts of one entry (every member optional but `cid`). */
export interface EntryFacts {
  /** JCP §3: the envelope's content id, BLAKE3 of its (canonical CBOR) bytes, 32 bytes. */
  cid: Uint8Array;
  /** The signer's id (the COSE kid, bound to the core's `steward`). */
  steward?: string;
  /** The entry's link in its steward's hash-chained stream. */
  chain?: ChainLink;
  /** JCR-1 §2 `id` (unique per steward). */
  receiptId?: string;
  /** JCR-1 §2 `input_hash` (lowercase hex). */
  inputHash?: string;
  /** JCP §8.1: a hold (an allow stating `held_uj`). */
  hold?: boolean;
  /** JCP §8.1 `settles`: the content id of the hold's envelope, 32 bytes. */
  settles?: Uint8Array;
  /** SPEC §9-§10: the engine's monotonic `audit_sequence`. */
  audit?: { engine: string; seq: number };
  /** When the receipt says its work closed (JCR-1 `closed_at`, a reading's `end`), ms. */
  closedAtMs?: number;
  /**
   * JCP §5.3: an `efficiency/1` outcome's named activities, their content ids (32 bytes each).
   * The sequencer resolves them before the entry is sequenced (log/outcomes.ts).
   */
  activities?: Uint8Array[];
  /** Set by the sequencer: the resolved activities' indices, bound to this outcome at commit. */
  bound?: number[];
  /** What the receipt debited, held, settled or minted (issue 30; log/accounts/facts.ts). */
  account?: AccountFacts;
  /** JCP §4 (issue 25): the entry is a grant: its id (BLAKE3 of its canonical bytes) and links. */
  grant?: GrantFacts;
  /** JCP §4.3: the entry is a revocation of the grant with this id (32 bytes). */
  revokes?: Uint8Array;
  /** JCP §8: the entry is an allow: the grant (and chain, root first) it was decided against. */
  allow?: AllowFacts;
  /**
   * Issue 25 (docs/KEYS.md): a key event's facts, or a receipt's steward and kid, judged by the
   * sequencer against the identity's key-event chain before the entry is sequenced.
   */
  key?: KeyFact;
}

/** A logged grant's links (JCP §4): what the revocation checks walk. */
export interface GrantFacts {
  /** `grant_id`: BLAKE3 of the grant's canonical det-CBOR (JCP §3, §4), 32 bytes. */
  id: Uint8Array;
  /** The grant it was attenuated from (JCP §4.1), 32 bytes. */
  parent?: Uint8Array;
  issuer: string;
  subject: string;
}

/** What an allow was decided against (JCP §8: `grant_id`, `chain_ids` root first, `issuer`). */
export interface AllowFacts {
  grant: Uint8Array;
  chain: Uint8Array[];
  /** The receipt's `issuer`: the grant's issuer. */
  issuer: string;
}

/** A stable code of a stream finding (docs/STREAMS.md says what each proves). */
export type FindingCode =
  | "stream-gap"
  | "stream-fork"
  | "stream-prev-mismatch"
  | "receipt-id-reused"
  | "settles-unknown"
  | "audit-sequence-regression"
  | "closed-after-integration"
  | "grant-revoked"
  | "revocation-unverifiable";

/** Every finding code, in the order docs/STREAMS.md lists them. */
export const FINDING_CODES: readonly FindingCode[] = [
  "stream-gap",
  "stream-fork",
  "stream-prev-mismatch",
  "receipt-id-reused",
  "settles-unknown",
  "audit-sequence-regression",
  "closed-after-integration",
  "grant-revoked",
  "revocation-unverifiable",
];

/** One finding as stored and answered. */
export interface StreamFinding {
  /** Its number in the store (ascending: the order findings were made). */
  id?: number;
  code: FindingCode;
  /** The steward whose entries it is about. */
  steward: string;
  /** The stream's key, for a chain finding. */
  stream?: string;
  /** The entry the finding is about. */
  index: number;
  /** The stream position (chain findings) or the audit sequence. */
  seq?: number;
  /** The other entry of the finding (the fork's first, the reused id's first, ...). */
  other?: number;
  /** A gap the missing link cleared: that link's index. */
  cleared_by?: number;
}

/** The default `closed-after-integration` skew, ms (issue 24: 5 minutes). */
export const CLOSED_SKEW_MS = 5 * 60_000;

/** The content id of the first link's `prev` (JCP §8.1: 64 zeros). */
export const ZERO_ID = new Uint8Array(32);
