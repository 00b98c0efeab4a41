// The right edge of the tree in memory: the partial tile at each tile level (at most 15 hashes
// each, so O(log n) memory whatever the log's size). Appending leaves updates the edge and yields
// the tiles to write; every node of the tree head lies in the edge (RFC 6962 §2.1: the head folds
// the complete subtrees of size's binary decomposition, all right of every full tile).
import type { Hasher } from "./hasher.ts";
import { HASH_SIZE } from "./hasher.ts";
import {
  foldPerfect,
  joinHashes,
  levelCount,
  partialTiles,
  type Tile,
  TILE_HEIGHT,
  TILE_WIDTH,
  tileHashes,
  type TileLoader,
  TileNodeReader,
} from "./tiles.ts";
import { treeRoot } from "./tree.ts";

/** The in-memory right edge of a tree of `size` leaves. */
export class TreeEdge {
  #size: number;
  readonly #edge: Uint8Array[][]; // per tile level: the partial tile's hashes
  readonly #h: Hasher;

  private constructor(h: Hasher, size: number, edge: Uint8Array[][]) {
    this.#h = h;
    this.#size = size;
    this.#edge = edge;
  }

  /** Leaves in the tree. */
  get size(): number {
    return this.#size;
  }

  /** Loads the edge of a tree of `size` leaves (one read per partial tile). */
  static async load(h: Hasher, size: number, load: TileLoader): Promise<TreeEdge> {
    const edge: Uint8Array[][] = [];
    for (const p of partialTiles(size)) {
      const bytes = await load(p.level, p.index);
      if (bytes === undefined || bytes.length !== p.width * HASH_SIZE) {
        throw new Error(
          `Cannot load tree edge: tile ${p.level}/${p.index} should hold ${p.width} hashes, ` +
            (bytes === undefined ? "it is missing" : `it holds ${bytes.length / HASH_SIZE}`),
        );
      }
      edge[p.level] = tileHashes(bytes.slice());
    }
    return new TreeEdge(h, size, edge);
  }

  /** An empty tree's edge. */
  static empty(h: Hasher): TreeEdge {
    return new TreeEdge(h, 0, []);
  }

  /** The partial tile (t, i) when it is in the edge, else undefined. */
  tile(level: number, index: number): Uint8Array | undefined {
    const row = this.#edge[level];
    if (!row || row.length === 0) return undefined;
    if (Math.floor(levelCount(this.#size, level) / TILE_WIDTH) !== index) return undefined;
    return joinHashes(row);
  }

  /** RFC 6962 §2.1 MTH of the tree (every node of its root lies in the edge). */
  root(): Promise<Uint8Array> {
    if (this.#size === 0) return Promise.resolve(this.#h.empty());
    const reader = new TileNodeReader(this.#h, (t, i) => Promise.resolve(this.tile(t, i)));
    return treeRoot(this.#h, this.#size, reader.read);
  }

  /** A copy of this edge (a batch works on a copy and adopts it only once committed). */
  clone(): TreeEdge {
    return new TreeEdge(this.#h, this.#size, this.#edge.map((r) => (r ? [...r] : [])));
  }

  /**
   * Appends leaf hashes; returns every tile that changed (full ones and the new partial ones).
   * `perfect(level, index)` may supply a complete subtree's hash already computed (a batch's
   * BatchTree), saving the fold of each full tile; undefined means fold it here.
   */
  append(
    leafHashes: Uint8Array[],
    perfect?: (level: number, index: number) => Uint8Array | undefined,
  ): Tile[] {
    const out = new Map<string, Tile>();
    const start = this.#size;
    const count: number[] = []; // hashes of tree level 4t so far
    const push = (t: number, hash: Uint8Array): void => {
      count[t] ??= levelCount(start, t);
      const row = (this.#edge[t] ??= []);
      const index = Math.floor(count[t] / TILE_WIDTH);
      row.push(hash);
      count[t]++;
      out.set(`${t}/${index}`, { level: t, index, hashes: new Uint8Array(0) });
      if (row.length === TILE_WIDTH) {
        out.set(`${t}/${index}`, { level: t, index, hashes: joinHashes(row) });
        this.#edge[t] = [];
        // A full tile's top hash is the next tile level's newest hash.
        push(t + 1, perfect?.(TILE_HEIGHT * (t + 1), index) ?? foldPerfect(this.#h, row));
      }
    };
    for (const lh of leafHashes) push(0, lh);
    this.#size += leafHashes.length;
    for (const tile of out.values()) {
      if (tile.hashes.length === 0) tile.hashes = joinHashes(this.#edge[tile.level]);
    }
    return [...out.values()];
  }
}
