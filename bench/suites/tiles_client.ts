// Client proofs from tiles (issue 10 bench): inclusion proofs computed from height-8 tiles and
// verified (RFC 9162) per second at 10^6 leaves, for both views, with the tiles' bytes cached in
// memory (as a client's tile cache or a mirror on disk would hold them). Two figures per view:
// `warm` (one reader per checkpoint: each tile checked against the signed root once, then reused)
// and `cold` (a new reader per proof: every tile the proof uses is checked again, partial tiles
// folded to the root each time). Beside them, the machine's limits in the same run: raw node
// hashes per second of that hash, and bare RFC 9162 verifications per second.
// BENCH_TILES_SIZE (default 1,000,000) and BENCH_TILES_MS (default 1,500 per figure).
import {
  blake3Hasher,
  c2sp,
  type Hasher,
  inclusionProof,
  type NodeId,
  sha256Hasher,
  treeRoot,
  verifyInclusion,
} from "../../log/mod.ts";

const SIZE = Number(Deno.env.get("BENCH_TILES_SIZE") ?? 1_000_000);
const MS = Number(Deno.env.get("BENCH_TILES_MS") ?? 1500);

function perSecond(ms: number, step: (i: number) => Promise<void> | void): Promise<number> {
  return (async () => {
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < ms) {
      for (let k = 0; k < 8; k++) await step(n++);
    }
    return Math.round(n / ((performance.now() - t0) / 1000));
  })();
}

/** Deterministic pseudo-random leaf hashes (the bench measures tiles, not leaf hashing). */
function leaves(n: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let x = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    const b = new Uint8Array(32);
    for (let k = 0; k < 32; k += 4) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      new DataView(b.buffer).setUint32(k, x >>> 0);
    }
    out.push(b);
  }
  return out;
}

async function view(h: Hasher, leafHashes: Uint8Array[]) {
  const t0 = performance.now();
  const levels = c2sp.buildTileLevels(h, leafHashes);
  const buildMs = performance.now() - t0;
  const fetch = (t: c2sp.TileId) => Promise.resolve(c2sp.tileBytes(levels, t));
  // The root the checkpoint would sign, folded from the tile levels (not by TileHashReader).
  const root = await treeRoot(h, SIZE, (ids) => Promise.resolve(nodesFromLevels(h, levels, ids)));
  const tree = { size: SIZE, root };
  const rand = (i: number) => (Math.imul(i + 1, 2654435761) >>> 0) % SIZE;
  const warmReader = new c2sp.TileHashReader(h, tree, fetch, { maxTiles: 8192 });
  const prove = async (r: c2sp.TileHashReader, i: number) => {
    const p = await r.inclusionProof(i);
    if (!verifyInclusion(h, i, SIZE, await r.leafHash(i), p, root)) throw new Error("bad proof");
  };
  // warm up: every level-0 tile read once
  for (let i = 0; i < SIZE; i += 256) await warmReader.leafHash(i);
  const warm = await perSecond(MS, (i) => prove(warmReader, rand(i)));
  const cold = await perSecond(MS, (i) => prove(new c2sp.TileHashReader(h, tree, fetch), rand(i)));
  // Limits: raw node hashes/s, bare verifications/s of precomputed proofs.
  const a = leafHashes[0], b = leafHashes[1];
  const hashes = await perSecond(MS / 3, () => {
    for (let k = 0; k < 64; k++) h.node(a, b);
  }) * 64;
  const sample = await Promise.all(
    Array.from({ length: 64 }, async (_, k) => {
      const i = rand(k);
      return { i, p: await inclusionProof(h, i, SIZE, warmReader.read), l: leafHashes[i] };
    }),
  );
  const verifies = await perSecond(MS / 3, (n) => {
    const s = sample[n % 64];
    if (!verifyInclusion(h, s.i, SIZE, s.l, s.p, root)) throw new Error("bad proof");
  });
  return {
    size: SIZE,
    proofs_per_s_warm: warm,
    proofs_per_s_cold: cold,
    limit_node_hashes_per_s: hashes,
    limit_bare_verifies_per_s: verifies,
    tiles_build_ms: Math.round(buildMs),
    tiles_read_cold_per_proof: await tilesPerProof(h, tree, fetch, rand(7)),
  };
}

// Hashes of complete subtrees from the built tile levels: fold 2^s hashes of level 8L.
function nodesFromLevels(h: Hasher, t: c2sp.TileLevels, ids: NodeId[]): Uint8Array[] {
  return ids.map((id) => {
    const L = Math.floor(id.level / 8), s = id.level % 8;
    const row = t.levels[L];
    let hs: Uint8Array[] = [];
    for (let k = id.index * 2 ** s; k < (id.index + 1) * 2 ** s; k++) {
      hs.push(row.subarray(k * 32, k * 32 + 32));
    }
    while (hs.length > 1) hs = hs.flatMap((_, k) => (k % 2 ? [] : [h.node(hs[k], hs[k + 1])]));
    return hs[0];
  });
}

async function tilesPerProof(
  h: Hasher,
  tree: c2sp.SignedTree,
  fetch: c2sp.TileFetcher,
  i: number,
): Promise<number> {
  let n = 0;
  await new c2sp.TileHashReader(h, tree, (t) => {
    n++;
    return fetch(t);
  }).inclusionProof(i);
  return n;
}

export default async function (): Promise<Record<string, unknown>> {
  const ls = leaves(SIZE);
  const out: Record<string, unknown> = {};
  for (const [name, h] of [["blake3", blake3Hasher], ["sha256", sha256Hasher]] as const) {
    out[name] = await view(h, ls);
  }
  return out;
}
