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
   * Reads the first index under each of `keys` at once (one statement for many point reads);
   * a later `keyed(k, 1)` of one of them answers from it. Optional: without it each is read alone.
   */
  prefetch?(keys: Uint8Array[]): void;
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

/** A steward's key and UTF-8 bytes. Stewards recur: kept (bounded; cleared when full). */
const stewards = new Map<string, { key: Uint8Array; utf8: Uint8Array }>();

function stewardOf(steward: string): { key: Uint8Array; utf8: Uint8Array } {
  let hit = stewards.get(steward);
  if (!hit) {
    const utf8 = enc.encode(steward);
    if (stewards.size >= 4096) stewards.clear();
    stewards.set(steward, hit = { key: hashedKey("s", utf8), utf8 });
  }
  return hit;
}

// Hash input scratch: kind, 0x00, then the value's UTF-8 (grown when a value needs more).
let scratch = new Uint8Array(1024);

/** The kind's byte and the first 8 bytes of BLAKE3(kind || 0x00 || utf8). */
function hashedKey(kind: "s" | "i", utf8: Uint8Array): Uint8Array {
  const pre = new Uint8Array(utf8.length + 2);
  pre[0] = kind.charCodeAt(0);
  pre.set(utf8, 2);
  return keyOf(KIND[kind], blake3(pre), 8);
}

function keyOf(kind: number, digest: Uint8Array, n: number): Uint8Array {
  const b = new Uint8Array(1 + n);
  b[0] = kind;
  b.set(digest.subarray(0, n), 1);
  return b;
}

/** Writes `value`'s UTF-8 into the scratch at `at`; the end offset. */
function utf8Into(value: string, at: number): number {
  for (;;) {
    const r = enc.encodeInto(value, scratch.subarray(at));
    if (r.read === value.length) return at + r.written;
    const grown = new Uint8Array(scratch.length * 2 + value.length * 3);
    grown.set(scratch.subarray(0, at));
    scratch = grown;
  }
}

/** A hex digit's value (ASCII), or -1. */
function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

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
    // (as parseInt of each pair, | 0: a non-hex pair is 0; the routes refuse those before this)
    for (let j = 0; j < 8; j++) {
      const hi = hexDigit(value.charCodeAt(2 * j)), lo = hexDigit(value.charCodeAt(2 * j + 1));
      b[1 + j] = hi < 0 ? 0 : lo < 0 ? hi : (hi << 4) | lo;
    }
    return b;
  }
  if (kind === "s") return stewardOf(value).key;
  scratch[0] = 0x69; // "i"
  scratch[1] = 0;
  const end = utf8Into(value, 2);
  return keyOf(KIND.i, blake3(scratch.subarray(0, end)), 8);
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
  const s = stewardOf(steward).utf8;
  if (scratch.length < 6 + s.length) scratch = new Uint8Array(2 * (6 + s.length));
  scratch[0] = 0x72; // "r"
  scratch[1] = 0;
  scratch[2] = s.length >>> 24, scratch[3] = s.length >>> 16;
  scratch[4] = s.length >>> 8, scratch[5] = s.length;
  scratch.set(s, 6);
  const end = utf8Into(id, 6 + s.length);
  return keyOf(KIND.r, blake3(scratch.subarray(0, end)), 16);
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
  // the batch's (steward, id) keys, read at once: the one lookup nearly every receipt needs
  const rks = entries.map(({ facts: f }) =>
    f.receiptId !== undefined && f.steward ? receiptIdKey(f.steward, f.receiptId) : undefined
  );
  if (tx.prefetch) tx.prefetch(rks.filter((k) => k !== undefined));
  entries.forEach((e, k) => {
    const out: StreamFinding[] = [];
    const r = checkOne(tx, e, headTimestamp, skewMs, out, rks[k]);
    if (out.length) by.set(e.index, out);
    if (r && revocations) revocations.set(e.index, r);
  });
  return by;
}

function checkOne(
  tx: StreamTx,
  { index, facts: f }: CheckedEntry,
  headTs: number,
  skewMs: number,
  out: StreamFinding[],
  rk: Uint8Array | undefined,
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
  if (rk && f.receiptId !== undefined) {
    // JCR-1 §2: `id` is unique per steward. A resubmitted same content never gets here (the
    // content index answers it), so an earlier entry under (steward, id) is another content.
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
