// Proofs from tiles: for random sizes and both hashes, inclusion and consistency proofs and roots
// computed from height-8 tiles equal log/tree.ts's over a naive node reader and verify (RFC 9162);
// every corrupted tile, wrong-length tile, wrong root or bad bundle is caught with its code.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  blake3Hasher,
  c2sp,
  consistencyProof,
  type Hasher,
  inclusionProof,
  type NodeId,
  referenceRoot,
  sha256Hasher,
  treeRoot,
  verifyConsistency,
  verifyInclusion,
} from "../../../log/mod.ts";

const { buildTileLevels, bundleBytes, C2spError, ENTRIES, TileHashReader, tileBytes } = c2sp;
type TileId = c2sp.TileId;

const enc = new TextEncoder();
const entryOf = (i: number) => enc.encode(`entry ${i}`);

interface Fixture {
  h: Hasher;
  entries: Uint8Array[];
  leaves: Uint8Array[];
  tiles: c2sp.TileLevels;
  node: (l: number, i: number) => Uint8Array;
}

const cache = new Map<string, Fixture>();
function fixture(h: Hasher, n: number): Fixture {
  const k = `${h === sha256Hasher ? "s" : "b"}${n}`;
  let f = cache.get(k);
  if (f) return f;
  const entries = Array.from({ length: n }, (_, i) => entryOf(i));
  const leaves = entries.map((e) => h.leaf(e));
  const memo = new Map<string, Uint8Array>();
  const node = (l: number, i: number): Uint8Array => {
    const key = `${l}/${i}`;
    let v = memo.get(key);
    if (!v) {
      v = l === 0 ? leaves[i] : h.node(node(l - 1, 2 * i), node(l - 1, 2 * i + 1));
      memo.set(key, v);
    }
    return v;
  };
  f = { h, entries, leaves, tiles: buildTileLevels(h, leaves), node };
  cache.set(k, f);
  return f;
}

/** A fetcher over a fixture at tree size `size` (tiles of that size only, as a server answers). */
function fetcherOf(f: Fixture, size: number, log: string[] = []) {
  return (t: TileId): Promise<Uint8Array> => {
    log.push(c2sp.tilePath(t));
    if (!c2sp.tileOfSize(size, t)) return Promise.reject(new Error(`404 ${c2sp.tilePath(t)}`));
    if (t.level === ENTRIES) return Promise.resolve(bundleBytes(f.entries, t.index, t.width));
    return Promise.resolve(tileBytes(f.tiles, t).slice());
  };
}

const MAX = 70_000;
const big = { s: fixture(sha256Hasher, MAX), b: fixture(blake3Hasher, MAX) };
const naive = (f: Fixture) => (ids: NodeId[]) =>
  Promise.resolve(ids.map((id) => f.node(id.level, id.index)));

for (const [name, h] of [["sha256", sha256Hasher], ["blake3", blake3Hasher]] as const) {
  const f = name === "sha256" ? big.s : big.b;
  const sizeArb = fc.oneof(
    fc.integer({ min: 1, max: 600 }),
    fc.constantFrom(1, 255, 256, 257, 511, 512, 65_535, 65_536, 65_537),
    fc.integer({ min: 1, max: MAX }),
  );

  Deno.test(`tiles (${name}): proofs and roots from tiles equal log/tree.ts's and verify`, async () => {
    await fc.assert(
      fc.asyncProperty(sizeArb, fc.nat(), fc.nat(), async (size, a, b) => {
        const root = await treeRoot(h, size, naive(f));
        const r = new TileHashReader(h, { size, root }, fetcherOf(f, size));
        const index = a % size;
        const proof = await r.inclusionProof(index);
        assert.deepEqual(proof, await inclusionProof(h, index, size, naive(f)));
        assert.ok(verifyInclusion(h, index, size, await r.leafHash(index), proof, root));
        const first = 1 + (b % size);
        const cp = await r.consistencyProof(first);
        assert.deepEqual(cp, await consistencyProof(h, first, size, naive(f)));
        const root1 = await r.rootAt(first);
        if (first <= 600) assert.deepEqual(root1, referenceRoot(h, f.leaves.slice(0, first)));
        assert.ok(verifyConsistency(h, first, size, cp, root1, root));
        const bundle = Math.floor(index / 256);
        const got = await r.entries(bundle);
        assert.deepEqual(got[index % 256], f.entries[index]);
      }),
      { numRuns: 60 },
    );
  });

  Deno.test(`tiles (${name}): a corrupted tile or bundle, a wrong root, a short tile are caught`, async () => {
    await fc.assert(
      fc.asyncProperty(sizeArb, fc.nat(), fc.nat(), async (size, a, bit) => {
        const root = await treeRoot(h, size, naive(f));
        const index = a % size;
        const honest = fetcherOf(f, size);
        // Learn which tiles the proof reads, then corrupt one of them.
        const used: string[] = [];
        const r0 = new TileHashReader(h, { size, root }, fetcherOf(f, size, used));
        await r0.inclusionProof(index);
        await r0.leafHash(index);
        await r0.entries(Math.floor(index / 256));
        const victim = used[bit % used.length];
        const evil = async (t: TileId) => {
          const b = (await honest(t)).slice();
          if (c2sp.tilePath(t) === victim) b[(bit >> 3) % b.length] ^= 1 << (bit & 7);
          return b;
        };
        const r = new TileHashReader(h, { size, root }, evil);
        let code = "ok";
        try {
          await r.inclusionProof(index);
          await r.leafHash(index);
          await r.entries(Math.floor(index / 256));
        } catch (e) {
          code = e instanceof C2spError ? e.code : String(e);
        }
        assert.ok(
          [
            "tile-root-mismatch",
            "tile-hash-mismatch",
            "bundle-hash-mismatch",
            "bundle-truncated",
            "bundle-bad-width",
          ]
            .includes(code),
          `${victim} corrupted: ${code}`,
        );
        // A wrong root: the first read fails.
        const wrong = root.slice();
        wrong[0] ^= 1;
        await assert.rejects(
          new TileHashReader(h, { size, root: wrong }, honest).inclusionProof(index),
          (e: unknown) => e instanceof C2spError && e.code === "tile-root-mismatch",
        );
        // A short tile.
        const short = async (t: TileId) => (await honest(t)).slice(0, -1);
        await assert.rejects(
          new TileHashReader(h, { size, root }, short).inclusionProof(index),
          (e: unknown) => e instanceof C2spError && e.code === "tile-bad-length",
        );
      }),
      { numRuns: 40 },
    );
  });
}

Deno.test("tiles: a reader fetches each tile once across many proofs; size 0 reads nothing", async () => {
  const f = big.s;
  const size = 65_537;
  const root = await treeRoot(sha256Hasher, size, naive(f));
  const log: string[] = [];
  const r = new TileHashReader(sha256Hasher, { size, root }, fetcherOf(f, size, log));
  for (let i = 0; i < size; i += 997) await r.inclusionProof(i);
  assert.equal(new Set(log).size, log.length, "a tile was fetched twice");
  const r0 = new TileHashReader(sha256Hasher, { size: 0, root: sha256Hasher.empty() }, () => {
    throw new Error("fetched");
  });
  await r0.checkRoot();
  await assert.rejects(r0.inclusionProof(0));
  await assert.rejects(
    r.entries(257),
    (e: unknown) => e instanceof C2spError && e.code === "tile-beyond-tree",
  );
});

Deno.test("tiles: concurrent proofs through a reader that keeps one tile all verify", async () => {
  for (const h of [sha256Hasher, blake3Hasher]) {
    const f = h === sha256Hasher ? big.s : big.b;
    const size = 70_000;
    const root = await treeRoot(h, size, naive(f));
    const slow = (t: TileId) =>
      new Promise<Uint8Array>((res) =>
        setTimeout(() => res(tileBytes(f.tiles, t).slice()), t.index % 3)
      );
    const r = new TileHashReader(
      h,
      { size, root },
      (t) => t.level === ENTRIES ? fetcherOf(f, size)(t) : slow(t),
      { maxTiles: 1 },
    );
    const idx = Array.from({ length: 40 }, (_, k) => (k * 7919) % size);
    const proofs = await Promise.all(idx.map((i) => r.inclusionProof(i)));
    const leaves = await Promise.all(idx.map((i) => r.leafHash(i)));
    idx.forEach((i, k) => assert.ok(verifyInclusion(h, i, size, leaves[k], proofs[k], root)));
    await Promise.all(idx.slice(0, 8).map((i) => r.entries(Math.floor(i / 256))));
  }
});
