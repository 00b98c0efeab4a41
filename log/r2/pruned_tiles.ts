// The stored tiles the sequencer's SQLite pruned, read back from R2 (docs/EDGE.md "R2";
// log/r2/r2_storage.ts): a stored (height-4) tile is derived from its full published (height-8)
// tile, kept in a small LRU (dedup and recovery read a few): stored level 2L is a 16-hash slice
// of published tile L; stored level 2L+1 is published tile L folded 4 levels up
// (log/published_tiles.ts's layout). Pure: the bucket read is injected.
import { blake3Hasher, sha256Hasher, type TreeView } from "../mod.ts";
import { TILE_WIDTH } from "../c2sp/mod.ts";
import { tileKey } from "./r2.ts";

const HASH = 32;
const hashers = { blake3: blake3Hasher, sha256: sha256Hasher };
/** Full published tiles kept (8 KiB each). */
const FULL_TILE_CACHE = 64;

/** Stored tiles derived from R2's full published tiles. */
export class PrunedTiles {
  readonly #get: (key: string) => Promise<Uint8Array | undefined>;
  readonly #full = new Map<string, Uint8Array>();

  constructor(get: (key: string) => Promise<Uint8Array | undefined>) {
    this.#get = get;
  }

  /** A full published tile of a view from R2 (kept in the LRU), or undefined. */
  async #fullTile(view: TreeView, level: number, index: number): Promise<Uint8Array | undefined> {
    const key = `${view}/${level}/${index}`;
    const hit = this.#full.get(key);
    if (hit) {
      this.#full.delete(key);
      this.#full.set(key, hit);
      return hit;
    }
    const b = await this.#get(tileKey(view, { level, index, width: TILE_WIDTH }));
    if (!b || b.length !== TILE_WIDTH * HASH) return undefined;
    this.#full.set(key, b);
    if (this.#full.size > FULL_TILE_CACHE) this.#full.delete(this.#full.keys().next().value!);
    return b;
  }

  /** Stored tile (`level`, `index`) of `view`, or undefined when R2 holds no full tile of it. */
  async tile(level: number, index: number, view: TreeView): Promise<Uint8Array | undefined> {
    const L = level >> 1;
    const even = level % 2 === 0;
    const bytes = await this.#fullTile(view, L, even ? Math.floor(index / 16) : index);
    if (!bytes) return undefined;
    if (even) return bytes.slice((index % 16) * 16 * HASH, (index % 16 + 1) * 16 * HASH);
    const h = hashers[view];
    let row = bytes;
    for (let s = 0; s < 4; s++) {
      const n = row.length / HASH / 2;
      const next = new Uint8Array(n * HASH);
      for (let k = 0; k < n; k++) {
        next.set(
          h.node(
            row.subarray(2 * k * HASH, (2 * k + 1) * HASH),
            row.subarray((2 * k + 1) * HASH, (2 * k + 2) * HASH),
          ),
          k * HASH,
        );
      }
      row = next;
    }
    return row;
  }
}
