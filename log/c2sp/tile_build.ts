// Building C2SP tlog-tiles (height 8) from a tree's leaf hashes: each level-L tile holds hashes of
// tree level 8L, and the hash of a full tile is the next level's entry (tlog-tiles §Merkle Tree).
// Pure and in memory: the test fixtures, the C-TLOG vectors and static test logs use it; the
// sequencer writes its tiles batch by batch behind the storage contract instead.
import type { Hasher } from "../hasher.ts";
import { HASH_SIZE } from "../hasher.ts";
import { foldPerfect } from "../tiles.ts";
import { encodeBundle } from "./bundle.ts";
import { C2spError } from "./errors.ts";
import { ENTRIES, TILE_WIDTH, type TileId, tileOfSize } from "./tile_path.ts";

/** The hashes of every tile level of a tree, contiguous: `levels[L]` holds tree level 8L. */
export interface TileLevels {
  size: number;
  levels: Uint8Array[];
}

/** Folds a full tile's 256 hashes to its subtree hash. */
export function fullTileHash(h: Hasher, tile: Uint8Array): Uint8Array {
  const hashes: Uint8Array[] = [];
  for (let k = 0; k < TILE_WIDTH; k++) {
    hashes.push(tile.subarray(k * HASH_SIZE, (k + 1) * HASH_SIZE));
  }
  return foldPerfect(h, hashes);
}

/**
 * Every tile level of the tree over `leafHashes`.
 *
 * @example
 * ```ts
 * const t = buildTileLevels(sha256Hasher, leaves);
 * tileBytes(t, { level: 0, index: 0, width: 256 }); // 8,192 bytes
 * ```
 */
export function buildTileLevels(h: Hasher, leafHashes: Uint8Array[]): TileLevels {
  const level0 = new Uint8Array(leafHashes.length * HASH_SIZE);
  leafHashes.forEach((x, i) => level0.set(x, i * HASH_SIZE));
  const levels = [level0];
  for (let row = level0; row.length >= TILE_WIDTH * HASH_SIZE;) {
    const n = Math.floor(row.length / (TILE_WIDTH * HASH_SIZE));
    const next = new Uint8Array(n * HASH_SIZE);
    for (let k = 0; k < n; k++) {
      const tile = row.subarray(k * TILE_WIDTH * HASH_SIZE, (k + 1) * TILE_WIDTH * HASH_SIZE);
      next.set(fullTileHash(h, tile), k * HASH_SIZE);
    }
    levels.push(next);
    row = next;
  }
  return { size: leafHashes.length, levels };
}

/** The bytes of hash tile `t` of the tree (a view into `levels`). */
export function tileBytes(t: TileLevels, id: TileId): Uint8Array {
  if (id.level === ENTRIES || !tileOfSize(t.size, id) && !fits(t, id)) {
    throw new C2spError("tile-beyond-tree", `Cannot build tile ${id.level}/${id.index}`);
  }
  const start = id.index * TILE_WIDTH * HASH_SIZE;
  return t.levels[id.level].subarray(start, start + id.width * HASH_SIZE);
}

function fits(t: TileLevels, id: TileId): boolean {
  const row = t.levels[id.level];
  return !!row && (id.index * TILE_WIDTH + id.width) * HASH_SIZE <= row.length;
}

/** The bundle of entries [256·n, 256·n + width). */
export function bundleBytes(entries: Uint8Array[], n: number, width: number): Uint8Array {
  return encodeBundle(entries.slice(n * TILE_WIDTH, n * TILE_WIDTH + width));
}
