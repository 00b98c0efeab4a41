// The stream checks at append (issue 24; docs/STREAMS.md): run by the store inside the commit
// transaction of the batch that logs the entries, over the store's stream state, so the state
// moves exactly with the log (a crash leaves both or neither) and each entry costs a bounded
// number of indexed point reads and writes at any log size. A finding never refuses an entry:
// the entry is logged and the finding is evidence beside it. Pure: the state is the store's.
import { blake3, bytesEqual } from "../crypto.ts";
import {
  type ChainLink,
  type EntryFacts,
  type FindingCode,
  type StreamFinding,
  ZERO_ID,
} from "./facts.ts";
import { checkGrantFacts, type GrantTx } from "./grants.ts";
import type { RevocationStatus } from "./revocation.ts";

/** A stored link of a stream. */
export interface StoredLink {
  index: number;
  cid: Uint8Array;
  prev: Uint8Array;
}

/** The store's stream state inside its commit transaction (log/sql/streams.ts). Synchronous. */
export interface StreamTx {
  /** The stream's number, creating it (and counting this link) as needed. */
  countLink(steward: string, key: string, seq: number, index: number): number;
  /** The links stored at one position of a stream (more than one: a fork). */
  links(stream: number, seq: number): StoredLink[];
  putLink(stream: number, seq: number, link: StoredLink): void;
  /** Indices under a search key, ascending, at most `limit`. */
  keyed(key: Uint8Array, limit: number): number[];
  /**
   * Writes `index` under `keys` (a later check of the batch may look them up) and `plain` (keys
   * no check looks up: content ids, input hashes; only the reads do).
   */
  putKeys(index: number, keys: Uint8Array[], plain?: Uint8Array[]): void;
  /** An engine's last audit sequence (and its entry). */
  auditHead(steward: string, engine: string): { seq: number; index: number } | undefined;
  putAuditHead(steward: string, engine: string, seq: number, index: number): void;
  addFinding(f: StreamFinding): void;
  /** Marks the open `stream-gap` finding of entry `index` cleared by `by`. */
  clearGap(index: number, by: number): void;
  /** JCP §5.3: binds activity entry `activity` to outcome entry `outcome` (log/outcomes.ts). */
  bind(activity: number, outcome: number): void;
  /** The grant state (issue 25; grants.ts), where the store keeps it. */
  grants?: GrantTx;
}

/** An entry of the batch: its facts and its index. */
export interface CheckedEntry {
  index: number;
  facts: EntryFacts;
}

const enc = new TextEncoder();

/** Each kind's first byte: keys of two kinds never collide. */
const KIND = { s: 1, i: 2, n: 3, c: 4, h: 5, r: 6 } as const;

/** Stewards recur: their keys are kept (bounded; cleared when full). */
const stewardKeys = new Map<string, Uint8Array>();

/**
 * A search key (docs/STREAMS.md "Lookups"): the kind's byte, then 8 bytes. A steward (`s`) and a
 * receipt id (`i`) are chosen by the submitter, so theirs are the first 8 bytes of
 * BLAKE3(kind || 0x00 || value): a collision costs a 2^64 second preimage. A content id (`c`, and
 * a hold's, `h`) is a BLAKE3 output already, and an input hash (`n`) is the submitter's own claim
 * (anyone may log that input hash): theirs are its first 8 bytes.
 */
export function searchKey(kind: "s" | "i" | "n", value: string): Uint8Array {
  if (kind === "n") {
    const b = new Uint8Array(9);
    b[0] = KIND.n;
    for (let j = 0; j < 8; j++) b[1 + j] = parseInt(value.slice(2 * j, 2 * j + 2), 16) | 0;
    return b;
  }
  if (kind === "s") {
    const hit = stewardKeys.get(value);
    if (hit) return hit;
  }
  const v = enc.encode(value);
  const pre = new Uint8Array(v.length + 2);
  pre[0] = kind.charCodeAt(0);
  pre.set(v, 2);
  const b = new Uint8Array(9);
  b[0] = KIND[kind];
  b.set(blake3(pre).subarray(0, 8), 1);
  if (kind === "s") {
    if (stewardKeys.size >= 4096) stewardKeys.clear();
    stewardKeys.set(value, b);
  }
  return b;
}

/**
 * The search key of one steward's receipt id (`r`; JCR-1 §2: `id` is unique per steward): the
 * kind's byte, then the first 16 bytes of BLAKE3("r" || 0x00 || u32be(len(steward)) || steward ||
 * id) (the steward's length first: no two (steward, id) pairs share the hashed bytes). Only the
 * `receipt-id-reused` check looks it up (the search answers `receipt_id` by its `i` key): one point
 * read answers it at any log size, however many other stewards used the id. 16 bytes, as the
 * `i` and `s` keys it replaces in that check were together: a false finding costs a collision of
 * a 128-bit hash.
 */
export function receiptIdKey(steward: string, id: string): Uint8Array {
  const s = enc.encode(steward), v = enc.encode(id);
  const pre = new Uint8Array(6 + s.length + v.length);
  pre[0] = 0x72; // "r"
  new DataView(pre.buffer).setUint32(2, s.length);
  pre.set(s, 6);
  pre.set(v, 6 + s.length);
  const b = new Uint8Array(17);
  b[0] = KIND.r;
  b.set(blake3(pre).subarray(0, 16), 1);
  return b;
}

/** The search key of a content id (`c`) or of a hold's (`h`), 32 bytes. */
export function cidKey(kind: "c" | "h", cid: Uint8Array): Uint8Array {
  const b = new Uint8Array(9);
  b[0] = KIND[kind];
  b.set(cid.subarray(0, 8), 1);
  return b;
}

/**
 * Checks the batch's entries in index order (a later one sees the earlier ones' state), writes
 * their state and findings, and returns the findings each caused, by the causing entry's index;
 * `revocations`, when given, receives each allow's revocation status (issue 25; revocation.ts).
 */
export function checkStreams(
  tx: StreamTx,
  entries: CheckedEntry[],
  headTimestamp: number,
  skewMs: number,
  revocations?: Map<number, RevocationStatus>,
): Map<number, StreamFinding[]> {
  const by = new Map<number, StreamFinding[]>();
  for (const e of entries) {
    const out: StreamFinding[] = [];
    const r = checkOne(tx, e, headTimestamp, skewMs, out);
    if (out.length) by.set(e.index, out);
    if (r && revocations) revocations.set(e.index, r);
  }
  return by;
}

function checkOne(
  tx: StreamTx,
  { index, facts: f }: CheckedEntry,
  headTs: number,
  skewMs: number,
  out: StreamFinding[],
): RevocationStatus | undefined {
  const steward = f.steward ?? "";
  const add = (code: FindingCode, more: Partial<StreamFinding> = {}) => {
    const x: StreamFinding = { code, steward, index, ...more };
    tx.addFinding(x);
    out.push(x);
  };
  const keys: Uint8Array[] = [];
  const plain = [cidKey("c", f.cid)]; // looked up by the reads only, never by a check
  if (f.steward) plain.push(searchKey("s", f.steward));
  if (f.inputHash) plain.push(searchKey("n", f.inputHash));
  if (f.receiptId !== undefined && f.steward) {
    // JCR-1 §2: `id` is unique per steward. A resubmitted same content never gets here (the
    // content index answers it), so an earlier entry under (steward, id) is another content.
    const rk = receiptIdKey(f.steward, f.receiptId);
    const [first] = tx.keyed(rk, 1);
    if (first !== undefined) add("receipt-id-reused", { other: first });
    keys.push(rk);
    plain.push(searchKey("i", f.receiptId)); // GET /v1/log/search?receipt_id=
  }
  if (f.settles && tx.keyed(cidKey("h", f.settles), 1).length === 0) {
    // JCP §8.1: a settle names the hold it accounts for by its envelope's content id.
    add("settles-unknown");
  }
  if (f.hold) keys.push(cidKey("h", f.cid));
  tx.putKeys(index, keys, plain);
  // JCP §5.3: each activity is bound to one outcome, in the outcome's own commit
  for (const a of f.bound ?? []) tx.bind(a, index);
  if (f.audit && f.steward) {
    // SPEC §9-§10: audit_sequence is monotonic per engine.
    const h = tx.auditHead(f.steward, f.audit.engine);
    if (h && f.audit.seq <= h.seq) {
      add("audit-sequence-regression", { seq: f.audit.seq, other: h.index });
    } else tx.putAuditHead(f.steward, f.audit.engine, f.audit.seq, index);
  }
  if (f.closedAtMs !== undefined && f.closedAtMs > headTs + skewMs) {
    // JCP §11: the signed head is the one time a third party can trust; work that closed after
    // the head that integrated it (beyond the skew) claims a time the log contradicts.
    add("closed-after-integration");
  }
  if (f.chain && f.steward) chain(tx, f.steward, f.chain, index, f.cid, add);
  // issue 25: grants, revocations, an allow's revocation status
  return tx.grants ? checkGrantFacts(tx.grants, index, f, add) : undefined;
}

/** JCP §8.1: `seq` from 0, `prev` the previous envelope's content id (64 zeros first). */
function chain(
  tx: StreamTx,
  steward: string,
  l: ChainLink,
  index: number,
  cid: Uint8Array,
  add: (code: FindingCode, more?: Partial<StreamFinding>) => void,
): void {
  const sid = tx.countLink(steward, l.key, l.seq, index);
  const at = { stream: l.key, seq: l.seq };
  const here = tx.links(sid, l.seq);
  // Two different envelopes at one position: equivocation (both stay logged as evidence).
  if (here.length) add("stream-fork", { ...at, other: here[0].index });
  if (l.seq === 0) {
    if (!bytesEqual(l.prev, ZERO_ID)) add("stream-prev-mismatch", at);
  } else {
    const before = tx.links(sid, l.seq - 1);
    if (before.length === 0) add("stream-gap", at); // clears when seq - 1 arrives
    else if (!before.some((b) => bytesEqual(b.cid, l.prev))) {
      add("stream-prev-mismatch", { ...at, other: before[0].index });
    }
  }
  if (here.length === 0) {
    // The link after this one may have arrived first (submissions come out of order).
    for (const a of tx.links(sid, l.seq + 1)) {
      tx.clearGap(a.index, index);
      if (!bytesEqual(a.prev, cid)) {
        add("stream-prev-mismatch", {
          stream: l.key,
          seq: l.seq + 1,
          index: a.index,
          other: index,
        });
      }
    }
  }
  tx.putLink(sid, l.seq, { index, cid, prev: l.prev });
}
