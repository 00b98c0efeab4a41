// verify/blake3.ts: the single-chunk fast path against the official BLAKE3 vectors, against
// @noble/hashes (an independent implementation) on random inputs of every length either side of
// the one-chunk boundary, and the prefixed form against the concatenation it stands for.
import assert from "node:assert/strict";
import fc from "fast-check";
import { blake3 as nobleBlake3 } from "@noble/hashes/blake3.js";
import { BLAKE3_CHUNK_LEN, blake3Hash, blake3Prefixed } from "../../verify/blake3.ts";
import { blake3, entryLeafHash, toHex } from "../../verify/mod.ts";

const vectors = JSON.parse(
  await Deno.readTextFile(
    new URL("../../conformance/upstream/blake3/blake3.json", import.meta.url),
  ),
);
const input = (n: number) => new Uint8Array(n).map((_, i) => i % 251); // the vectors' input rule

Deno.test("blake3: official vectors through both paths (≤ 1 chunk fast, > 1 chunk general)", () => {
  const lens = vectors.cases.map((c: { input_len: number }) => c.input_len);
  assert.ok(lens.includes(0) && lens.includes(1023) && lens.includes(1024) && lens.includes(1025));
  for (const c of vectors.cases) {
    const want = c.hash.slice(0, 64);
    assert.equal(toHex(blake3Hash(input(c.input_len))), want, `input_len ${c.input_len}`);
    assert.equal(toHex(blake3(input(c.input_len))), want, `verify/mod blake3 ${c.input_len}`);
    if (c.input_len >= 1) {
      // the vector's input is its first byte followed by the rest
      const x = input(c.input_len);
      assert.equal(toHex(blake3Prefixed(x[0], x.subarray(1))), want, `prefixed ${c.input_len}`);
    }
  }
});

Deno.test("blake3: every length 0..2100 equals @noble/hashes (each block boundary, both paths)", () => {
  const buf = crypto.getRandomValues(new Uint8Array(2101));
  for (let n = 0; n <= 2100; n++) {
    const x = buf.subarray(0, n);
    assert.equal(toHex(blake3Hash(x)), toHex(nobleBlake3(x)), `length ${n}`);
  }
});

Deno.test("blake3: random inputs and prefixes equal @noble/hashes over the concatenation (property)", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: BLAKE3_CHUNK_LEN + 80 }),
      fc.integer({ min: 0, max: 255 }),
      fc.nat(40),
      (b, prefix, offset) => {
        // a view into a larger buffer at an odd offset: the scratch copy must honour byteOffset
        const host = new Uint8Array(offset + b.length + 7).fill(0xa5);
        host.set(b, offset);
        const view = host.subarray(offset, offset + b.length);
        assert.deepEqual(blake3Hash(view), nobleBlake3(b));
        assert.deepEqual(blake3Prefixed(prefix, view), nobleBlake3(Uint8Array.of(prefix, ...b)));
        assert.deepEqual(entryLeafHash(view), nobleBlake3(Uint8Array.of(0, ...b)));
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("blake3: a long input after a short one leaves no stale scratch bytes, and vice versa", () => {
  const long = new Uint8Array(1000).fill(0xff);
  const short = new Uint8Array(3).fill(1);
  const want = toHex(nobleBlake3(short));
  blake3Hash(long);
  assert.equal(toHex(blake3Hash(short)), want);
  assert.equal(toHex(blake3Hash(new Uint8Array())), toHex(nobleBlake3(new Uint8Array())));
  blake3Prefixed(7, long);
  assert.equal(toHex(blake3Hash(short)), want);
});

Deno.test("blake3: outputs are fresh arrays; bad input is refused with a clear error", () => {
  const a = blake3Hash(new Uint8Array([1]));
  const b = blake3Hash(new Uint8Array([1]));
  assert.notEqual(a, b);
  a[0] ^= 1;
  assert.notDeepEqual(a, b);
  assert.throws(
    () => blake3Hash([1, 2] as unknown as Uint8Array),
    /Cannot hash: input is not a Uint8Array/,
  );
  assert.throws(
    () => blake3Prefixed(256, new Uint8Array()),
    /Cannot hash with prefix 256: not a byte/,
  );
  assert.throws(() => blake3Prefixed(-1, new Uint8Array()), RangeError);
});
