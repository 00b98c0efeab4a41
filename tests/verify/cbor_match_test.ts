// verify/cbor_match.ts (JCR-1 §6 step 2 without building CORE): `encodesTo(v, b)` must be sound
// (true ⇒ encodeCbor(v) is exactly b) on arbitrary, mutated and reordered pairs, and complete on
// what matters: true for every value the strict decoder returns, with the bytes it came from —
// so step 2 never needs the encoder for a decoded core, and still gets the encoder's answer.
import assert from "node:assert/strict";
import fc from "fast-check";
import { encodesTo } from "../../verify/cbor_match.ts";
import {
  bytesEqual,
  CBOR_MAX_DEPTH,
  CBOR_MAX_ITEMS,
  type CborMap,
  type CborValue,
  decodeCbor,
  encodeCbor,
  fromHex,
} from "../../verify/mod.ts";
import { applyEdits, arbCbor, arbEdits } from "./_arb.ts";

/** encodeCbor's answer, or undefined where it refuses the value. */
function encoded(v: unknown): Uint8Array | undefined {
  try {
    return encodeCbor(v as CborValue);
  } catch {
    return undefined;
  }
}

function assertSound(v: unknown, b: Uint8Array): void {
  if (encodesTo(v as CborValue, b)) {
    const e = encoded(v);
    assert.ok(e && bytesEqual(e, b), "encodesTo said true but the encoder disagrees");
  }
}

Deno.test("cbor_match: complete on canonical pairs: encodesTo(v, encodeCbor(v)) and on decoded values (property)", () => {
  fc.assert(
    fc.property(arbCbor(), (v) => {
      const b = encodeCbor(v);
      assert.ok(encodesTo(decodeCbor(b), b), "decoded value, its own bytes");
      // maps as generated may be in any insertion order: then false is allowed, true must be right
      assertSound(v, b);
    }),
    { numRuns: 1500 },
  );
});

Deno.test("cbor_match: sound on mutated bytes, and complete wherever the strict decoder accepts them (property)", () => {
  fc.assert(
    fc.property(
      arbCbor(),
      arbEdits(),
      (v, edits) => {
        const mutated = applyEdits(encodeCbor(v), edits);
        assertSound(v, mutated); // the original value against the changed bytes
        let out: CborValue;
        try {
          out = decodeCbor(mutated);
        } catch {
          return;
        }
        // decode-strict ⇒ encode(decode(b)) == b, and the fast walk shows it
        assert.deepEqual(encodeCbor(out), mutated);
        assert.ok(encodesTo(out, mutated));
      },
    ),
    { numRuns: 3000 },
  );
});

/** The bytes of `v` with every map in insertion order (what a non-sorting encoder would write). */
function inInsertionOrder(v: CborValue): Uint8Array {
  const head = (major: number, n: number) => {
    const h = encodeCbor(n);
    h[0] |= major << 5;
    return [...h];
  };
  const walk = (x: CborValue): number[] => {
    if (Array.isArray(x)) return [...head(4, x.length), ...x.flatMap(walk)];
    if (x instanceof Map) {
      return [...head(5, x.size), ...[...x].flatMap(([k, y]) => [...walk(k), ...walk(y)])];
    }
    return [...encodeCbor(x)];
  };
  return new Uint8Array(walk(v));
}

Deno.test("cbor_match: sound on maps written in their (unsorted) insertion order (property)", () => {
  let unsorted = 0;
  fc.assert(
    fc.property(arbCbor(), (v) => {
      const b = inInsertionOrder(v);
      if (!bytesEqual(b, encodeCbor(v))) unsorted++;
      assertSound(v, b); // true only where the insertion order is the canonical order
    }),
    { numRuns: 1500 },
  );
  assert.ok(unsorted > 100, `only ${unsorted} non-canonical orders generated`);
  const reversed = new Map<string, CborValue>([["b", 2], ["a", 1]]);
  assert.equal(encodesTo(reversed, fromHex("a2616202616101")), false);
});

Deno.test("cbor_match: sound against the bytes of a different value (property)", () => {
  fc.assert(
    fc.property(arbCbor(), arbCbor(), (v, w) => {
      assertSound(v, encodeCbor(w));
      assertSound(w, encodeCbor(v));
    }),
    { numRuns: 1000 },
  );
});

Deno.test("cbor_match: keys out of canonical order, duplicates after encoding, refusals are never 'equal'", () => {
  const sorted = new Map<string, CborValue>([["a", 1], ["b", 2]]);
  const b = encodeCbor(sorted);
  assert.ok(encodesTo(sorted, b));
  // the encoder sorts: same bytes, but the walk cannot show it in this insertion order
  const reversed = new Map<string, CborValue>([["b", 2], ["a", 1]]);
  assert.deepEqual(encodeCbor(reversed), b);
  assert.equal(encodesTo(reversed, b), false);
  // shorter key first: "b" (0x61 62) < "aa" (0x62 61 61)
  const m2 = new Map<string, CborValue>([["b", 1], ["aa", 2]]);
  assert.ok(encodesTo(m2, encodeCbor(m2)));
  // integer keys sort by encoding: 10 (0x0a) < 100 (0x18 64) < -1 (0x20)
  const m3: CborMap = new Map<number, CborValue>([[10, 0], [100, 0], [-1, 0]]);
  assert.ok(encodesTo(m3, encodeCbor(m3)));
  assert.equal(encodesTo(new Map([[100, 0], [10, 0], [-1, 0]]), encodeCbor(m3)), false);
  // values the encoder refuses are never reported equal to anything
  for (
    const bad of [1.5, 2 ** 53, -(2 ** 53), 1n << 64n, -(1n << 64n) - 1n, "\ud800", true, null]
  ) {
    for (const hex of ["00", "f93e00", "1b0020000000000000", "63eda080", "f5", "f6"]) {
      assert.equal(
        encodesTo(bad as unknown as CborValue, fromHex(hex)),
        false,
        `${String(bad)} vs ${hex}`,
      );
    }
  }
  assert.equal(encodesTo({ a: 1 } as unknown as CborValue, encodeCbor({ a: 1 })), false);
  assert.equal(
    encodesTo(new Map([[new Uint8Array(1), 1]]) as unknown as CborValue, fromHex("a14100" + "01")),
    false,
  );
});

Deno.test("cbor_match: exact heads at every size boundary, text, bytes, trailing bytes", () => {
  const ints = [0, 23, 24, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1];
  const vals: CborValue[] = [
    ...ints,
    ...ints.map((n) => -1 - n).filter(Number.isSafeInteger),
    -(2 ** 53) + 1,
    2n ** 53n,
    (1n << 64n) - 1n,
    -(1n << 64n),
    -(2n ** 53n) - 1n,
    "",
    "a".repeat(23),
    "a".repeat(24),
    "é",
    "日本語",
    "🙂",
    new Uint8Array(0),
    new Uint8Array(300).fill(7),
    [],
    [1, [2, [3]]],
    new Map(),
  ];
  for (const v of vals) {
    const b = encodeCbor(v);
    assert.ok(encodesTo(v, b), `${String(v)}`);
    assert.ok(encodesTo(decodeCbor(b), b));
    assert.equal(encodesTo(v, new Uint8Array([...b, 0])), false, "trailing byte");
    assert.equal(encodesTo(v, b.subarray(0, b.length - 1)), false, "truncated");
  }
  // "é" is one UTF-16 unit but two UTF-8 bytes; a Latin-1 byte under a 1-byte head is not it
  assert.equal(encodesTo("é", fromHex("62c3a9")), true);
  assert.equal(encodesTo("é", fromHex("61e9")), false);
  assert.equal(encodesTo("é", fromHex("62c3a8")), false);
});

Deno.test("cbor_match: the encoder's depth and item limits hold here too", () => {
  let deep: CborValue = 0;
  for (let i = 0; i < CBOR_MAX_DEPTH; i++) deep = [deep];
  const ok = encodeCbor(deep);
  assert.ok(encodesTo(deep, ok));
  const tooDeep = [deep];
  const bytes = new Uint8Array([0x81, ...ok]); // what an unlimited encoder would write
  assert.throws(() => encodeCbor(tooDeep));
  assert.equal(encodesTo(tooDeep, bytes), false);
  const many = new Array(CBOR_MAX_ITEMS - 1).fill(0);
  assert.ok(encodesTo(many, encodeCbor(many)));
  const tooMany = new Array(CBOR_MAX_ITEMS).fill(0);
  assert.throws(() => encodeCbor(tooMany));
  assert.equal(
    encodesTo(tooMany, new Uint8Array([0x99, 0x27, 0x10, ...new Uint8Array(10_000)])),
    false,
  );
  // a map's keys count as items, as the encoder counts them
  const bigMap = new Map<number, CborValue>();
  for (let i = 0; i < Math.floor((CBOR_MAX_ITEMS - 1) / 2); i++) bigMap.set(i, 0); // 9,999 items
  assert.ok(encodesTo(bigMap, encodeCbor(bigMap)));
  bigMap.set(1e6, 0);
  assert.throws(() => encodeCbor(bigMap));
  assert.equal(encodesTo(bigMap, new Uint8Array(1)), false);
});

Deno.test("cbor decoder: a non-adjacent duplicate is duplicate-key for every key class (the map answers)", () => {
  const code = (hex: string) => {
    try {
      decodeCbor(fromHex(hex));
      return "accepted";
    } catch (e) {
      return (e as { code: string }).code;
    }
  };
  const big = "1b1000000000000000", big2 = "1b2000000000000000"; // 2^60, 2^61
  const nbig = "3b1000000000000000", nbig2 = "3b2000000000000000"; // -1-2^60, -1-2^61
  assert.equal(code(`a3${big}01${big2}02${big}03`), "duplicate-key");
  assert.equal(code(`a3${nbig}01${nbig2}02${nbig}03`), "duplicate-key");
  assert.equal(code(`a3${big}01${big2}02${"1b1000000000000001"}03`), "unsorted-keys");
  assert.equal(code("a301006161000100"), "duplicate-key"); // 1, "a", 1
  assert.equal(code("a32001616102200a"), "duplicate-key"); // -1, "a", -1
  assert.equal(code("a32001616102210a"), "unsorted-keys"); // -1, "a", -2
});
