// Building C2SP tlog-tiles (height 8) from a tree's leaf hashes: each level-L tile holds hashes of
// tree level 8L, and the hash of a full tile is the next level's entry (tlog-tiles §Merkle Tree).
// Pure and in memory: the test fixtures, the C-TLOG vectors and static test logs use it; the
// sequencer writes its tiles batch by batch behind the storage contract instead.
import type { Hasher } from "../hasher.ts";
import { HASH_SIZE } from "../hasher.ts";
import { foldPerfect } from "../tiles.ts";
import { encodeBundle } from "./bundle.ts";
import { C2spError } from "./errors.ts";
import { ENTRIES, newTiles, TILE_WIDTH, type TileId, tileOfSize, tilePath } from "./tile_path.ts";
import { signCheckpoint } from "./checkpoint.ts";
import { foldRange, rootNodes } from "../tree.ts";

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

/** What `staticLogFiles` builds. */
export interface StaticLogOptions {
  /** The log name: origins `<name>/blake3` and `<name>/sha256`. */
  name: string;
  /** The log's Ed25519 secret seed. */
  secret: Uint8Array;
  entries: Uint8Array[];
  /** The sizes the log made checkpoints at, ascending (their partial tiles are kept, as a log
   * may); the last one is the current checkpoint. Default: the number of entries. */
  sizes?: number[];
}

const STATIC_VIEWS: [string, "blake3" | "sha256"][] = [["blake3", "blake3"], ["sha256", "sha256"]];

/**
 * Every file of a complete static tiled log with both views (docs/PUBLICATION.md layout):
 * `log/<view>/checkpoint`, `log/<view>/tile/<L>/<N>[.p/<W>]`, `log/<view>/tile/entries/...`;
 * path → bytes, deterministic (the checkpoint signatures are Ed25519, deterministic too).
 */
export function staticLogFiles(
  hashers: Record<"blake3" | "sha256", Hasher>,
  o: StaticLogOptions,
): Map<string, Uint8Array> {
  const sizes = o.sizes ?? [o.entries.length];
  const size = sizes[sizes.length - 1];
  const out = new Map<string, Uint8Array>();
  for (const [dir, view] of STATIC_VIEWS) {
    const h = hashers[view];
    const levels = buildTileLevels(h, o.entries.slice(0, size).map((e) => h.leaf(e)));
    let prev = 0;
    for (const s of sizes) {
      for (const t of newTiles(prev, s)) {
        const bytes = t.level === ENTRIES
          ? bundleBytes(o.entries, t.index, t.width)
          : tileBytes(levels, t).slice();
        out.set(`log/${dir}/${tilePath(t)}`, bytes);
      }
      prev = s;
    }
    const root = size === 0 ? h.empty() : rootOfLevels(h, levels);
    const note = signCheckpoint({ origin: `${o.name}/${view}`, size, root }, o.secret);
    out.set(`log/${dir}/checkpoint`, new TextEncoder().encode(note));
  }
  return out;
}

// The tree root from its tile levels: the partial tiles' complete subtrees, folded (tree.ts).
function rootOfLevels(h: Hasher, t: TileLevels): Uint8Array {
  const nodes = rootNodes(t.size).map((id) => {
    const l = Math.floor(id.level / 8);
    const s = id.level % 8;
    const row = t.levels[l];
    const hashes: Uint8Array[] = [];
    for (let k = id.index * 2 ** s; k < (id.index + 1) * 2 ** s; k++) {
      hashes.push(row.subarray(k * HASH_SIZE, (k + 1) * HASH_SIZE));
    }
    return foldPerfect(h, hashes);
  });
  return foldRange(h, nodes);
}
