// Tiles in the SQL store (docs/STORAGE.md "Tile groups"): a tile is a row of its view's tiles
// table, keyed by tileId(level, index), until the 16 full tiles of its group are stored; then the
// 16 are one row of the view's group table (id: tileId(level, group)) and a tile is a slice of it.
import type { Tile } from "../tiles.ts";
import type { TreeView } from "../storage.ts";
import type { SqlExecutor, SqlParam, SqlRow } from "./executor.ts";

/** Largest level-0 tile id + 1 (tile ids are level·2^48 + index). */
export const LEVEL1 = 2 ** 48;
/** Tile (level, index) as one integer key: level·2^48 + index (exact below 2^53). */
export const tileId = (level: number, index: number): number => level * LEVEL1 + index;
/** Tiles per group: the 16 tiles of one level that make one published (height-8) tile. */
export const GROUP = 16;
/** Bytes of a full tile (16 hashes). */
export const FULL_TILE = 16 * 32;

/** One view's tables: its tiles and its groups of 16 full tiles. */
export interface ViewTables {
  tiles: string;
  groups: string;
}

/** Each view's tables under a table-name prefix. */
export function viewTables(p: string): Record<TreeView, ViewTables> {
  return {
    blake3: { tiles: `${p}tiles`, groups: `${p}tile_groups` },
    sha256: { tiles: `${p}tiles256`, groups: `${p}tile_groups256` },
  };
}

/** A BLOB cell, or undefined when the row (or the cell) holds none. */
const blob = (r: SqlRow | undefined, k: string): Uint8Array | undefined => {
  const v = r?.[k];
  return v instanceof Uint8Array ? v : undefined;
};

/** Reads and writes one view's tiles over an executor (statements kept as strings, built once). */
export class ViewTiles {
  readonly #x: SqlExecutor;
  readonly #q: {
    tile: string;
    tiles: string;
    group: string;
    groups: string;
    put: string;
    putGroup: string;
    drop: string;
  };

  constructor(x: SqlExecutor, readonly t: ViewTables) {
    this.#x = x;
    this.#q = {
      tile: `SELECT hashes FROM ${t.tiles} WHERE id = ?`,
      tiles: `SELECT id, hashes FROM ${t.tiles} WHERE id >= ? AND id < ? ORDER BY id`,
      group: `SELECT hashes FROM ${t.groups} WHERE id = ?`,
      groups: `SELECT id, hashes FROM ${t.groups} WHERE id >= ? AND id < ?`,
      put: `INSERT OR REPLACE INTO ${t.tiles} (id, hashes) VALUES (?, ?)`,
      putGroup: `INSERT OR REPLACE INTO ${t.groups} (id, hashes) VALUES (?, ?)`,
      drop: `DELETE FROM ${t.tiles} WHERE id >= ? AND id < ?`,
    };
  }

  /** Tile (level, index), from its row or its group's. */
  tile(level: number, index: number): Uint8Array | undefined {
    const own = blob(this.#x.all(this.#q.tile, tileId(level, index))[0], "hashes");
    if (own) return own;
    const k = index % GROUP;
    const g = blob(this.#x.all(this.#q.group, tileId(level, (index - k) / GROUP))[0], "hashes");
    return g?.slice(k * FULL_TILE, (k + 1) * FULL_TILE);
  }

  /** The group row (level, group): 16 full tiles as one array, or undefined. */
  group(level: number, group: number): Uint8Array | undefined {
    return blob(this.#x.all(this.#q.group, tileId(level, group))[0], "hashes");
  }

  /** Tiles (level, start) .. (level, start + count - 1); `[k]` undefined where absent. */
  range(level: number, start: number, count: number): (Uint8Array | undefined)[] {
    const out: (Uint8Array | undefined)[] = new Array(Math.max(0, count)).fill(undefined);
    if (count <= 0) return out;
    const first = tileId(level, start);
    let missing = count;
    for (const r of this.#x.all(this.#q.tiles, first, first + count)) {
      out[(r.id as number) - first] = blob(r, "hashes");
      missing--;
    }
    if (missing === 0) return out;
    const g0 = Math.floor(start / GROUP), g1 = Math.floor((start + count - 1) / GROUP);
    for (const r of this.#x.all(this.#q.groups, tileId(level, g0), tileId(level, g1) + 1)) {
      const b = blob(r, "hashes");
      if (!b) continue;
      const base = ((r.id as number) - tileId(level, 0)) * GROUP - start;
      for (let k = Math.max(0, base); k < Math.min(count, base + GROUP); k++) {
        out[k] ??= b.slice((k - base) * FULL_TILE, (k - base + 1) * FULL_TILE);
      }
    }
    return out;
  }

  /** Writes tiles; a full tile that completes its group moves the group to one row. */
  put(tiles: Tile[]): void {
    for (const t of tiles) this.#x.run(this.#q.put, tileId(t.level, t.index), t.hashes);
    for (const t of tiles) {
      if (t.hashes.length === FULL_TILE && t.index % GROUP === GROUP - 1) {
        this.groupFrom(tileId(t.level, t.index - (GROUP - 1)));
      }
    }
  }

  /**
   * Moves a group of 16 full tiles into one row: given the id of the group's first tile, writes
   * their concatenation to the group table and deletes the 16 rows, in the caller's transaction.
   * False (nothing changed) unless all 16 are stored full.
   */
  groupFrom(first: number): boolean {
    const rows = this.#x.all(this.#q.tiles, first, first + GROUP);
    if (rows.length !== GROUP) return false;
    const out = new Uint8Array(GROUP * FULL_TILE);
    for (let k = 0; k < GROUP; k++) {
      const h = blob(rows[k], "hashes");
      if (h?.length !== FULL_TILE) return false;
      out.set(h, k * FULL_TILE);
    }
    const level = Math.floor(first / LEVEL1);
    const args: SqlParam[] = [tileId(level, (first - tileId(level, 0)) / GROUP), out];
    this.#x.run(this.#q.putGroup, ...args);
    this.#x.run(this.#q.drop, first, first + GROUP);
    return true;
  }

  /** Groups every complete group already stored as 16 rows (the migration to tile groups). */
  groupAll(): void {
    const full = this.#x.all(
      `SELECT id / ${GROUP} AS g FROM ${this.t.tiles} GROUP BY id / ${GROUP} ` +
        `HAVING count(*) = ${GROUP} AND min(length(hashes)) = ${FULL_TILE}`,
    );
    for (const r of full) this.groupFrom(Number(r.g) * GROUP);
  }

  /** Deletes tiles (level, 0) .. (level, end - 1), rows and groups (a group only when whole). */
  pruneBelow(level: number, end: number): void {
    if (end <= 0) return;
    this.#x.run(
      `DELETE FROM ${this.t.tiles} WHERE id >= ? AND id < ?`,
      tileId(level, 0),
      tileId(level, end),
    );
    this.#x.run(
      `DELETE FROM ${this.t.groups} WHERE id >= ? AND id < ?`,
      tileId(level, 0),
      tileId(level, Math.floor(end / GROUP)),
    );
  }
}
