// Strict deterministic-CBOR decoder for untrusted bytes: RFC 8949 §4.2.1 ("core deterministic
// encoding") restricted to the subset a JouleClaw signed core uses (JCR-1 §3.2, ARCHITECTURE
// Decision 1): unsigned and negative integers, byte strings, text strings, arrays and maps with
// integer or text keys. Everything else is refused with its own stable code (verify/codes.ts), so
// that the decoder accepts exactly the bytes the canonical encoder produces:
// encodeCbor(decodeCbor(b)) == b for every accepted b.
import { CborError } from "./errors.ts";

/** A decoded value. Integers are JS numbers when |v| <= 2^53-1 and exact bigints beyond. */
export type CborValue = number | bigint | string | Uint8Array | CborValue[] | CborMap;
/** A decoded map: keys are integers or text strings, in canonical (encoded-bytewise) order. */
export type CborMap = Map<string | number | bigint, CborValue>;

/** Resource limits for untrusted input (ARCHITECTURE "Errors": CBOR depth and item counts). */
export interface CborLimits {
  /** Deepest allowed nesting of arrays/maps; the top-level container is depth 1. Default 16. */
  maxDepth?: number;
  /** Most data items (every key, value and element counted, containers included). Default 10,000. */
  maxItems?: number;
}

/** Default nesting limit: a container at depth 17 is refused ("too-deep"). */
export const CBOR_MAX_DEPTH = 16;
/** Default item limit: the 10,001st data item is refused ("too-many-items"). */
export const CBOR_MAX_ITEMS = 10_000;

const TWO32 = 0x1_0000_0000;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }); // fatal: invalid UTF-8 throws

interface State {
  b: Uint8Array;
  pos: number;
  items: number;
  maxDepth: number;
  maxItems: number;
}

function fail(code: string, why: string, offset: number): never {
  throw new CborError(code, `Cannot decode CBOR: ${why} at byte ${offset}`, offset);
}

/**
 * Where the strict deterministic-CBOR data item starting at `start` ends (its end offset), for
 * splitting an RFC 8742 CBOR sequence. The item is decoded with every rule of `decodeCbor`
 * (so a malformed item throws CborError with its code); what follows it is left to the caller.
 */
export function cborItemEnd(bytes: Uint8Array, start: number, limits?: CborLimits): number {
  const st: State = {
    b: bytes,
    pos: start,
    items: 0,
    maxDepth: limits?.maxDepth ?? CBOR_MAX_DEPTH,
    maxItems: limits?.maxItems ?? CBOR_MAX_ITEMS,
  };
  item(st, 0);
  return st.pos;
}

/**
 * Decodes exactly one strict deterministic-CBOR data item from untrusted bytes.
 * Throws CborError with a stable code on the first violation; never returns a partial value.
 *
 * @example
 * ```ts
 * decodeCbor(new Uint8Array([0xa1, 0x61, 0x61, 0x01])) // Map { "a" => 1 }
 * decodeCbor(new Uint8Array([0xf5]))                   // throws CborError code "simple-value"
 * ```
 */
export function decodeCbor(bytes: Uint8Array, limits?: CborLimits): CborValue {
  if (!(bytes instanceof Uint8Array)) {
    throw new CborError("unsupported-type", "Cannot decode CBOR: input is not a Uint8Array", 0);
  }
  const st: State = {
    b: bytes,
    pos: 0,
    items: 0,
    maxDepth: limits?.maxDepth ?? CBOR_MAX_DEPTH,
    maxItems: limits?.maxItems ?? CBOR_MAX_ITEMS,
  };
  const v = item(st, 0);
  // RFC 8949 §5.1 / §4.2: exactly one item; anything after it is refused.
  if (st.pos !== bytes.length) {
    fail("trailing-bytes", `${bytes.length - st.pos} trailing byte(s)`, st.pos);
  }
  return v;
}

/** Reads the argument of a head whose initial byte is at `start`; checks shortest form. */
function readArg(st: State, ai: number, start: number): number | bigint {
  if (ai < 24) return ai;
  const b = st.b;
  const p = st.pos;
  const need = ai === 24 ? 1 : ai === 25 ? 2 : ai === 26 ? 4 : 8;
  if (p + need > b.length) fail("truncated", "head argument runs past the input", start);
  st.pos = p + need;
  let v: number;
  // RFC 8949 §4.2.1: "The argument ... MUST be as short as possible."
  if (ai === 24) {
    v = b[p];
    if (v < 24) fail("non-shortest-head", `value ${v} encoded in 1 extra byte`, start);
    return v;
  }
  if (ai === 25) {
    v = (b[p] << 8) | b[p + 1];
    if (v < 0x100) fail("non-shortest-head", `value ${v} encoded in 2 extra bytes`, start);
    return v;
  }
  if (ai === 26) {
    v = ((b[p] << 24) >>> 0) + ((b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]);
    if (v < 0x1_0000) fail("non-shortest-head", `value ${v} encoded in 4 extra bytes`, start);
    return v;
  }
  const hi = ((b[p] << 24) >>> 0) + ((b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]);
  const lo = ((b[p + 4] << 24) >>> 0) + ((b[p + 5] << 16) | (b[p + 6] << 8) | b[p + 7]);
  if (hi === 0) fail("non-shortest-head", `value ${lo} encoded in 8 extra bytes`, start);
  if (hi < 0x20_0000) return hi * TWO32 + lo; // < 2^53: exact as a number
  return (BigInt(hi) << 32n) | BigInt(lo); // exact beyond 2^53-1
}

function item(st: State, depth: number): CborValue {
  const start = st.pos;
  const b = st.b;
  if (start >= b.length) fail("truncated", "input ends where a data item should start", start);
  if (++st.items > st.maxItems) {
    fail("too-many-items", `more than ${st.maxItems} data items`, start);
  }
  const ib = b[start];
  st.pos = start + 1;
  const major = ib >> 5;
  const ai = ib & 31;
  if (ai >= 28) {
    if (ai === 31) {
      if (major === 7) fail("lone-break", "break (0xff) outside an indefinite-length item", start);
      // RFC 8949 §4.2.1: "Indefinite-length items MUST NOT appear."
      if (major >= 2 && major <= 5) fail("indefinite-length", "indefinite-length item", start);
    }
    fail("reserved-ai", `reserved additional information ${ai} (major type ${major})`, start);
  }
  if (major === 7) {
    if (ai >= 25) fail("float", "floating-point value", start); // JCR-1 §3.2: no floats
    fail("simple-value", ai === 24 ? "simple value (1-byte form)" : `simple value ${ai}`, start);
  }
  if (major === 6) fail("tag", "tagged item", start);
  const arg = readArg(st, ai, start);
  switch (major) {
    case 0:
      return arg;
    case 1:
      if (typeof arg === "number") {
        return arg < Number.MAX_SAFE_INTEGER ? -1 - arg : -1n - BigInt(arg);
      }
      return -1n - arg;
    case 2: {
      const end = lengthEnd(st, arg, start);
      const out = b.slice(st.pos, end);
      st.pos = end;
      return out;
    }
    case 3: {
      const end = lengthEnd(st, arg, start);
      const s = text(b, st.pos, end, start);
      st.pos = end;
      return s;
    }
    case 4: {
      const n = count(st, arg, depth, 1, start);
      const out: CborValue[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = item(st, depth + 1);
      return out;
    }
    default: { // 5: map
      const n = count(st, arg, depth, 2, start);
      const out: CborMap = new Map();
      let prevStart = -1;
      let prevEnd = -1;
      for (let i = 0; i < n; i++) {
        const ks = st.pos;
        if (ks < b.length) {
          const km = b[ks] >> 5;
          if (km === 2 || km === 4 || km === 5) {
            fail("unsupported-key", "map key is not an integer or a text string", ks);
          }
        }
        const key = item(st, depth + 1) as string | number | bigint;
        const ke = st.pos;
        if (prevStart >= 0) {
          // RFC 8949 §4.2.1: keys sorted by bytewise lexicographic order of their encodings.
          const c = compareRange(b, prevStart, prevEnd, ks, ke);
          if (c === 0) fail("duplicate-key", "duplicate map key", ks);
          if (c > 0) {
            // an earlier key with the same encoding is the same decoded key (shortest heads, one
            // integer form per value), so the map itself answers "seen before?"
            if (out.has(key)) fail("duplicate-key", "duplicate map key", ks);
            fail("unsorted-keys", "map keys not in bytewise order of their encodings", ks);
          }
        }
        prevStart = ks;
        prevEnd = ke;
        out.set(key, item(st, depth + 1));
      }
      return out;
    }
  }
}

function lengthEnd(st: State, arg: number | bigint, start: number): number {
  if (typeof arg === "bigint" || arg > st.b.length - st.pos) {
    fail("truncated", `declared length ${arg} runs past the input`, start);
  }
  return st.pos + arg;
}

function count(st: State, arg: number | bigint, depth: number, per: number, start: number): number {
  if (depth + 1 > st.maxDepth) fail("too-deep", `nesting deeper than ${st.maxDepth}`, start);
  if (typeof arg === "bigint" || arg > st.maxItems) {
    fail("too-many-items", `declared count ${arg} exceeds ${st.maxItems} items`, start);
  }
  // every item needs at least one byte: a count the remaining input cannot hold is truncation
  if (arg * per > st.b.length - st.pos) {
    fail("truncated", `declared count ${arg} runs past the input`, start);
  }
  return arg;
}

const INTERN_MAX = 8192;
const intern = new Map<number, string>(); // short ASCII strings (field names, enum values) recur

/** The (interned) string of the at most 64 bytes [from, to) when all are ASCII; else undefined. */
function shortAscii(b: Uint8Array, from: number, to: number): string | undefined {
  let h = 0x811c9dc5 ^ (to - from); // FNV-1a over the bytes, seeded with the length
  for (let i = from; i < to; i++) {
    const c = b[i];
    if (c >= 0x80) return undefined;
    h = Math.imul(h ^ c, 0x01000193);
  }
  const hit = intern.get(h);
  if (hit !== undefined && hit.length === to - from) {
    let same = true;
    for (let j = 0; j < hit.length; j++) {
      if (hit.charCodeAt(j) !== b[from + j]) {
        same = false;
        break;
      }
    }
    if (same) return hit;
  }
  const s = String.fromCharCode.apply(null, b.subarray(from, to) as unknown as number[]);
  if (hit === undefined && intern.size < INTERN_MAX) intern.set(h, s);
  return s;
}

/**
 * The text of bytes [from, to) of `b`, which the caller has checked are all ASCII (< 0x80); short
 * strings come from the decoder's intern table. For parsers that read a known layout (cose.ts).
 */
export function decodeAsciiText(b: Uint8Array, from: number, to: number): string {
  const s = to - from <= 64 ? shortAscii(b, from, to) : undefined;
  return s !== undefined ? s : utf8.decode(b.subarray(from, to));
}

function text(b: Uint8Array, from: number, to: number, start: number): string {
  if (to - from <= 64) {
    const s = shortAscii(b, from, to);
    if (s !== undefined) return s;
  }
  try {
    return utf8.decode(b.subarray(from, to));
  } catch {
    return fail("invalid-utf8", "text string is not valid UTF-8", start);
  }
}

function compareRange(b: Uint8Array, as: number, ae: number, bs: number, be: number): number {
  const la = ae - as;
  const lb = be - bs;
  const n = la < lb ? la : lb;
  for (let i = 0; i < n; i++) {
    const d = b[as + i] - b[bs + i];
    if (d !== 0) return d;
  }
  return la - lb;
}
