// BatchTree (log/batch_tree.ts) against the naive RFC 6962 reference: for every small (base,
// batch) and random large-ish ones, its root equals referenceRoot and every new leaf's proof equals
// tree.ts's inclusionProof (itself checked against the upstream vectors) and verifies.
import assert from "node:assert/strict";
import fc from "fast-check";
import { BatchTree } from "./batch_tree.ts";
import {
  blake3Hasher,
  type Hasher,
  inclusionProof,
  type NodeId,
  referenceRoot,
  rootNodes,
  sha256Hasher,
  verifyInclusion,
} from "./mod.ts";
import { toHex } from "./crypto.ts";

const leavesOf = (h: Hasher, n: number) =>
  Array.from({ length: n }, (_, i) => h.leaf(new TextEncoder().encode(`leaf ${i}`)));

/** Complete-subtree hashes of `leaves`, level by level (RFC 6962 §2.1 MTH of a perfect range). */
function perfectLevels(h: Hasher, leaves: Uint8Array[]): Uint8Array[][] {
  const out = [leaves];
  for (let row = leaves; row.length > 1;) {
    const next = [];
    for (let k = 0; k + 1 < row.length; k += 2) next.push(h.node(row[k], row[k + 1]));
    out.push(row = next);
  }
  return out;
}

const readerOf = (h: Hasher, leaves: Uint8Array[]) => {
  const levels = perfectLevels(h, leaves);
  return (ids: NodeId[]) => Promise.resolve(ids.map((id) => levels[id.level][id.index]));
};

async function check(h: Hasher, leaves: Uint8Array[], base: number): Promise<void> {
  const size = leaves.length;
  const read = readerOf(h, leaves);
  const ids = rootNodes(base);
  const hashes = await read(ids);
  const old: Uint8Array[] = [];
  ids.forEach((id, k) => old[id.level] = hashes[k]);
  const t = new BatchTree(h, base, old, leaves.slice(base));
  const root = referenceRoot(h, leaves);
  assert.deepEqual(t.root(), root, `root of ${base}+${size - base}`);
  for (let i = base; i < size; i++) {
    const want = await inclusionProof(h, i, size, read);
    assert.deepEqual(t.proof(i), want, `proof of ${i} in ${base}+${size - base}`);
    assert.deepEqual(t.hexProof(i), want.map(toHex));
    assert.ok(verifyInclusion(h, i, size, leaves[i], t.proof(i), root));
  }
  assert.throws(() => t.proof(base - 1), RangeError);
  assert.throws(() => t.proof(size), RangeError);
}

Deno.test("BatchTree: every base and batch up to 40 leaves, BLAKE3 and SHA-256", async () => {
  for (const h of [blake3Hasher, sha256Hasher]) {
    const all = leavesOf(h, 40);
    for (let size = 1; size <= 40; size++) {
      for (let base = 0; base < size; base++) await check(h, all.slice(0, size), base);
    }
  }
});

Deno.test("BatchTree: random bases and batches up to 700 leaves", async () => {
  const all = leavesOf(blake3Hasher, 700);
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 700 }), fc.nat(), async (size, b) => {
      await check(blake3Hasher, all.slice(0, size), b % size);
    }),
    { numRuns: 40 },
  );
});

Deno.test("BatchTree: complete nodes inside the batch are the perfect subtrees' hashes", async () => {
  const h = blake3Hasher;
  const all = leavesOf(h, 300);
  const base = 37;
  const ids = rootNodes(base);
  const old: Uint8Array[] = [];
  (await readerOf(h, all)(ids)).forEach((x, k) => old[ids[k].level] = x);
  const t = new BatchTree(h, base, old, all.slice(base));
  let n = 0;
  for (let level = 0; level < 9; level++) {
    for (let j = 0; (j + 1) * 2 ** level <= 300; j++) {
      const got = t.node(level, j);
      if (got === undefined) continue;
      assert.deepEqual(got, (await readerOf(h, all)([{ level, index: j }]))[0]);
      n++;
    }
  }
  assert.ok(n > 250);
  assert.equal(t.node(0, 36), undefined); // left of the batch
  assert.equal(t.node(40, 0), undefined);
  assert.throws(() => new BatchTree(h, 5, [], [all[5]]), /no old subtree at level 0/);
  assert.throws(() => new BatchTree(h, 0, [], []), /no leaves/);
});
