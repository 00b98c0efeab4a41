// The Durable Object backend of the log's storage contract (log/storage.ts, docs/STORAGE.md): the
// one SQL store (log/sql/store.ts) over a SQLite-backed Durable Object's `ctx.storage`
// (log/durable/executor.ts; ARCHITECTURE "Storage and sequencing": the scale-out deployment).
// One object holds one log, its tables prefixed (default "jc_"). A batch commits in
// `transactionSync`, whole or not at all; the runtime's output gate holds every answer until the
// write is durable, so nothing is acknowledged before it would survive a restart (Decision 7).
// An object written before the one store (its own schema, versions 1 and 2) is migrated on open
// (log/sql/schema.ts).
import type {
  AgentHeads,
  Batch,
  ContentIndex,
  KeyIndex,
  LeafLookupMany,
  LogStorage,
  StreamIndex,
  TileGroups,
  ViewMigration,
} from "../storage.ts";
import { leafPrefix } from "../storage.ts";
import { SqlStore } from "../sql/store.ts";
import { SQL_SCHEMA_VERSION } from "../sql/schema.ts";
import { DurableExecutor } from "./executor.ts";
import type { DurableSqlStorage } from "./sql_types.ts";

/** Schema version this backend writes (the one SQL store's); another is refused, never guessed. */
export const DURABLE_SCHEMA_VERSION = Number(SQL_SCHEMA_VERSION);

/** Options of `openDurableStorage`. */
export interface DurableStorageOptions {
  /** Table-name prefix, so one object can hold several stores (default "jc_"; [a-z][a-z0-9_]*). */
  prefix?: string;
  /**
   * Test hook: called inside the commit transaction after every row is written; throwing from it
   * must roll the whole batch back (the contract's "all or nothing").
   */
  beforeCommitEnd?: (batch: Batch) => void;
}

/**
 * What the R2-publishing sequencer (log/r2/r2_storage.ts, docs/EDGE.md "R2") adds to the
 * contract: a marker of how far the log is published, and pruning of what R2 now holds, so the
 * object keeps only the head, the right edge, the unpublished rounds and a dedup window.
 */
export interface DurableLogStorage
  extends
    LogStorage,
    TileGroups,
    LeafLookupMany,
    ContentIndex,
    AgentHeads,
    ViewMigration,
    StreamIndex,
    KeyIndex {
  /** The size up to which every object is in R2 (-1 for a store never published). */
  publishedSize(): Promise<number>;
  /**
   * Records that everything up to `size` is in R2, then deletes, in one transaction: heads below
   * `size`, entries (and their leaf-index rows) below min(the last full bundle's end,
   * size - window), and both views' stored tiles whose published (height-8) tile is full at
   * `size`, except the level-0 tiles of the entries kept (they confirm the leaf index's
   * candidates). `window` >= 256.
   */
  markPublished(size: number, window: number): Promise<void>;
  /** Bytes the object's SQLite database occupies (`ctx.storage.sql.databaseSize`). */
  databaseBytes(): number;
  /** SQLite rows written so far by this store (issue 29: `bench edge` counts them per append). */
  rowsWritten(): number;
  /** The content identities of entries `from` .. `to - 1` that have one (for R2's index). */
  contentIdsIn(from: number, to: number): Promise<{ index: number; contentId: Uint8Array }[]>;
}

/** The one SQL store in a Durable Object, with the R2 sequencer's publishing marks. */
class DurableStore extends SqlStore implements DurableLogStorage {
  readonly #x: DurableExecutor;

  constructor(x: DurableExecutor, o: DurableStorageOptions) {
    super(x, {
      prefix: o.prefix ?? "jc_",
      lineage: "durable",
      name: "in the Durable Object",
      // issue 29: a batch's entries are one row, and the leaf index no rows at all: its prefixes
      // are the in-memory tail, rebuilt on open from the window's level-0 tiles (kept for it) and
      // moved on with the window; candidates are confirmed here, and the R2 store asks R2's index
      // only when there is none
      roundRows: true,
      confirmCandidates: true,
      rowsPerInsert: 32, // 64 bound parameters: a Durable Object binds at most 100
      beforeCommitEnd: o.beforeCommitEnd,
    });
    this.#x = x;
  }

  publishedSize = (): Promise<number> =>
    this.read("read the published size", () => Number(this.readMeta("published") ?? -1));

  markPublished = (size: number, window: number): Promise<void> =>
    this.write("mark the log published", () => {
      if (window < 256) throw new RangeError("Cannot prune: the dedup window is < 256");
      const q = this.q;
      this.x.run(q.putMeta, "published", String(size));
      this.x.run(q.pruneHeads, size);
      const keepFrom = Math.min(Math.floor(size / 256) * 256, size - window);
      if (keepFrom > 0) {
        this.#pruneLeaves(keepFrom);
        this.x.run(q.pruneEntries, keepFrom);
        this.x.run(q.pruneContentIds, keepFrom);
        this.rounds!.prune(keepFrom);
        // the in-memory leaf index starts at the window (rebuilt there at the next read)
        const upto = Number(this.readMeta("leaves_upto") ?? 0);
        if (keepFrom > upto) this.x.run(q.setUpto, String(keepFrom));
      }
      for (const view of this.views) {
        // Published tile level L is stored levels 2L (16 stored tiles per published tile) and
        // 2L+1 (one stored tile per published tile); full ones are in R2.
        for (let l = 0, c = size; c >= 256; l++, c = Math.floor(c / 256)) {
          const full = Math.floor(c / 256);
          const keep = l === 0 ? Math.max(0, Math.floor(keepFrom / 16)) : Infinity;
          view.pruneBelow(2 * l, Math.min(16 * full, keep));
          view.pruneBelow(2 * l + 1, full);
        }
      }
    }).then(() => this.rounds!.forget());

  /**
   * Deletes the leaf-index rows of entries below `keepFrom`: each by its key, from the level-0
   * tile still stored; by a scan of the index when a tile is not (an object migrated from its
   * own schema had pruned them).
   */
  #pruneLeaves(keepFrom: number): void {
    const first = this.x.all(this.q.firstEntry)[0]?.idx;
    if (typeof first !== "number" || first >= keepFrom) return;
    for (let i = first; i < keepFrom; i++) {
      const leaf = this.storedLeaf(i);
      if (!leaf) {
        this.x.run(this.q.pruneLeaves, keepFrom);
        return;
      }
      this.x.run(this.q.dropLeaf, leafPrefix(leaf), i);
    }
  }

  databaseBytes = (): number => this.#x.databaseBytes();
  rowsWritten = (): number => this.#x.rowsWritten;

  contentIdsIn = (from: number, to: number): Promise<{ index: number; contentId: Uint8Array }[]> =>
    this.read(
      "read content identities",
      () => [
        ...this.x.all(this.q.contentIdsIn, from, to).map((r) => ({
          index: r.idx as number,
          contentId: r.id as Uint8Array,
        })),
        ...this.rounds!.contentIdsIn(from, to),
      ],
    );
}

/**
 * Opens the log store held in a SQLite-backed Durable Object's storage, creating its tables on
 * first use and migrating an older object's. Throws `LogStorageError("storage-schema")` for a
 * store written by another schema.
 *
 * ```ts
 * // inside a Durable Object class:
 * const store = openDurableStorage(this.ctx.storage);
 * const head = await store.latestHead();
 * ```
 */
export function openDurableStorage(
  storage: DurableSqlStorage,
  opts: DurableStorageOptions = {},
): DurableLogStorage {
  return new DurableStore(new DurableExecutor(storage), opts);
}
