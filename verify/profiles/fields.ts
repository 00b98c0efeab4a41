// JCR-1 §2 / §3.2, JouleClaw SPEC §7, JCP §8 — field lists of signed cores.
//
// A profile declares its signed core as a table of fields (name, type, required). `checkFields`
// walks a decoded core against that table and answers the first violation with a stable code:
// `missing-field`, `bad-field-type` (wrong CBOR major type) or `bad-field-value` (right type, value
// outside the field's domain). Unknown fields are ignored, never rejected (JCR-1 §1 invariant 4;
// SPEC §7 "unknown minor → accept by ignoring unknown fields").

import type { CborMap, CborValue } from "../cbor.ts";
import { resolveDidKey, type TypedPublicKey } from "../did_key.ts";

/** A field check's failure: a reason code from verify/codes.ts and a human-readable detail. */
export interface Finding {
  code: string;
  detail: string;
}

/** The type of one field of a signed core. */
export type FieldType =
  | { t: "text" }
  | { t: "uint"; max?: bigint }
  // a signed CBOR integer, major type 0 or 1 (JCP §5.3 `residual_uj` is signed)
  | { t: "int" }
  | { t: "hex64" }
  | { t: "rfc3339" }
  | { t: "did-key" }
  | { t: "enum"; values: readonly string[] }
  | { t: "array"; of: FieldType }
  | { t: "map"; fields: FieldTable }
  | { t: "any-map" };

/** A field table: name → type and whether the field MUST be present. */
export type FieldTable = Record<string, { type: FieldType; required: boolean }>;

/** Field-type constructors, so tables read like the spec's tables. */
export const F = {
  text: { t: "text" } as FieldType,
  uint: { t: "uint" } as FieldType,
  int: { t: "int" } as FieldType,
  u8: { t: "uint", max: 0xffn } as FieldType,
  u16: { t: "uint", max: 0xffffn } as FieldType,
  u32: { t: "uint", max: 0xffff_ffffn } as FieldType,
  hex64: { t: "hex64" } as FieldType,
  rfc3339: { t: "rfc3339" } as FieldType,
  didKey: { t: "did-key" } as FieldType,
  anyMap: { t: "any-map" } as FieldType,
  oneOf: (...values: string[]): FieldType => ({ t: "enum", values }),
  arrayOf: (of: FieldType): FieldType => ({ t: "array", of }),
  map: (fields: FieldTable): FieldType => ({ t: "map", fields }),
};

/** `req(type)` / `opt(type)`: table entries. */
export const req = (type: FieldType) => ({ type, required: true });
export const opt = (type: FieldType) => ({ type, required: false });

// JCR-1 §2: timestamps are RFC 3339 UTC — so the zone is "Z", never an offset:
//   ^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$  (read by isRfc3339Utc)

const DID_CACHE_MAX = 4096;
const didCache = new Map<string, TypedPublicKey | null>();

/**
 * The typed public key of a did:key (Ed25519 or P-256, verify/did_key.ts), or null when the
 * string is not a valid did:key — memoised (bounded, oldest evicted first): the same stewards and
 * agents recur across receipts, and base58 decoding is the costliest part of a field check.
 * Internal: callers must not mutate the result.
 */
export function didKeyTypedCached(did: string): TypedPublicKey | null {
  const hit = didCache.get(did);
  if (hit !== undefined) return hit;
  let key: TypedPublicKey | null;
  try {
    key = resolveDidKey(did);
  } catch {
    key = null;
  }
  if (didCache.size >= DID_CACHE_MAX) didCache.delete(didCache.keys().next().value!);
  didCache.set(did, key);
  return key;
}

/**
 * The public key of a did:key, or null when the string is not a valid Ed25519 did:key (the
 * handles SPEC §8 names) — memoised as didKeyTypedCached. Internal: do not mutate the result.
 */
export function didKeyPublicKeyCached(did: string): Uint8Array | null {
  const k = didKeyTypedCached(did);
  return k && k.alg === -8 ? k.pub : null;
}

/** True for an unsigned CBOR integer (major type 0), as decoded into number or bigint. */
export function isUint(v: unknown): v is number | bigint {
  return (typeof v === "number" && Number.isInteger(v) && v >= 0) ||
    (typeof v === "bigint" && v >= 0n);
}

/** True for a CBOR integer of either sign (major type 0 or 1), as decoded into number or bigint. */
export function isInt(v: unknown): v is number | bigint {
  return (typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint";
}

/** True for a decoded CBOR map. */
export function isMap(v: unknown): v is CborMap {
  return v instanceof Map;
}

/** RFC 3339 §5.6 date-time, restricted to UTC ("Z"), with calendar ranges checked. */
export function isRfc3339Utc(s: string): boolean {
  // YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z read by position (the grammar above, without a match array)
  const n = s.length;
  if (n !== 20 && (n < 22 || n > 30)) return false;
  const y = digits(s, 0, 4), mo = digits(s, 5, 2), d = digits(s, 8, 2);
  const h = digits(s, 11, 2), mi = digits(s, 14, 2), se = digits(s, 17, 2);
  if ((y | mo | d | h | mi | se) < 0) return false;
  if (s[4] !== "-" || s[7] !== "-" || s[10] !== "T" || s[13] !== ":" || s[16] !== ":") return false;
  if (s[n - 1] !== "Z") return false;
  if (n > 20 && (s[19] !== "." || digits(s, 20, n - 21) < 0)) return false; // 1-9 fraction digits
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 60) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= (mo === 2 ? (leap ? 29 : 28) : DAYS[mo - 1]);
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The value of `n` ASCII digits at `at` (n ≤ 9), or -1 if any is not 0-9. */
function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** 64 lowercase hex digits (JCR-1 §2: BLAKE3-256 hashes): /^[0-9a-f]{64}$/. */
function isHex64(s: string): boolean {
  if (s.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

function typeName(v: CborValue): string {
  if (typeof v === "number" || typeof v === "bigint") {
    return v < 0 ? "negative integer" : "unsigned integer";
  }
  if (typeof v === "string") return "text string";
  if (v instanceof Uint8Array) return "byte string";
  if (Array.isArray(v)) return "array";
  return "map";
}

function wrongType(path: string, want: string, v: CborValue): Finding {
  return { code: "bad-field-type", detail: `${path} must be ${want}, not a ${typeName(v)}` };
}

function badValue(path: string, why: string): Finding {
  return { code: "bad-field-value", detail: `${path} ${why}` };
}

/** Checks one value against its field type; answers the first violation. */
export function checkValue(v: CborValue, type: FieldType, path: string): Finding | undefined {
  switch (type.t) {
    case "text":
      return typeof v === "string" ? undefined : wrongType(path, "a text string", v);
    case "uint":
      if (!isUint(v)) return wrongType(path, "an unsigned integer", v);
      if (type.max !== undefined && BigInt(v) > type.max) {
        return badValue(path, `exceeds ${type.max}`);
      }
      return undefined;
    case "int":
      return isInt(v) ? undefined : wrongType(path, "an integer", v);
    case "hex64":
      if (typeof v !== "string") return wrongType(path, "a text string", v);
      // JCR-1 §2: hashes are lowercase hex BLAKE3-256 (64 hex digits). §10's worked example writes
      // "b3:9f2c...e1", elided and prefixed: the normative form rules (docs/DECISIONS.md).
      if (isHex64(v)) return undefined;
      return badValue(
        path,
        v.startsWith("b3:")
          ? "must be 64 lowercase hex digits (JCR-1 §2 blake3-hex): the b3: prefix of JCR-1 §10's " +
            "illustrative example is not part of the form"
          : "must be 64 lowercase hex digits (BLAKE3-256)",
      );
    case "rfc3339":
      if (typeof v !== "string") return wrongType(path, "a text string", v);
      return isRfc3339Utc(v) ? undefined : badValue(path, "must be an RFC 3339 UTC date-time (…Z)");
    case "did-key":
      if (typeof v !== "string") return wrongType(path, "a text string", v);
      return didKeyPublicKeyCached(v)
        ? undefined
        : badValue(path, "must be an Ed25519 did:key handle (SPEC §8)");
    case "enum":
      if (typeof v !== "string") return wrongType(path, "a text string", v);
      return type.values.includes(v)
        ? undefined
        : badValue(path, `must be one of ${type.values.join(", ")}`);
    case "array": {
      if (!Array.isArray(v)) return wrongType(path, "an array", v);
      for (let i = 0; i < v.length; i++) {
        const f = checkValue(v[i], type.of, `${path}[${i}]`);
        if (f) return f;
      }
      return undefined;
    }
    case "map":
      if (!isMap(v)) return wrongType(path, "a map", v);
      return checkFields(v, type.fields, path);
    case "any-map":
      return isMap(v) ? undefined : wrongType(path, "a map", v);
  }
}

/**
 * Checks a decoded map against a field table: every required field present, every present known
 * field of its type. Unknown fields are ignored (JCR-1 §1 invariant 4).
 */
export function checkFields(m: CborMap, table: FieldTable, path = ""): Finding | undefined {
  if (fieldsOk(m, compiled(table))) return undefined; // the common case, without building paths
  for (const [name, { type, required }] of Object.entries(table)) {
    const where = path ? `${path}.${name}` : name;
    const v = m.get(name);
    if (v === undefined) {
      // JCR-1 §3.2: absent optional fields are omitted (never null), so absence is the only "none".
      if (required) return { code: "missing-field", detail: `${where} is required` };
      continue;
    }
    const f = checkValue(v, type, where);
    if (f) return f;
  }
  return undefined;
}

// --- the fast path: the same predicates as checkValue/checkFields, answering only yes or no -----
// checkFields runs it first; on "no" the diagnosing walk above names the first violation, so
// every finding is the one the diagnosing walk gives (tests/verify/fields_fast_test.ts).

interface CompiledField {
  name: string;
  type: FieldType;
  required: boolean;
}

const compiledTables = new WeakMap<FieldTable, CompiledField[]>();

function compiled(table: FieldTable): CompiledField[] {
  let c = compiledTables.get(table);
  if (c === undefined) {
    c = Object.entries(table).map(([name, { type, required }]) => ({ name, type, required }));
    compiledTables.set(table, c);
  }
  return c;
}

const U53 = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * True exactly when `checkValue(v, type, path)` finds nothing — the same predicates without
 * building paths or findings. Internal (exported for the equivalence tests).
 */
export function conforms(v: CborValue, type: FieldType): boolean {
  switch (type.t) {
    case "text":
      return typeof v === "string";
    case "uint":
      if (typeof v === "number") {
        if (!Number.isInteger(v) || v < 0) return false;
        if (type.max === undefined) return true;
        return type.max <= U53 ? v <= Number(type.max) : BigInt(v) <= type.max;
      }
      return typeof v === "bigint" && v >= 0n && (type.max === undefined || v <= type.max);
    case "int":
      return isInt(v);
    case "hex64":
      return typeof v === "string" && isHex64(v);
    case "rfc3339":
      return typeof v === "string" && isRfc3339Utc(v);
    case "did-key":
      return typeof v === "string" && didKeyPublicKeyCached(v) !== null;
    case "enum":
      return typeof v === "string" && type.values.includes(v);
    case "array":
      if (!Array.isArray(v)) return false;
      for (let i = 0; i < v.length; i++) if (!conforms(v[i], type.of)) return false;
      return true;
    case "map":
      return v instanceof Map && fieldsOk(v, compiled(type.fields));
    case "any-map":
      return v instanceof Map;
  }
}

function fieldsOk(m: CborMap, fields: CompiledField[]): boolean {
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    const v = m.get(f.name);
    if (v === undefined) {
      if (f.required) return false;
    } else if (!conforms(v, f.type)) return false;
  }
  return true;
}

/** Reads a text field already checked by `checkFields`. */
export function text(m: CborMap, name: string): string | undefined {
  const v = m.get(name);
  return typeof v === "string" ? v : undefined;
}

/** Reads an unsigned field already checked by `checkFields`, as bigint. */
export function uint(m: CborMap, name: string): bigint | undefined {
  const v = m.get(name);
  return isUint(v) ? BigInt(v) : undefined;
}

/** Reads an array field (absent → empty). */
export function list(m: CborMap, name: string): CborValue[] {
  const v = m.get(name);
  return Array.isArray(v) ? v : [];
}
