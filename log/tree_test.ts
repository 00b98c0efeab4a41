// RFC 6962 tree math and RFC 9162 verification: the upstream transparency-dev/merkle SHA-256 cases
// unchanged (corrupted variants included), then property tests against a naive recursive
// reference with BLAKE3 and SHA-256: verify(prove(x)) for every small size, every corruption fails.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  blake3Hasher,
  consistencyProof,
  type Hasher,
  inclusionProof,
  type NodeId,
  referenceRoot,
  sha256Hasher,
  treeRoot,
  verifyConsistency,
  verifyInclusion,
} from "./mod.ts";

const UPSTREAM = new URL("../conformance/upstream/merkle-sha256/testdata/", import.meta.url);
const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

async function* cases(kind: string): AsyncGenerator<[string, Record<string, unknown>]> {
  const walk = async function* (
    dir: URL,
    rel: string,
  ): AsyncGenerator<[string, Record<string, unknown>]> {
    const names = [];
    for await (const e of Deno.readDir(dir)) names.push(e);
    names.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of names) {
      if (e.isDirectory) yield* walk(new URL(`${e.name}/`, dir), `${rel}${e.name}/`);
      else yield [`${rel}${e.name}`, JSON.parse(await Deno.readTextFile(new URL(e.name, dir)))];
    }
  };
  yield* walk(new URL(`${kind}/`, UPSTREAM), `${kind}/`);
}

Deno.test("upstream merkle-sha256 inclusion cases pass unchanged", async () => {
  let n = 0, bad = 0;
  for await (const [file, c] of cases("inclusion")) {
    const ok = verifyInclusion(
      sha256Hasher,
      c.leafIdx as number,
      c.treeSize as number,
      b64(c.leafHash as string),
      ((c.proof as string[] | null) ?? []).map(b64),
      b64(c.root as string),
    );
    assert.equal(ok, !c.wantErr, `${file}: ${c.desc}`);
    n++;
    if (c.wantErr) bad++;
  }
  assert.ok(n >= 80 && bad >= 70, `only ${n} inclusion cases (${bad} corrupted) found`);
});

Deno.test("upstream merkle-sha256 consistency cases pass unchanged", async () => {
  let n = 0, bad = 0;
  for await (const [file, c] of cases("consistency")) {
    const ok = verifyConsistency(
      sha256Hasher,
      c.size1 as number,
      c.size2 as number,
      ((c.proof as string[] | null) ?? []).map(b64),
      b64(c.root1 as string),
      b64(c.root2 as string),
    );
    assert.equal(ok, !c.wantErr, `${file}: ${c.desc}`);
    n++;
    if (c.wantErr) bad++;
  }
  assert.ok(n >= 90 && bad >= 80, `only ${n} consistency cases (${bad} corrupted) found`);
});

// --- naive recursive reference (RFC 6962 §2.1.1 PATH, §2.1.2 SUBPROOF), over leaf hashes ---

function refPath(hs: Hasher, m: number, d: Uint8Array[]): Uint8Array[] {
  const n = d.length;
  if (n <= 1) return [];
  let k = 1;
  while (k * 2 < n) k *= 2;
  return m < k
    ? [...refPath(hs, m, d.slice(0, k)), referenceRoot(hs, d.slice(k))]
    : [...refPath(hs, m - k, d.slice(k)), referenceRoot(hs, d.slice(0, k))];
}

function refSubproof(hs: Hasher, m: number, d: Uint8Array[], b: boolean): Uint8Array[] {
  const n = d.length;
  if (m === n) return b ? [] : [referenceRoot(hs, d)];
  let k = 1;
  while (k * 2 < n) k *= 2;
  return m <= k
    ? [...refSubproof(hs, m, d.slice(0, k), b), referenceRoot(hs, d.slice(k))]
    : [...refSubproof(hs, m - k, d.slice(k), false), referenceRoot(hs, d.slice(0, k))];
}

/** A node reader straight from the leaves (independent of tiles). */
function leafReader(hs: Hasher, d: Uint8Array[]) {
  return (ids: NodeId[]) =>
    Promise.resolve(
      ids.map((id) =>
        referenceRoot(hs, d.slice(id.index * 2 ** id.level, (id.index + 1) * 2 ** id.level))
      ),
    );
}

const leavesOf = (hs: Hasher, n: number) =>
  Array.from({ length: n }, (_, i) => hs.leaf(new TextEncoder().encode(`leaf ${i}`)));

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const flip = (p: Uint8Array[], i: number, bit: number) =>
  p.map((x, j) => (j === i ? x.map((y, k) => (k === bit >> 3 ? y ^ (1 << (bit & 7)) : y)) : x));

for (const [name, hs] of [["blake3", blake3Hasher], ["sha256", sha256Hasher]] as const) {
  Deno.test(`${name}: prove/verify match the reference for every size ≤ 40, every corruption fails`, async () => {
    const all = leavesOf(hs, 40);
    for (let n = 0; n <= 40; n++) {
      const d = all.slice(0, n);
      const read = leafReader(hs, d);
      const root = referenceRoot(hs, d);
      assert.equal(hex(await treeRoot(hs, n, read)), hex(root), `root ${n}`);
      for (let i = 0; i < n; i++) {
        const p = await inclusionProof(hs, i, n, read);
        assert.deepEqual(p.map(hex), refPath(hs, i, d).map(hex), `path ${i}/${n}`);
        assert.ok(verifyInclusion(hs, i, n, d[i], p, root), `verify ${i}/${n}`);
        for (let j = 0; j < p.length; j++) {
          assert.ok(!verifyInclusion(hs, i, n, d[i], flip(p, j, (i * 7 + j) % 256), root));
        }
        if (n > 1) assert.ok(!verifyInclusion(hs, (i + 1) % n, n, d[i], p, root) || d.length === 1);
        assert.ok(!verifyInclusion(hs, i, n * 2, d[i], p, root));
        assert.ok(!verifyInclusion(hs, i, n, d[i], [...p, root], root));
        if (p.length) assert.ok(!verifyInclusion(hs, i, n, d[i], p.slice(1), root));
      }
      for (let m = 1; m < n; m++) {
        const p = await consistencyProof(hs, m, n, read);
        assert.deepEqual(p.map(hex), refSubproof(hs, m, d, true).map(hex), `consistency ${m}/${n}`);
        const r1 = referenceRoot(hs, d.slice(0, m));
        assert.ok(verifyConsistency(hs, m, n, p, r1, root), `verify ${m}/${n}`);
        for (let j = 0; j < p.length; j++) {
          assert.ok(!verifyConsistency(hs, m, n, flip(p, j, (m * 5 + j) % 256), r1, root));
        }
        assert.ok(!verifyConsistency(hs, m, n, p, root, r1));
        assert.ok(!verifyConsistency(hs, m, n, [...p, r1], r1, root));
        assert.ok(!verifyConsistency(hs, m, n, p.slice(0, -1), r1, root));
      }
    }
  });
}

Deno.test("property: any single-bit flip of any proof element fails (fast-check)", async () => {
  const all = leavesOf(blake3Hasher, 70);
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 70 }).chain((n) =>
        fc.tuple(fc.constant(n), fc.nat(n - 1), fc.nat(1_000_000), fc.nat(255))
      ),
      async ([n, i, sel, bit]) => {
        const d = all.slice(0, n);
        const root = referenceRoot(blake3Hasher, d);
        const p = await inclusionProof(blake3Hasher, i, n, leafReader(blake3Hasher, d));
        if (!verifyInclusion(blake3Hasher, i, n, d[i], p, root)) return false;
        if (p.length === 0) return true;
        return !verifyInclusion(blake3Hasher, i, n, d[i], flip(p, sel % p.length, bit), root);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test('empty tree root is BLAKE3("") and large sizes verify', async () => {
  assert.equal(
    hex(blake3Hasher.empty()),
    "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
  );
  // A big virtual tree with period-2 leaves (every node above level 0 of one level is equal), so
  // proofs at sizes beyond 2^32 can be checked: index arithmetic must not use 32-bit operators.
  const hs = blake3Hasher;
  const size = 2 ** 40 + 12345;
  const levels = [hs.node(hs.leaf(Uint8Array.of(0)), hs.leaf(Uint8Array.of(1)))];
  for (let l = 1; l < 45; l++) levels.push(hs.node(levels[l - 1], levels[l - 1]));
  const fakeNode = (id: NodeId) =>
    id.level === 0 ? hs.leaf(Uint8Array.of(id.index % 2)) : levels[id.level - 1];
  const read = (ids: NodeId[]) => Promise.resolve(ids.map(fakeNode));
  const index = 2 ** 39 + 777;
  const p = await inclusionProof(hs, index, size, read);
  const root = await treeRoot(hs, size, read);
  assert.ok(verifyInclusion(hs, index, size, fakeNode({ level: 0, index }), p, root));
  assert.ok(!verifyInclusion(hs, index + 1, size, fakeNode({ level: 0, index }), p, root));
});

Deno.test("blake3Hasher equals SPEC §22.1's definition (b3sum-checked BLAKE3 of the prefixed bytes)", async () => {
  const { blake3 } = await import("../verify/mod.ts");
  const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 3000 }),
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      (e, l, r) =>
        hex(blake3Hasher.leaf(e)) === hex(blake3(Uint8Array.of(0, ...e))) &&
        hex(blake3Hasher.node(l, r)) === hex(blake3(Uint8Array.of(1, ...l, ...r))) &&
        // the node's scratch input is reused: a second node must not see the first's bytes
        hex(blake3Hasher.node(r, l)) === hex(blake3(Uint8Array.of(1, ...r, ...l))),
    ),
    { numRuns: 300 },
  );
  assert.equal(
    hex(blake3Hasher.empty()),
    "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
  );
});
