// Canonical deterministic-CBOR encoder, RFC 8949 §4.2.1, for the same subset the strict decoder
// accepts (ARCHITECTURE Decision 1): shortest heads, definite lengths, map keys sorted bytewise by
// their encodings, no floats, simple values or tags. Values it cannot represent are refused with
// the same stable codes as the decoder (verify/codes.ts).
import { compareBytes } from "./bytes.ts";
import { CborError } from "./errors.ts";
import { CBOR_MAX_DEPTH, CBOR_MAX_ITEMS, type CborLimits, type CborValue } from "./cbor_decode.ts";

const TWO32 = 0x1_0000_0000;
const U64_MAX = (1n << 64n) - 1n;
const NEG_MIN = -(1n << 64n);
const utf8 = new TextEncoder();

class Writer {
  buf: Uint8Array;
  pos = 0;
  items = 0;
  constructor(readonly maxDepth: number, readonly maxItems: number, size = 1024) {
    this.buf = new Uint8Array(size);
  }
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }
  /** RFC 8949 §4.2.1: the shortest head for `arg` (0 <= arg <= 2^53-1). */
  head(major: number, arg: number): void {
    this.ensure(9);
    this.pos = writeHead(this.buf, this.pos, major, arg);
  }
  headBig(major: number, arg: bigint): void {
    if (arg <= BigInt(Number.MAX_SAFE_INTEGER)) return this.head(major, Number(arg));
    this.ensure(9);
    this.buf[this.pos++] = (major << 5) | 27;
    for (let s = 56n; s >= 0n; s -= 8n) this.buf[this.pos++] = Number((arg >> s) & 0xffn);
  }
  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

/** Bytes in the shortest head (RFC 8949 §4.2.1) for 0 <= arg <= 2^53-1. */
export function headSize(arg: number): number {
  return arg < 24 ? 1 : arg < 0x100 ? 2 : arg < 0x1_0000 ? 3 : arg < TWO32 ? 5 : 9;
}

/**
 * Writes the shortest head (RFC 8949 §4.2.1) of `major` with 0 <= arg <= 2^53-1 at `p` (which
 * must have headSize(arg) bytes of room) and returns the position after it.
 */
export function writeHead(b: Uint8Array, p: number, major: number, arg: number): number {
  const m = major << 5;
  if (arg < 24) b[p++] = m | arg;
  else if (arg < 0x100) {
    b[p++] = m | 24;
    b[p++] = arg;
  } else if (arg < 0x1_0000) {
    b[p++] = m | 25;
    b[p++] = arg >> 8;
    b[p++] = arg & 0xff;
  } else if (arg < TWO32) {
    b[p++] = m | 26;
    b[p++] = arg >>> 24;
    b[p++] = (arg >> 16) & 0xff;
    b[p++] = (arg >> 8) & 0xff;
    b[p++] = arg & 0xff;
  } else {
    const hi = Math.floor(arg / TWO32);
    const lo = arg >>> 0;
    b[p++] = m | 27;
    b[p++] = hi >>> 24;
    b[p++] = (hi >> 16) & 0xff;
    b[p++] = (hi >> 8) & 0xff;
    b[p++] = hi & 0xff;
    b[p++] = lo >>> 24;
    b[p++] = (lo >> 16) & 0xff;
    b[p++] = (lo >> 8) & 0xff;
    b[p++] = lo & 0xff;
  }
  return p;
}

function refuse(code: string, why: string): never {
  throw new CborError(code, `Cannot encode CBOR: ${why}`);
}

/** Input accepted by the encoder: CBOR values, plus plain objects with text keys. */
export type CborEncodable = CborValue | Record<string, unknown>;

/**
 * Canonical (RFC 8949 §4.2.1) encoding of `v`. Plain objects encode as maps with text keys;
 * properties whose value is `undefined` are omitted (JCR-1 §3.2: absent optional fields are
 * omitted, not encoded as null). Throws CborError for floats ("float"), booleans/null
 * ("simple-value"), unsafe JS integers ("unsafe-integer"), integers outside the 64-bit argument
 * range ("u64-overflow"), lone surrogates ("invalid-utf8"), duplicate keys after encoding
 * ("duplicate-key"), non-integer/text keys ("unsupported-key") and the decoder's depth/item limits.
 *
 * @example
 * ```ts
 * toHex(encodeCbor({ b: 1, a: [2n, "x"] })) // "a2616182026178616201"
 * ```
 */
export function encodeCbor(v: CborEncodable | unknown, limits?: CborLimits): Uint8Array {
  const w = new Writer(limits?.maxDepth ?? CBOR_MAX_DEPTH, limits?.maxItems ?? CBOR_MAX_ITEMS);
  enc(w, v, 0);
  return w.result();
}

function isPlainObject(v: object): v is Record<string, unknown> {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function enc(w: Writer, v: unknown, depth: number): void {
  if (++w.items > w.maxItems) refuse("too-many-items", `more than ${w.maxItems} data items`);
  switch (typeof v) {
    case "number":
      if (!Number.isInteger(v)) refuse("float", `${v} is not an integer (no floats, JCR-1 §3.2)`);
      if (!Number.isSafeInteger(v)) refuse("unsafe-integer", `${v} is beyond 2^53-1; use a bigint`);
      if (v >= 0) w.head(0, v);
      else w.head(1, -1 - v);
      return;
    case "bigint":
      if (v > U64_MAX || v < NEG_MIN) refuse("u64-overflow", `${v} is outside [-2^64, 2^64-1]`);
      if (v >= 0n) w.headBig(0, v);
      else w.headBig(1, -1n - v);
      return;
    case "string":
      return writeText(w, v);
    case "boolean":
    case "undefined":
      refuse("simple-value", `${v} has no representation (no simple values)`);
      break;
    case "object": {
      if (v === null) refuse("simple-value", "null has no representation (omit absent fields)");
      if (v instanceof Uint8Array) {
        w.head(2, v.length);
        w.bytes(v);
        return;
      }
      if (depth + 1 > w.maxDepth) refuse("too-deep", `nesting deeper than ${w.maxDepth}`);
      if (Array.isArray(v)) {
        w.head(4, v.length);
        for (const x of v) enc(w, x, depth + 1);
        return;
      }
      if (v instanceof Map) return encMap(w, v, depth);
      if (isPlainObject(v)) return encMap(w, v, depth);
      refuse("unsupported-type", `${Object.prototype.toString.call(v)} has no representation`);
      break;
    }
    default:
      refuse("unsupported-type", `a ${typeof v} has no representation`);
  }
}

/** RFC 8949 §4.2.1 text: the ASCII fast path writes in place; anything else goes via TextEncoder. */
function writeText(w: Writer, s: string): void {
  const n = s.length;
  const start = w.pos;
  w.ensure(9 + n);
  w.head(3, n);
  const b = w.buf;
  let p = w.pos;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      w.pos = start;
      if (!s.isWellFormed()) refuse("invalid-utf8", "text contains a lone surrogate");
      const u = utf8.encode(s);
      w.head(3, u.length);
      w.bytes(u);
      return;
    }
    b[p++] = c;
  }
  w.pos = p;
}

const KEY_CACHE_MAX = 4096;
const textKeyCache = new Map<string, Uint8Array>(); // receipts reuse a small set of field names

function encodeKey(k: unknown, maxDepth: number): Uint8Array {
  if (typeof k === "string") {
    let e = textKeyCache.get(k);
    if (e === undefined) {
      const kw = new Writer(maxDepth, Infinity, 16 + 3 * k.length);
      writeText(kw, k);
      e = kw.result();
      if (textKeyCache.size < KEY_CACHE_MAX) textKeyCache.set(k, e);
    }
    return e;
  }
  if (typeof k !== "number" && typeof k !== "bigint") {
    refuse("unsupported-key", "map key is not an integer or a text string");
  }
  const kw = new Writer(maxDepth, Infinity, 16);
  enc(kw, k, 0);
  return kw.result();
}

function encMap(
  w: Writer,
  m: Map<unknown, unknown> | Record<string, unknown>,
  depth: number,
): void {
  const keyed: { k: Uint8Array; v: unknown }[] = [];
  const add = (k: unknown, v: unknown) => {
    if (++w.items > w.maxItems) refuse("too-many-items", `more than ${w.maxItems} data items`);
    keyed.push({ k: encodeKey(k, w.maxDepth), v });
  };
  if (m instanceof Map) { for (const [k, v] of m) add(k, v); }
  else {
    for (const k in m) {
      // own enumerable string keys only; undefined = absent optional field (JCR-1 §3.2)
      if (Object.hasOwn(m, k) && m[k] !== undefined) add(k, m[k]);
    }
  }
  // RFC 8949 §4.2.1: keys sorted in bytewise lexicographic order of their deterministic encodings.
  keyed.sort((a, b) => compareBytes(a.k, b.k));
  for (let i = 1; i < keyed.length; i++) {
    if (compareBytes(keyed[i - 1].k, keyed[i].k) === 0) {
      refuse("duplicate-key", "two keys encode alike");
    }
  }
  w.head(5, keyed.length);
  for (let i = 0; i < keyed.length; i++) {
    w.bytes(keyed[i].k);
    enc(w, keyed[i].v, depth + 1);
  }
}
