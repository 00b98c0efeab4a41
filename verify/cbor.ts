// Strict deterministic CBOR (RFC 8949 §4.2.1 subset; ARCHITECTURE Decision 1): the public face of
// the decoder (cbor_decode.ts) and encoder (cbor_encode.ts), plus the JSON projection used by
// reports, the conformance generator and tests (JCR-1 §3.2 allows a JSON projection for debugging;
// the signature is always over the CBOR bytes).
import { toHex } from "./bytes.ts";
import { CborError } from "./errors.ts";
import type { CborMap, CborValue } from "./cbor_decode.ts";

export { CBOR_MAX_DEPTH, CBOR_MAX_ITEMS, decodeCbor } from "./cbor_decode.ts";
export type { CborLimits, CborMap, CborValue } from "./cbor_decode.ts";
export { encodeCbor } from "./cbor_encode.ts";
export type { CborEncodable } from "./cbor_encode.ts";

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  // defineProperty, not assignment: a "__proto__" key must stay data, never a prototype switch
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/**
 * JSON projection of a decoded value: Map → object (integer keys as decimal strings), integers
 * beyond ±(2^53-1) → decimal strings, byte strings → lowercase hex. Throws CborError
 * ("duplicate-key") when two map keys project to the same JSON name (e.g. 1 and "1").
 *
 * @example toJson(decodeCbor(bytes)) // { jc_receipt: "1", joules_uj: 4200, ... }
 */
export function toJson(v: CborValue): unknown {
  if (typeof v === "number" || typeof v === "string") return v;
  if (typeof v === "bigint") {
    // beyond ±(2^53-1) a JSON number would round: project as a decimal string instead
    return v >= -MAX_SAFE && v <= MAX_SAFE ? Number(v) : v.toString();
  }
  if (v instanceof Uint8Array) return toHex(v);
  if (Array.isArray(v)) {
    const a = new Array(v.length);
    for (let i = 0; i < v.length; i++) a[i] = toJson(v[i]);
    return a;
  }
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v) {
      const name = typeof k === "string" ? k : String(k);
      if (name in o) { // an own key already, or one inherited from Object.prototype
        if (Object.hasOwn(o, name)) {
          throw new CborError(
            "duplicate-key",
            `Cannot project CBOR to JSON: two keys named "${name}"`,
          );
        }
        setOwn(o, name, toJson(x)); // e.g. "__proto__", "toString": stay own data properties
      } else o[name] = toJson(x); // nothing of that name on the chain: plain assignment is the same
    }
    return o;
  }
  throw new CborError(
    "unsupported-type",
    `Cannot project CBOR to JSON: ${typeof v} is not a CBOR value`,
  );
}

/**
 * Inverse projection for generators and tests: objects → Map with text keys, integers → number
 * (safe) or bigint, strings → text, Uint8Array → byte string. Not injective with toJson (hex and
 * decimal strings stay text). Floats, booleans and null are refused with the encoder's codes.
 *
 * @example encodeCbor(fromJson({ a: 1, b: [2, "x"] }))
 */
export function fromJson(j: unknown): CborValue {
  return fromJsonAt(j, 0);
}

function fromJsonAt(j: unknown, depth: number): CborValue {
  if (depth > 64) {
    throw new CborError("too-deep", "Cannot convert JSON to CBOR: nesting deeper than 64");
  }
  switch (typeof j) {
    case "number":
      if (!Number.isInteger(j)) {
        throw new CborError("float", `Cannot convert JSON to CBOR: ${j} is not an integer`);
      }
      if (!Number.isSafeInteger(j)) {
        throw new CborError("unsafe-integer", `Cannot convert JSON to CBOR: ${j} is beyond 2^53-1`);
      }
      return j;
    case "bigint":
    case "string":
      return j;
    case "object": {
      if (j === null) throw new CborError("simple-value", "Cannot convert JSON to CBOR: null");
      if (j instanceof Uint8Array) return j;
      if (Array.isArray(j)) return j.map((x) => fromJsonAt(x, depth + 1));
      const m: CborMap = new Map();
      for (const [k, x] of Object.entries(j)) m.set(k, fromJsonAt(x, depth + 1));
      return m;
    }
    default:
      throw new CborError(
        "simple-value",
        `Cannot convert JSON to CBOR: ${typeof j} has no representation`,
      );
  }
}
