// Strict deterministic CBOR (RFC 8949 §4.2.1 subset): every refusal class with its exact code,
// exact big integers, and properties: canonical round trip, canonical map order, and "the decoder
// accepts exactly the canonical bytes" under random mutation.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  CborError,
  compareBytes,
  decodeCbor,
  encodeCbor,
  fromHex,
  fromJson,
  toHex,
  toJson,
} from "../../verify/mod.ts";
import type { CborMap, CborValue } from "../../verify/mod.ts";
import { applyEdits, arbCbor, arbEdits } from "./_arb.ts";

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof CborError) return e.code;
    throw e;
  }
  return "accepted";
}

// [hex, expected code, why]
const REFUSALS: [string, string, string][] = [
  ["a2616201616102", "unsorted-keys", '{"b":1,"a":2}'],
  ["a2616101010102", "unsorted-keys", 'text "a" (0x61) before int 1 (0x01)'],
  [
    "a26261610161620102",
    "unsorted-keys",
    '"aa" before "b": JCR-1 §3.2 wording, not RFC 8949 §4.2.1',
  ],
  ["a22001181802", "unsorted-keys", "-1 (0x20) before 24 (0x1818): length-first (RFC 7049) order"],
  ["a2616101616102", "duplicate-key", "adjacent duplicate"],
  ["a3616101616202616103", "duplicate-key", "non-adjacent duplicate"],
  ["a201010102", "duplicate-key", "duplicate integer key"],
  ["1817", "non-shortest-head", "23 in one extra byte"],
  ["190001", "non-shortest-head", "1 in two extra bytes"],
  ["1a0000ffff", "non-shortest-head", "65535 in four extra bytes"],
  ["1b00000000ffffffff", "non-shortest-head", "2^32-1 in eight extra bytes"],
  ["3817", "non-shortest-head", "nint -24 non-shortest"],
  ["580100", "non-shortest-head", "bstr length 1 in one extra byte"],
  ["780161", "non-shortest-head", "tstr length head"],
  ["980100", "non-shortest-head", "array count head"],
  ["b801000000", "non-shortest-head", "map count head"],
  ["f93c00", "float", "half float 1.0"],
  ["fa3f800000", "float", "single float"],
  ["fb3ff0000000000000", "float", "double float"],
  ["f4", "simple-value", "false"],
  ["f5", "simple-value", "true"],
  ["f6", "simple-value", "null"],
  ["f7", "simple-value", "undefined"],
  ["e0", "simple-value", "simple 0"],
  ["f820", "simple-value", "simple(32), 1-byte form"],
  ["5fff", "indefinite-length", "bstr"],
  ["7fff", "indefinite-length", "tstr"],
  ["9fff", "indefinite-length", "array"],
  ["bfff", "indefinite-length", "map"],
  ["c074323031332d30332d32315432303a30343a30305a", "tag", "tag 0 date"],
  ["d28440a040f6", "tag", "tag 18 (only the COSE parser strips it)"],
  ["c24101", "tag", "bignum"],
  ["81c000", "tag", "nested tag"],
  ["61ff", "invalid-utf8", "0xff"],
  ["62c328", "invalid-utf8", "bad continuation"],
  ["63eda080", "invalid-utf8", "UTF-8 of a surrogate"],
  ["62c080", "invalid-utf8", "overlong NUL"],
  ["a161ff01", "invalid-utf8", "invalid key"],
  ["0000", "trailing-bytes", "two items"],
  ["80ff", "trailing-bytes", "array then break"],
  ["", "truncated", "empty input"],
  ["18", "truncated", "missing 1-byte argument"],
  ["1b000000", "truncated", "missing 8-byte argument"],
  ["41", "truncated", "bstr body missing"],
  ["6261", "truncated", "tstr body short"],
  ["81", "truncated", "array element missing"],
  ["a16161", "truncated", "map value missing"],
  ["5a00010000", "truncated", "declared length beyond the input"],
  ["5bffffffffffffffff", "truncated", "declared 2^64-1 length"],
  ["991000", "truncated", "declared count 4096 beyond the input"],
  ["1c", "reserved-ai", "ai 28"],
  ["3d", "reserved-ai", "ai 29"],
  ["5e", "reserved-ai", "ai 30"],
  ["fc", "reserved-ai", "major 7 ai 28"],
  ["1f", "reserved-ai", "uint with ai 31"],
  ["3f", "reserved-ai", "nint with ai 31"],
  ["df", "reserved-ai", "tag with ai 31"],
  ["ff", "lone-break", "top-level break"],
  ["81ff", "lone-break", "break inside a definite array"],
  ["a1ff00", "lone-break", "break as a map key"],
  ["a14100", "unsupported-key", "bstr key"],
  ["a18000", "unsupported-key", "array key"],
  ["a1a000", "unsupported-key", "map key"],
  ["9b0000000100000000", "too-many-items", "declared count 2^32"],
  ["992711", "too-many-items", "declared count 10,001"],
];

Deno.test("cbor: every refusal class has its exact stable code", () => {
  for (const [hex, want, why] of REFUSALS) {
    assert.equal(code(() => decodeCbor(fromHex(hex))), want, `${hex} (${why})`);
  }
});

Deno.test("cbor: nesting limit 16 and item limit 10,000", () => {
  const nest = (n: number) => fromHex("81".repeat(n - 1) + "80"); // n nested arrays
  assert.deepEqual(code(() => decodeCbor(nest(16))), "accepted");
  assert.equal(code(() => decodeCbor(nest(17))), "too-deep");
  const mapNest = fromHex("a161".repeat(0) + "a16161".repeat(16) + "00"); // 16 nested maps
  assert.equal(code(() => decodeCbor(mapNest)), "accepted");
  assert.equal(code(() => decodeCbor(fromHex("a16161".repeat(17) + "00"))), "too-deep");
  const arr = (n: number) => encodeCbor(new Array(n).fill(0));
  assert.equal(code(() => decodeCbor(arr(9999))), "accepted"); // 10,000 items with the array
  assert.equal(code(() => decodeCbor(arr(10000))), "too-many-items");
  // nested small arrays exhaust the total, not just one container's count
  const many = encodeCbor(new Array(100).fill(new Array(100).fill(0)), { maxItems: 20_000 });
  assert.equal(code(() => decodeCbor(many)), "too-many-items");
  assert.equal(code(() => decodeCbor(many, { maxItems: 20_000 })), "accepted");
  // the encoder refuses what the decoder would refuse
  assert.equal(code(() => encodeCbor(new Array(10000).fill(0))), "too-many-items");
  let deep: CborValue = [];
  for (let i = 0; i < 16; i++) deep = [deep];
  assert.equal(code(() => encodeCbor(deep)), "too-deep");
});

Deno.test("cbor: integers beyond 2^53-1 stay exact bigints; safe ones are numbers", () => {
  const cases: [string, number | bigint][] = [
    ["1bffffffffffffffff", 2n ** 64n - 1n],
    ["3bffffffffffffffff", -(2n ** 64n)],
    ["1b001fffffffffffff", 2 ** 53 - 1],
    ["1b0020000000000000", 2n ** 53n],
    ["3b001ffffffffffffe", -(2 ** 53 - 1)],
    ["3b001fffffffffffff", -(2n ** 53n)],
    ["1b0000000100000000", 2 ** 32],
    ["3a7fffffff", -(2 ** 31)],
    ["20", -1],
  ];
  for (const [hex, v] of cases) {
    assert.strictEqual(decodeCbor(fromHex(hex)), v, hex);
    assert.equal(toHex(encodeCbor(v)), hex);
  }
  assert.equal(toHex(encodeCbor(2n ** 32n)), "1b0000000100000000"); // a small bigint: shortest head
  assert.equal(toHex(encodeCbor(5n)), "05");
  assert.equal(code(() => encodeCbor(2n ** 64n)), "u64-overflow");
  assert.equal(code(() => encodeCbor(-(2n ** 64n) - 1n)), "u64-overflow");
  assert.equal(code(() => encodeCbor(2 ** 53)), "unsafe-integer");
  assert.equal(code(() => encodeCbor(1.5)), "float");
  assert.equal(code(() => encodeCbor(NaN)), "float");
  assert.equal(code(() => encodeCbor(-0.5)), "float");
  assert.equal(code(() => encodeCbor(true)), "simple-value");
  assert.equal(code(() => encodeCbor(null)), "simple-value");
  assert.equal(
    code(() => encodeCbor(new Map([[1, undefined]]) as unknown as CborMap)),
    "simple-value",
  );
  assert.equal(code(() => encodeCbor("\ud800")), "invalid-utf8");
  assert.equal(
    code(() => encodeCbor(new Map<number | bigint, number>([[1, 1], [1n, 2]]))),
    "duplicate-key",
  );
  assert.equal(
    code(() => encodeCbor(new Map([[new Uint8Array(), 1]]) as unknown as CborMap)),
    "unsupported-key",
  );
  assert.equal(code(() => encodeCbor(new Date() as unknown as CborValue)), "unsupported-type");
  assert.equal(code(() => encodeCbor(Symbol() as unknown as CborValue)), "unsupported-type");
});

Deno.test("cbor: canonical encodings of RFC 8949 Appendix A examples in the subset", () => {
  const ex: [unknown, string][] = [
    [0, "00"],
    [1, "01"],
    [10, "0a"],
    [23, "17"],
    [24, "1818"],
    [25, "1819"],
    [100, "1864"],
    [1000, "1903e8"],
    [1000000, "1a000f4240"],
    [1000000000000, "1b000000e8d4a51000"],
    [18446744073709551615n, "1bffffffffffffffff"],
    [-18446744073709551616n, "3bffffffffffffffff"],
    [-1, "20"],
    [-10, "29"],
    [-100, "3863"],
    [-1000, "3903e7"],
    [new Uint8Array(), "40"],
    [fromHex("01020304"), "4401020304"],
    ["", "60"],
    ["a", "6161"],
    ["IETF", "6449455446"],
    ['"\\', "62225c"],
    ["\u00fc", "62c3bc"],
    ["\u6c34", "63e6b0b4"],
    ["\ud800\udd51", "64f0908591"],
    [[], "80"],
    [[1, 2, 3], "83010203"],
    [[1, [2, 3], [4, 5]], "8301820203820405"],
    [new Map(), "a0"],
    [new Map([[1, 2], [3, 4]]), "a201020304"],
    [{ a: 1, b: [2, 3] }, "a26161016162820203"],
    [["a", { b: "c" }], "826161a161626163"],
  ];
  for (const [v, hex] of ex) {
    assert.equal(toHex(encodeCbor(v as CborValue)), hex, hex);
    assert.deepEqual(encodeCbor(decodeCbor(fromHex(hex))), fromHex(hex));
  }
  // plain objects: undefined properties are omitted (absent optional fields, JCR-1 §3.2)
  assert.equal(toHex(encodeCbor({ b: 1, a: undefined })), "a1616201");
  // "__proto__" is an ordinary key both ways
  const m = decodeCbor(encodeCbor(new Map([["__proto__", 1]]))) as CborMap;
  assert.equal(m.get("__proto__"), 1);
  const j = toJson(m) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(j), Object.prototype);
  assert.ok(Object.hasOwn(j, "__proto__"));
});

Deno.test("cbor: JSON projection and its inverse", () => {
  const v = new Map<string | number | bigint, CborValue>([
    ["big", 2n ** 60n],
    ["neg", -(2n ** 60n)],
    ["n", 42],
    ["b", fromHex("00ff")],
    ["a", [1, "x"]],
    [7, "seven"],
  ]);
  assert.deepEqual(toJson(v), {
    big: "1152921504606846976",
    neg: "-1152921504606846976",
    n: 42,
    b: "00ff",
    a: [1, "x"],
    7: "seven",
  });
  assert.equal(
    code(() => toJson(new Map<string | number, CborValue>([[1, 0], ["1", 1]]))),
    "duplicate-key",
  );
  assert.deepEqual(
    fromJson({ a: 1, b: [2, "x"], c: 5n }),
    new Map<string, CborValue>([["a", 1], ["b", [2, "x"]], ["c", 5n]]),
  );
  assert.equal(code(() => fromJson({ a: 1.5 })), "float");
  assert.equal(code(() => fromJson({ a: null })), "simple-value");
  assert.equal(code(() => fromJson([true])), "simple-value");
  assert.equal(code(() => fromJson(2 ** 60)), "unsafe-integer");
});

Deno.test("cbor: encode(decode(b)) == b and decode(encode(v)) == v (property)", () => {
  fc.assert(
    fc.property(arbCbor(), (v) => {
      const b = encodeCbor(v);
      const back = decodeCbor(b);
      assert.deepEqual(back, v);
      assert.deepEqual(encodeCbor(back), b);
    }),
    { numRuns: 1500 },
  );
});

Deno.test("cbor: maps encode in bytewise order of encoded keys, whatever the insertion order (property)", () => {
  fc.assert(
    fc.property(
      arbCbor(["text", "uint", "nint", "mixed"], 2).filter((v) => v instanceof Map && v.size > 1),
      fc.integer(),
      (v, seed) => {
        const m = v as CborMap;
        const entries = [...m.entries()];
        const shuffled = entries.map((e, i) => ({ e, r: Math.imul(i + 1, seed | 1) >>> 0 }))
          .sort((a, b) => a.r - b.r).map((x) => x.e);
        const b1 = encodeCbor(m);
        assert.deepEqual(encodeCbor(new Map(shuffled)), b1, "insertion order does not matter");
        const keys = [...(decodeCbor(b1) as CborMap).keys()].map((k) => encodeCbor(k));
        for (let i = 1; i < keys.length; i++) {
          assert.ok(compareBytes(keys[i - 1], keys[i]) < 0, "strictly increasing");
        }
        // swapping the first two entries' bytes makes it non-canonical → unsorted-keys
        const kv = keys.map((
          k,
          i,
        ) => [
          k,
          encodeCbor((decodeCbor(b1) as CborMap).get([...(decodeCbor(b1) as CborMap).keys()][i])!),
        ]);
        [kv[0], kv[1]] = [kv[1], kv[0]];
        const head = b1.subarray(
          0,
          b1.length - kv.reduce((n, [k, x]) => n + k.length + x.length, 0),
        );
        const swapped = new Uint8Array([...head, ...kv.flatMap(([k, x]) => [...k, ...x])]);
        assert.equal(code(() => decodeCbor(swapped)), "unsorted-keys");
      },
    ),
    { numRuns: 400 },
  );
});

Deno.test("cbor: a mutated canonical item is either refused with a CborError or is itself canonical (property)", () => {
  fc.assert(
    fc.property(
      arbCbor(),
      arbEdits(),
      (v, edits) => {
        const mutated = applyEdits(encodeCbor(v), edits);
        let out: CborValue;
        try {
          out = decodeCbor(mutated);
        } catch (e) {
          assert.ok(e instanceof CborError, `only CborError may escape, got ${e}`);
          return;
        }
        assert.deepEqual(encodeCbor(out), mutated, "accepted bytes are canonical");
      },
    ),
    { numRuns: 4000 },
  );
});
