// JCR-1 §3.3 / §6 step 2 without building the bytes: "Recomputing CORE from the parsed fields MUST
// yield identical bytes". `encodesTo(v, bytes)` walks a decoded value and compares, head by head,
// what the canonical encoder (cbor_encode.ts, RFC 8949 §4.2.1) would write with the bytes in hand —
// no output buffer, no key sorting, no allocation for ASCII text.
//
// It is one-sided by design: `true` means encodeCbor(v) returns exactly `bytes` (the same heads,
// the same limits, and map keys already in strictly ascending bytewise order of their encodings,
// which is the order the encoder would sort them into); `false` means only "not shown here", and
// the caller runs the real encoder. So the answer of step 2 is the encoder's answer for every
// input; this only makes the common case cheap. Property tests (tests/verify/cbor_match_test.ts)
// check soundness (true ⇒ equal) on arbitrary and mutated pairs, and completeness on everything
// the strict decoder accepts.
import { CBOR_MAX_DEPTH, CBOR_MAX_ITEMS, type CborValue } from "./cbor_decode.ts";

const TWO32 = 0x1_0000_0000;
const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);
const U64_MAX = (1n << 64n) - 1n;
const NEG_MIN = -(1n << 64n);
const utf8 = new TextEncoder();

interface Cursor {
  b: Uint8Array;
  pos: number;
  items: number;
}

/**
 * True only when `encodeCbor(v)` (default limits) would return exactly `bytes`. False when the
 * bytes differ, or when this fast walk cannot show equality (e.g. map keys not in canonical
 * insertion order): the caller then decides with the encoder itself.
 *
 * @example
 * ```ts
 * const same = encodesTo(core, payload) || bytesEqual(encodeCbor(core), payload);
 * ```
 */
export function encodesTo(v: CborValue, bytes: Uint8Array): boolean {
  const c: Cursor = { b: bytes, pos: 0, items: 0 };
  return item(c, v, 0) && c.pos === bytes.length;
}

/** The shortest head for 0 <= arg <= 2^53-1 (RFC 8949 §4.2.1), compared in place. */
function head(c: Cursor, major: number, arg: number): boolean {
  const b = c.b;
  let p = c.pos;
  const m = major << 5;
  if (arg < 24) {
    if (p + 1 > b.length || b[p] !== (m | arg)) return false;
    c.pos = p + 1;
    return true;
  }
  if (arg < 0x100) {
    if (p + 2 > b.length || b[p] !== (m | 24) || b[p + 1] !== arg) return false;
    c.pos = p + 2;
    return true;
  }
  if (arg < 0x1_0000) {
    if (p + 3 > b.length || b[p] !== (m | 25)) return false;
    if (((b[p + 1] << 8) | b[p + 2]) !== arg) return false;
    c.pos = p + 3;
    return true;
  }
  if (arg < TWO32) {
    if (p + 5 > b.length || b[p] !== (m | 26)) return false;
    if (be32(b, p + 1) !== arg) return false;
    c.pos = p + 5;
    return true;
  }
  if (p + 9 > b.length || b[p] !== (m | 27)) return false;
  p++;
  if (be32(b, p) !== Math.floor(arg / TWO32) || be32(b, p + 4) !== arg % TWO32) return false;
  c.pos = p + 8;
  return true;
}

function be32(b: Uint8Array, p: number): number {
  return ((b[p] << 24) >>> 0) + ((b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]);
}

/** An 8-byte head for 2^53 <= arg < 2^64 (what the encoder writes for such bigints). */
function headBig(c: Cursor, major: number, arg: bigint): boolean {
  if (arg <= MAX_SAFE_BIG) return head(c, major, Number(arg));
  const b = c.b;
  const p = c.pos;
  if (p + 9 > b.length || b[p] !== ((major << 5) | 27)) return false;
  if (BigInt(be32(b, p + 1)) !== arg >> 32n || BigInt(be32(b, p + 5)) !== (arg & 0xffff_ffffn)) {
    return false;
  }
  c.pos = p + 9;
  return true;
}

function raw(c: Cursor, x: Uint8Array): boolean {
  const b = c.b;
  const p = c.pos;
  const n = x.length;
  if (p + n > b.length) return false;
  for (let i = 0; i < n; i++) if (b[p + i] !== x[i]) return false;
  c.pos = p + n;
  return true;
}

function text(c: Cursor, s: string): boolean {
  const n = s.length;
  const start = c.pos;
  if (!head(c, 3, n)) return nonAscii(c, s, start);
  const b = c.b;
  const p = c.pos;
  if (p + n > b.length) return nonAscii(c, s, start);
  for (let i = 0; i < n; i++) {
    const ch = s.charCodeAt(i);
    if (ch >= 0x80 || b[p + i] !== ch) return nonAscii(c, s, start);
  }
  c.pos = p + n;
  return true;
}

/** Text with any non-ASCII character: its UTF-8 bytes (the encoder refuses lone surrogates). */
function nonAscii(c: Cursor, s: string, start: number): boolean {
  c.pos = start;
  let ascii = true;
  for (let i = 0; i < s.length && ascii; i++) ascii = s.charCodeAt(i) < 0x80;
  if (ascii || !s.isWellFormed()) return false; // an ASCII mismatch is a mismatch
  const u = utf8.encode(s);
  return head(c, 3, u.length) && raw(c, u);
}

function int(c: Cursor, v: number | bigint): boolean {
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) return false; // the encoder refuses it
    return v >= 0 ? head(c, 0, v) : head(c, 1, -1 - v);
  }
  if (v > U64_MAX || v < NEG_MIN) return false; // the encoder refuses it
  return v >= 0n ? headBig(c, 0, v) : headBig(c, 1, -1n - v);
}

function item(c: Cursor, v: unknown, depth: number): boolean {
  if (++c.items > CBOR_MAX_ITEMS) return false; // the encoder refuses it
  if (typeof v === "string") return text(c, v);
  if (typeof v === "number" || typeof v === "bigint") return int(c, v);
  if (v instanceof Uint8Array) return head(c, 2, v.length) && raw(c, v);
  if (depth + 1 > CBOR_MAX_DEPTH) return false; // containers only; the encoder refuses it
  if (Array.isArray(v)) {
    if (!head(c, 4, v.length)) return false;
    for (let i = 0; i < v.length; i++) if (!item(c, v[i], depth + 1)) return false;
    return true;
  }
  if (v instanceof Map) return map(c, v, depth);
  return false; // plain objects and anything else: let the encoder answer
}

/**
 * A map matches when its keys, in insertion order, encode to strictly ascending byte strings
 * (RFC 8949 §4.2.1: the encoder's sorted order is then the insertion order, with no duplicates)
 * and every key and value matches in that order.
 */
function map(c: Cursor, m: Map<unknown, unknown>, depth: number): boolean {
  if (!head(c, 5, m.size)) return false;
  const b = c.b;
  let prevStart = -1, prevEnd = -1;
  for (const [k, x] of m) {
    if (++c.items > CBOR_MAX_ITEMS) return false; // the encoder counts each key once
    const ks = c.pos;
    if (typeof k === "string") {
      if (!text(c, k)) return false;
    } else if (typeof k === "number" || typeof k === "bigint") {
      if (!int(c, k)) return false;
    } else return false;
    const ke = c.pos;
    if (prevStart >= 0 && compareRange(b, prevStart, prevEnd, ks, ke) >= 0) return false;
    prevStart = ks;
    prevEnd = ke;
    if (!item(c, x, depth + 1)) return false;
  }
  return true;
}

function compareRange(b: Uint8Array, as: number, ae: number, bs: number, be: number): number {
  const la = ae - as, lb = be - bs;
  const n = la < lb ? la : lb;
  for (let i = 0; i < n; i++) {
    const d = b[as + i] - b[bs + i];
    if (d !== 0) return d;
  }
  return la - lb;
}
