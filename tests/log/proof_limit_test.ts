// log/proof.ts refuses a proof longer than MAX_PROOF_HASHES (64) before any hashing (issue 18): a
// hostile server's 100,000-hash proof costs no hash at all, and the refusal is a plain `false`.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  blake3Hasher,
  type Hasher,
  MAX_PROOF_HASHES,
  referenceRoot,
  verifyConsistency,
  verifyInclusion,
} from "../../log/mod.ts";

function counting(): { h: Hasher; calls: () => number } {
  let n = 0;
  return {
    h: {
      leaf: (e) => (n++, blake3Hasher.leaf(e)),
      node: (l, r) => (n++, blake3Hasher.node(l, r)),
      empty: () => blake3Hasher.empty(),
    },
    calls: () => n,
  };
}

Deno.test("proof limit: over 64 hashes is refused before any hashing, whatever the hashes", () => {
  assert.equal(MAX_PROOF_HASHES, 64);
  const root = blake3Hasher.leaf(new Uint8Array([1]));
  fc.assert(
    fc.property(
      fc.integer({ min: MAX_PROOF_HASHES + 1, max: 100_000 }),
      fc.nat(),
      (len, seed) => {
        const proof = Array.from(
          { length: len },
          (_, i) => blake3Hasher.leaf(Uint8Array.of(seed, i)),
        );
        const c = counting();
        assert.equal(verifyInclusion(c.h, 0, 2 ** 52, root, proof, root), false);
        assert.equal(verifyConsistency(c.h, 3, 2 ** 52, proof, root, root), false);
        assert.equal(c.calls(), 0);
      },
    ),
    { numRuns: 20 },
  );
  // 100,000 hashes: refused in well under a millisecond per call
  const huge = Array.from({ length: 100_000 }, () => root);
  const t0 = performance.now();
  for (let i = 0; i < 100; i++) verifyInclusion(blake3Hasher, 0, 5, root, huge, root);
  assert.ok(performance.now() - t0 < 500);
});

Deno.test("proof limit: a valid proof verifies; the same proof padded past 64 hashes is refused", () => {
  // a real inclusion proof in a 5-leaf tree verifies; padded past 64 it is refused
  const leaves = Array.from({ length: 5 }, (_, i) => blake3Hasher.leaf(Uint8Array.of(i)));
  const root = referenceRoot(blake3Hasher, leaves);
  // index 4 in a 5-leaf tree: the path is the root of leaves 0..3
  const path = [referenceRoot(blake3Hasher, leaves.slice(0, 4))];
  assert.equal(verifyInclusion(blake3Hasher, 4, 5, leaves[4], path, root), true);
  const padded = [...path, ...Array.from({ length: MAX_PROOF_HASHES }, () => leaves[0])];
  assert.equal(verifyInclusion(blake3Hasher, 4, 5, leaves[4], padded, root), false);
});
