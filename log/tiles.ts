// Tree nodes stored as tiles (after Go's golang.org/x/mod/sumdb/tlog and C2SP tlog-tiles): tile
// (t, i) holds up to 16 hashes of tree level 4t, node indices 16i .. 16i+15. Every complete
// subtree of level 4t..4t+3 is folded from at most 8 hashes of one tile, so a node is one point
// read and an inclusion proof at 10^6 leaves reads about 6 tiles. Level-0 tiles hold leaf hashes;
// a full tile's top hash is the next tile level's entry. Stored: 32 bytes per leaf plus 1/15 more.
import type { Hasher } from "./hasher.ts";
import { HASH_SIZE } from "./hasher.ts";
import type { NodeId } from "./tree.ts";

/** Tree levels per tile. */
export const TILE_HEIGHT = 4;
/** Hashes in a full tile. */
export const TILE_WIDTH = 16;

/** One tile as written to storage. */
export interface Tile {
  level: number;
  index: number;
  hashes: Uint8Array; // width × 32 bytes
}

/** Reads one tile (undefined when absent). */
export type TileLoader = (level: number, index: number) => Promise<Uint8Array | undefined>;

const pow16 = (t: number) => 16 ** t;

/** Folds 2^k consecutive hashes of one level into their perfect subtree's hash. */
export function foldPerfect(h: Hasher, hashes: Uint8Array[]): Uint8Array {
  let row = hashes;
  while (row.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < row.length; i += 2) next.push(h.node(row[i], row[i + 1]));
    row = next;
  }
  return row[0];
}

/** Number of hashes of tree level 4t that exist in a tree of `size` leaves. */
export function levelCount(size: number, t: number): number {
  return Math.floor(size / pow16(t));
}

/** The tiles a tree of `size` leaves has at its right edge that are partial, with their widths. */
export function partialTiles(size: number): { level: number; index: number; width: number }[] {
  const out = [];
  for (let t = 0; levelCount(size, t) > 0; t++) {
    const c = levelCount(size, t);
    if (c % TILE_WIDTH !== 0) {
      out.push({ level: t, index: Math.floor(c / TILE_WIDTH), width: c % TILE_WIDTH });
    }
  }
  return out;
}

/** Splits a tile's bytes into its hashes. */
export function tileHashes(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += HASH_SIZE) out.push(bytes.subarray(i, i + HASH_SIZE));
  return out;
}

/** Concatenates hashes into a tile's bytes. */
export function joinHashes(hashes: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(hashes.length * HASH_SIZE);
  hashes.forEach((x, i) => out.set(x, i * HASH_SIZE));
  return out;
}

const SUB_OFFSET = [0, 0, 8, 12];
const FULL_TILE_BYTES = TILE_WIDTH * HASH_SIZE;

/**
 * Full tiles, least recently used out first, and the interior nodes folded from any committed
 * tile. A full tile never changes (the tree only grows, and tile (t, i) always covers the same
 * nodes), and neither does a complete subtree's hash, so nodes folded from a partial tile stay
 * right when it grows: entries stay right for ever, and memory is bounded by `maxTiles` tiles
 * and `maxTiles` node sets (about 1 KiB each). Only tiles that are committed may reach it: a
 * batch's tiles are not final until its commit succeeds.
 */
export class TileCache {
  readonly #max: number;
  readonly #map = new Map<number, CachedTile>();
  hits = 0;
  misses = 0;

  constructor(maxTiles = 4096) {
    if (!Number.isSafeInteger(maxTiles) || maxTiles < 1) {
      throw new RangeError(`Cannot make a tile cache: ${maxTiles} tiles`);
    }
    this.#max = maxTiles;
  }

  /** Full tiles held. */
  get size(): number {
    let n = 0;
    for (const e of this.#map.values()) if (e.full) n++;
    return n;
  }

  /** The cached full tile (level, index). */
  get(level: number, index: number): Uint8Array | undefined {
    return this.#map.get(nodeKey(level, index))?.full;
  }

  /** Caches a tile read from the store when it is full (partial tiles still grow). */
  put(level: number, index: number, bytes: Uint8Array | undefined): void {
    if (bytes?.length !== FULL_TILE_BYTES) return;
    this.entry(level, index).full ??= bytes;
  }

  /** The nodes folded from tile (level, index) so far (14 slots, filled by readers). */
  nodes(level: number, index: number): (Uint8Array | undefined)[] {
    return this.entry(level, index).sub;
  }

  /** Tile (level, index)'s entry, created when absent, marked as most recently used. */
  entry(level: number, index: number): CachedTile {
    const k = nodeKey(level, index);
    let e = this.#map.get(k);
    if (e) {
      this.hits++;
      this.#map.delete(k);
    } else {
      this.misses++;
      e = { full: undefined, sub: new Array(14) };
      if (this.#map.size >= this.#max) this.#map.delete(this.#map.keys().next().value!);
    }
    this.#map.set(k, e);
    return e;
  }
}

/** A tile's cache entry: its bytes once full, and the interior nodes folded from it so far. */
export interface CachedTile {
  full: Uint8Array | undefined;
  sub: (Uint8Array | undefined)[];
}

/**
 * Reads complete-subtree hashes from tiles, one load per distinct tile, memoizing tiles and every
 * node computed (each interior node is hashed once per reader); `loads` counts tile loads (the
 * point reads a proof costs). Readers are short-lived: one per proof request or sequencer batch.
 * With a `TileCache`, full tiles found there are not loaded, and interior nodes are kept there
 * (slots `SUB_OFFSET[j] + position` for sub-levels j = 1..3): the loader must then return
 * committed tiles only.
 */
export class TileNodeReader {
  loads = 0;
  readonly #h: Hasher;
  readonly #load: TileLoader;
  readonly #cache: TileCache | undefined;
  readonly #tiles = new Map<number, Uint8Array>();
  readonly #sub = new Map<number, (Uint8Array | undefined)[]>();
  readonly #nodes = new Map<number, Uint8Array>();

  constructor(h: Hasher, load: TileLoader, cache?: TileCache) {
    this.#h = h;
    this.#load = load;
    this.#cache = cache;
  }

  /** A `NodeReader` (tree.ts) over this reader. */
  readonly read = async (ids: NodeId[]): Promise<Uint8Array[]> => {
    let want: Map<number, [number, number]> | undefined;
    for (const id of ids) {
      if (this.#nodes.has(nodeKey(id.level, id.index))) continue;
      const [t, i] = tileOf(id);
      const k = nodeKey(t, i);
      if (this.#tiles.has(k)) continue;
      const c = this.#cache?.entry(t, i);
      if (c) this.#sub.set(k, c.sub);
      if (c?.full) this.#tiles.set(k, c.full);
      else (want ??= new Map()).set(k, [t, i]);
    }
    if (want) {
      await Promise.all([...want].map(async ([k, [t, i]]) => {
        this.loads++;
        const b = await this.#load(t, i);
        if (b === undefined) throw new Error(`Cannot read tree node: tile ${t}/${i} is missing`);
        this.#tiles.set(k, b);
      }));
    }
    return ids.map((id) => this.#node(id.level, id.index));
  };

  #node(level: number, index: number): Uint8Array {
    const j = level % TILE_HEIGHT;
    if (j !== 0) {
      const t = (level - j) / TILE_HEIGHT;
      const sub = this.#sub.get(nodeKey(t, Math.floor((index * 2 ** j) / TILE_WIDTH)));
      if (sub) {
        const slot = SUB_OFFSET[j] + (index % (TILE_WIDTH >> j));
        return sub[slot] ??= this.#fold(level, index);
      }
    }
    const key = nodeKey(level, index);
    const hit = this.#nodes.get(key);
    if (hit) return hit;
    let out: Uint8Array;
    if (j === 0) {
      const t = level / TILE_HEIGHT;
      const i = Math.floor(index / TILE_WIDTH);
      const bytes = this.#tiles.get(nodeKey(t, i))!;
      const off = (index % TILE_WIDTH) * HASH_SIZE;
      if (bytes.length < off + HASH_SIZE) {
        throw new Error(
          `Cannot read tree node ${level}/${index}: tile ${t}/${i} holds ${
            bytes.length / HASH_SIZE
          } hashes`,
        );
      }
      out = bytes.slice(off, off + HASH_SIZE);
    } else {
      out = this.#fold(level, index);
    }
    this.#nodes.set(key, out);
    return out;
  }

  #fold(level: number, index: number): Uint8Array {
    return this.#h.node(this.#node(level - 1, 2 * index), this.#node(level - 1, 2 * index + 1));
  }
}

/** One number per (level, index) pair (exact while index < 2^47). */
const nodeKey = (level: number, index: number) => index * 64 + level;

/** The tile holding the hashes a node folds from. */
export function tileOf(id: NodeId): [number, number] {
  const t = Math.floor(id.level / TILE_HEIGHT);
  const first = id.index * 2 ** (id.level - t * TILE_HEIGHT);
  return [t, Math.floor(first / TILE_WIDTH)];
}
