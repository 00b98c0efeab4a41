// fast-check generators of strict-CBOR values (the subset verify/cbor.ts represents), shared by
// the CBOR property tests and the cbor2 differential test.
import fc from "fast-check";
import type { CborMap, CborValue } from "../../verify/mod.ts";
import { VerifyInputError } from "../../verify/mod.ts";

const U64 = (1n << 64n) - 1n;

/** An exact integer as the decoder returns it: number when safe, bigint beyond. */
export const normInt = (
  b: bigint,
): number | bigint => (b >= -(2n ** 53n - 1n) && b <= 2n ** 53n - 1n ? Number(b) : b);

/** Integers with extra weight on the head-size boundaries 23/24, 255/256, 2^16, 2^32, 2^53, 2^64. */
export const arbInt: fc.Arbitrary<number | bigint> = fc.oneof(
  fc.integer({ min: -30, max: 30 }).map((n) => n as number | bigint),
  fc.constantFrom(
    23n,
    24n,
    255n,
    256n,
    65535n,
    65536n,
    2n ** 32n - 1n,
    2n ** 32n,
    2n ** 53n - 1n,
    2n ** 53n,
    U64,
    -24n,
    -25n,
    -256n,
    -257n,
    -65536n,
    -65537n,
    -(2n ** 32n),
    -(2n ** 32n) - 1n,
    -(2n ** 53n),
    -(2n ** 64n),
  ).map(normInt),
  fc.bigInt({ min: -(1n << 64n), max: U64 }).map(normInt),
);

export const arbText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 30 }),
).filter((s) => s.isWellFormed());

/** Map key classes: "mixed" mixes integers and text in one map. */
export type KeyMode = "text" | "uint" | "nint" | "mixed";

function arbKey(mode: KeyMode): fc.Arbitrary<string | number | bigint> {
  switch (mode) {
    case "text":
      return arbText;
    case "uint":
      return arbInt.filter((k) => k >= 0);
    case "nint":
      return arbInt.filter((k) => k < 0);
    default:
      return fc.oneof(arbText, arbInt);
  }
}

/** A CBOR value whose maps each use one key class drawn from `modes`. */
export function arbCbor(
  modes: KeyMode[] = ["text", "uint", "nint", "mixed"],
  maxDepth = 4,
): fc.Arbitrary<CborValue> {
  const { value } = fc.letrec<{ value: CborValue; map: CborMap }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", maxDepth },
      arbInt,
      arbText,
      fc.uint8Array({ maxLength: 40 }),
      fc.array(tie("value"), { maxLength: 5 }),
      tie("map"),
    ),
    map: fc.constantFrom(...modes).chain((mode) =>
      fc.uniqueArray(fc.tuple(arbKey(mode), tie("value")), {
        maxLength: 5,
        selector: ([k]) => (typeof k === "string" ? "s" + k : "i" + String(k)),
      }).map((entries) => new Map(entries))
    ),
  }));
  return value;
}

/** A byte edit of an encoding: position, byte, and whether it overwrites, inserts or deletes. */
export type ByteEdit = [pos: number, byte: number, op: "set" | "insert" | "delete"];

/** One to three byte edits, for mutating canonical encodings in property tests. */
export function arbEdits(): fc.Arbitrary<ByteEdit[]> {
  return fc.array(
    fc.tuple(
      fc.nat(),
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom("set", "insert", "delete"),
    ),
    { minLength: 1, maxLength: 3 },
  ) as fc.Arbitrary<ByteEdit[]>;
}

/** `bytes` with `edits` applied in order (positions taken modulo the current length). */
export function applyEdits(bytes: Uint8Array, edits: ByteEdit[]): Uint8Array {
  const b = [...bytes];
  for (const [pos, byte, op] of edits) {
    const i = pos % (b.length + 1);
    if (op === "set" && i < b.length) b[i] = byte;
    else if (op === "insert") b.splice(i, 0, byte);
    else if (op === "delete" && b.length > 0) b.splice(i % b.length, 1);
  }
  return new Uint8Array(b);
}

/** The stable code `f` throws (VerifyInputError, CborError included), or "accepted". */
export function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof VerifyInputError) return e.code;
    throw e;
  }
  return "accepted";
}
