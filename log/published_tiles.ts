// C2SP tlog-tiles' height-8 tiles (256 hashes) read from the store's height-4 tiles (16 hashes,
// log/tiles.ts): tree level 8·L is stored tile level 2·L, so published tile L/N of width W is the
// first W hashes of stored tiles (2L, 16N), (2L, 16N + 1), ... — one range read (a full one is one
// point read where the store keeps the 16 as one group, TileGroups.tileGroup: log/store_source.ts); no
// second copy of any hash on disk (docs/STORAGE.md "Publication"). A hash never changes once stored (the
// tree only grows), so a published tile, full or partial, is immutable. Pure.
import { HASH_SIZE } from "./hasher.ts";
import { TILE_HEIGHT, TILE_WIDTH, type TileLoader } from "./tiles.ts";

/** Reads `count` consecutive stored tiles of one level at once (`[k]`: index `start + k`). */
export interface TileRangeLoader {
  range(level: number, start: number, count: number): Promise<(Uint8Array | undefined)[]>;
}

/** Hashes in a published (C2SP, height 8) tile. */
export const PUBLISHED_WIDTH = 256;
/** Stored tiles per published tile (256 / 16). */
const PARTS = PUBLISHED_WIDTH / TILE_WIDTH;
/** Stored tile levels per published tile level (8 / 4). */
export const LEVELS = 8 / TILE_HEIGHT;

/**
 * The bytes of published tile `level`/`index` of `width` hashes (1..256), or undefined when the
 * stored tiles do not hold that many hashes there.
 */
export async function readPublishedTile(
  load: TileLoader | TileRangeLoader,
  level: number,
  index: number,
  width: number,
): Promise<Uint8Array | undefined> {
  const n = Math.ceil(width / TILE_WIDTH);
  const parts = "range" in load
    ? await load.range(LEVELS * level, PARTS * index, n)
    : await Promise.all(
      Array.from({ length: n }, (_, k) => load(LEVELS * level, PARTS * index + k)),
    );
  const out = new Uint8Array(width * HASH_SIZE);
  for (let k = 0; k < n; k++) {
    const want = Math.min(TILE_WIDTH, width - k * TILE_WIDTH) * HASH_SIZE;
    const part = parts[k];
    if (part === undefined || part.length < want) return undefined;
    out.set(part.subarray(0, want), k * TILE_WIDTH * HASH_SIZE);
  }
  return out;
}
