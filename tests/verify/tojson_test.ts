// verify/cbor.ts toJson: the assignment fast path must build exactly what the defineProperty-only
// projection built (kept here as the reference), for every key — "__proto__", names inherited from
// Object.prototype, integer keys that collide with text keys — and refuse the same duplicates.
import assert from "node:assert/strict";
import fc from "fast-check";
import { CborError, type CborMap, type CborValue, toHex, toJson } from "../../verify/mod.ts";
import { arbCbor } from "./_arb.ts";

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The projection as it was before the fast path (defineProperty for every key). */
function reference(v: CborValue): unknown {
  if (typeof v === "number" || typeof v === "string") return v;
  if (typeof v === "bigint") return v >= -MAX_SAFE && v <= MAX_SAFE ? Number(v) : v.toString();
  if (v instanceof Uint8Array) return toHex(v);
  if (Array.isArray(v)) return v.map(reference);
  const o: Record<string, unknown> = {};
  for (const [k, x] of v) {
    const name = String(k);
    if (Object.hasOwn(o, name)) throw new CborError("duplicate-key", `two keys named "${name}"`);
    Object.defineProperty(o, name, {
      value: reference(x),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return o;
}

function outcome(f: () => unknown): unknown {
  try {
    return { ok: f() };
  } catch (e) {
    assert.ok(e instanceof CborError);
    return { code: e.code };
  }
}

const TRICKY = [
  "__proto__",
  "toString",
  "constructor",
  "hasOwnProperty",
  "valueOf",
  "__defineGetter__",
  "1",
  "-1",
  "",
];

/** Maps whose keys mix tricky names, integers and their decimal spellings (collisions included). */
const arbTricky: fc.Arbitrary<CborValue> = fc.letrec<{ v: CborValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", maxDepth: 3 },
    fc.integer(),
    fc.string({ maxLength: 4 }),
    fc.array(tie("v"), { maxLength: 3 }),
    fc.array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom(...TRICKY),
          fc.constantFrom(1, -1, 2n ** 60n, "1152921504606846976"),
        ),
        tie("v"),
      ),
      { maxLength: 5 },
    ).map((e) => new Map(e) as CborMap),
  ),
})).v;

Deno.test("toJson: same projection and same refusals as the defineProperty reference (property)", () => {
  for (const arb of [arbCbor(), arbTricky]) {
    fc.assert(
      fc.property(arb, (v) => {
        const got = outcome(() => toJson(v));
        assert.deepStrictEqual(got, outcome(() => reference(v)));
        if ("ok" in (got as object)) {
          assert.equal(JSON.stringify((got as { ok: unknown }).ok), JSON.stringify(reference(v)));
        }
      }),
      { numRuns: 1500 },
    );
  }
});

Deno.test("toJson: inherited names become own data properties, never prototype switches", () => {
  const j = toJson(
    new Map<string, CborValue>([["__proto__", new Map([["polluted", 1]])], ["toString", 2]]),
  ) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(j), Object.prototype);
  assert.ok(Object.hasOwn(j, "__proto__") && Object.hasOwn(j, "toString"));
  assert.equal(j.toString, 2);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(JSON.stringify(j), '{"__proto__":{"polluted":1},"toString":2}');
});
