// The proof-serving caches (log/tiles.ts TileCache, the latest head's border memo in log/reader.ts):
// bounded, only full tiles, the same nodes as an uncached reader, and proofs served through them
// (at the latest size, at older sizes, while the log grows, with a one-tile cache) all verify
// against the signed heads; leafHashAt reads the leaf hash from the tree.
import assert from "node:assert/strict";
import {
  blake3Hasher,
  createMemoryStore,
  type LogStorage,
  openLog,
  TILE_WIDTH,
  verifyInclusion,
} from "./mod.ts";
import { TileCache, TileNodeReader } from "./tiles.ts";
import { fromHex, toHex } from "./crypto.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const secret = new Uint8Array(32).fill(9);
const h = blake3Hasher;

Deno.test("TileCache keeps only full tiles, at most maxTiles, least recently used out first", () => {
  const c = new TileCache(2);
  const full = (x: number) => new Uint8Array(TILE_WIDTH * 32).fill(x);
  c.put(0, 0, new Uint8Array(15 * 32)); // partial: never cached as bytes
  c.put(0, 1, undefined);
  assert.equal(c.size, 0);
  assert.equal(c.get(0, 0), undefined);
  c.put(0, 0, full(1));
  c.put(0, 1, full(2));
  assert.equal(c.size, 2);
  c.put(0, 0, full(9)); // a full tile never changes: the first bytes stay
  assert.equal(c.get(0, 0)?.[0], 1);
  const n = c.nodes(0, 1); // 0/1 is now the most recent; 0/0 the least
  assert.equal(n.length, 14);
  assert.equal(c.nodes(0, 1), n); // the same slots for the same tile
  c.put(1, 0, full(3)); // evicts 0/0 (bound 2)
  assert.equal(c.get(0, 0), undefined);
  assert.equal(c.get(0, 1)?.[0], 2);
  assert.equal(c.get(1, 0)?.[0], 3);
  c.nodes(5, 5); // a partial tile's nodes: evicts 0/1, bytes and nodes together
  assert.equal(c.get(0, 1), undefined);
  assert.notEqual(c.nodes(0, 1), n);
  assert.throws(() => new TileCache(0), /Cannot make a tile cache/);
});

Deno.test("a cached reader gives the same nodes as an uncached one, folding each once", async () => {
  const store = createMemoryStore();
  const log = await openLog(store, { secretKey: secret, batchMax: 50, batchAgeMs: 1 });
  await Promise.all(Array.from({ length: 700 }, (_, i) => log.append(enc(`n${i}`))));
  const cache = new TileCache(64);
  const load = async (t: number, i: number) => {
    const b = await store.tile(t, i);
    cache.put(t, i, b);
    return b;
  };
  // Nodes of full tiles only: leaves [0, 512) are 32 full level-0 tiles and 2 full level-1
  // tiles (levels 4..7); 700 leaves also leave partial tiles, which are never cached.
  const ids = [];
  for (let level = 0; level < 8; level++) {
    for (let index = 0; (index + 1) * 2 ** level <= 512; index++) ids.push({ level, index });
  }
  const plain = await new TileNodeReader(h, (t, i) => store.tile(t, i)).read(ids);
  const first = await new TileNodeReader(h, load, cache).read(ids);
  let hashes = 0;
  const counting = { ...h, node: (l: Uint8Array, r: Uint8Array) => (hashes++, h.node(l, r)) };
  const again = new TileNodeReader(counting, load, cache);
  const second = await again.read(ids);
  assert.deepEqual(first.map(toHex), plain.map(toHex));
  assert.deepEqual(second.map(toHex), plain.map(toHex));
  assert.equal(again.loads, 0); // every tile came from the cache
  assert.equal(hashes, 0); // and every interior node of a full tile too
  await log.close();
});

async function proofsVerify(s: LogStorage, tileCacheTiles: number) {
  const log = await openLog(s, { secretKey: secret, batchMax: 37, batchAgeMs: 1, tileCacheTiles });
  const heads = [];
  for (let round = 0; round < 4; round++) {
    const base = round * 300;
    await Promise.all(Array.from({ length: 300 }, (_, i) => log.append(enc(`p${base + i}`))));
    heads.push(await log.latestHead());
    // Proofs at every head seen so far, twice (the second time from the caches).
    for (const head of heads) {
      const root = fromHex(head.root);
      for (let pass = 0; pass < 2; pass++) {
        for (let i = 0; i < head.size; i += 7) {
          const proof = await log.inclusionProof(i, head.size);
          const leaf = h.leaf(enc(`p${i}`));
          assert.ok(verifyInclusion(h, i, head.size, leaf, proof, root), `${i} in ${head.size}`);
          assert.equal(toHex((await log.leafHashAt!(i))!), toHex(leaf));
        }
      }
    }
  }
  assert.equal(await log.leafHashAt!(1200), undefined);
  await assert.rejects(log.leafHashAt!(-1), /index must be an integer/);
  // The proof is the caller's: changing it does not change the next answer.
  const p = await log.inclusionProof(5, 1200);
  const before = p.map(toHex);
  p.forEach((x) => x.fill(0));
  assert.deepEqual((await log.inclusionProof(5, 1200)).map(toHex), before);
  await log.close();
}

Deno.test("proofs through the caches verify at every size while the log grows", async () => {
  await proofsVerify(createMemoryStore(), 4096);
  await proofsVerify(createMemoryStore(), 1); // constant eviction
});

Deno.test("a batch whose commit fails leaves nothing in the caches that later proofs use", async () => {
  const store = createMemoryStore();
  const log = await openLog(store, { secretKey: secret, batchMax: 64, batchAgeMs: 1 });
  const check = async () => {
    const head = await log.latestHead();
    for (let i = 0; i < head.size; i++) {
      const proof = await log.inclusionProof(i, head.size);
      const leaf = (await log.leafHashAt!(i))!;
      assert.ok(verifyInclusion(h, i, head.size, leaf, proof, fromHex(head.root)), `${i}`);
    }
  };
  await Promise.all(Array.from({ length: 45 }, (_, i) => log.append(enc(`a${i}`))));
  await check(); // warms the caches with nodes of the committed partial tiles
  for (const fault of ["fail-and-not-persist", "fail-and-persist"] as const) {
    store.injectFault(fault);
    const lost = Array.from({ length: 30 }, (_, i) => log.append(enc(`${fault} ${i}`)));
    for (const p of lost) await assert.rejects(p, /storage commit failed/);
    await Promise.all(Array.from({ length: 37 }, (_, i) => log.append(enc(`${fault} b${i}`))));
    await check();
  }
  await log.close();
});
