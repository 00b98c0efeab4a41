// Durable Object backend of the log's storage contract (log/storage.ts, docs/STORAGE.md) over a
// SQLite-backed Durable Object's `ctx.storage.sql` (ARCHITECTURE "Storage and sequencing": the
// scale-out deployment). One object holds one log. `commitBatch` runs in `transactionSync`, so a
// batch is stored whole or not at all; the runtime's output gate holds every answer until the
// write is durable, so nothing is acknowledged before it would survive a restart (Decision 7).
import {
  type AgentHead,
  type Batch,
  checkBatchExtends,
  type LogStorage,
  LogStorageError,
  StorageConflictError,
  type StoredHead,
  type Tile,
  type ViewBackfill,
} from "../mod.ts";
import type { DurableSqlStorage, SqlValue } from "./sql_types.ts";

/** Schema version this backend writes; a store of another version is refused, never guessed at. */
export const DURABLE_SCHEMA_VERSION = 2;

const schema = (p: string) => [
  `CREATE TABLE IF NOT EXISTS ${p}meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)`,
  // leaf: the full 32-byte leaf hash, UNIQUE: the store itself refuses a second copy of an entry.
  `CREATE TABLE IF NOT EXISTS ${p}entries (idx INTEGER PRIMARY KEY, leaf BLOB NOT NULL UNIQUE,` +
  ` bytes BLOB NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS ${p}tiles (level INTEGER NOT NULL, idx INTEGER NOT NULL,` +
  ` hashes BLOB NOT NULL, PRIMARY KEY (level, idx)) WITHOUT ROWID`,
  // The SHA-256 view's tiles (PUBLICATION.md P1), same layout.
  `CREATE TABLE IF NOT EXISTS ${p}tiles256 (level INTEGER NOT NULL, idx INTEGER NOT NULL,` +
  ` hashes BLOB NOT NULL, PRIMARY KEY (level, idx)) WITHOUT ROWID`,
  `CREATE TABLE IF NOT EXISTS ${p}heads (size INTEGER PRIMARY KEY, root BLOB NOT NULL,` +
  ` ts INTEGER NOT NULL, sig BLOB NOT NULL, sha_root BLOB)`,
  // docs/DECISIONS.md "One entry per signed content": content identity → index, unique. Created
  // when absent, so older stores gain it without a version change (older entries unindexed until
  // the log's backfill).
  `CREATE TABLE IF NOT EXISTS ${p}content_ids (id BLOB PRIMARY KEY, idx INTEGER NOT NULL)` +
  ` WITHOUT ROWID`,
  // Agents' chain heads (issue 16), additive: no schema bump; `agent_heads` in meta marks a store
  // whose heads cover the log (set at creation; after the one-time backfill for older stores).
  `CREATE TABLE IF NOT EXISTS ${p}agent_heads (did TEXT PRIMARY KEY, seq INTEGER NOT NULL,` +
  ` prev BLOB NOT NULL, idx INTEGER NOT NULL)`,
  `INSERT OR IGNORE INTO ${p}meta (k, v) SELECT 'agent_heads', 'complete'` +
  ` WHERE NOT EXISTS (SELECT 1 FROM ${p}entries)`,
];

type HeadRow =
  & { size: number; root: ArrayBuffer; ts: number; sig: ArrayBuffer; sha_root: ArrayBuffer | null }
  & Record<
    string,
    SqlValue
  >;

const bytes = (v: SqlValue): Uint8Array => {
  if (!(v instanceof ArrayBuffer)) {
    throw new LogStorageError(
      "storage-corrupt",
      `Cannot read store: expected a BLOB, got ${typeof v}`,
    );
  }
  return new Uint8Array(v);
};

const toHead = (r: HeadRow): StoredHead => ({
  size: r.size,
  root: bytes(r.root),
  timestamp: r.ts,
  signature: bytes(r.sig),
  sha256Root: r.sha_root === null || r.sha_root === undefined ? undefined : bytes(r.sha_root),
});

function operational<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof StorageConflictError || err instanceof LogStorageError) throw err;
    throw new LogStorageError(
      "storage-fault",
      `Cannot ${what}: ${(err as Error)?.message ?? err}`,
      {
        cause: err,
      },
    );
  }
}

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
 * What the R2-publishing sequencer (api/edge/r2_storage.ts, docs/EDGE.md "R2") adds to the
 * contract: a marker of how far the log is published, and pruning of what R2 now holds, so the
 * object keeps only the head, the right edge, the unpublished rounds and a dedup window.
 */
export interface DurableLogStorage extends LogStorage {
  /** The size up to which every object is in R2 (-1 for a store never published). */
  publishedSize(): Promise<number>;
  /**
   * Records that everything up to `size` is in R2, then deletes, in one transaction: heads below
   * `size`, entries below min(the last full bundle's end, size - window), and both views'
   * stored tiles whose published (height-8) tile is full at `size`. `window` >= 256.
   */
  markPublished(size: number, window: number): Promise<void>;
  /** Bytes the object's SQLite database occupies (`ctx.storage.sql.databaseSize`). */
  databaseBytes(): number;
  /** The content identities of entries `from` .. `to - 1` that have one (for R2's index). */
  contentIdsIn(from: number, to: number): Promise<{ index: number; contentId: Uint8Array }[]>;
}

/**
 * Opens the log store held in a SQLite-backed Durable Object's storage, creating its tables on
 * first use. Throws `LogStorageError("storage-schema")` for a store written by another schema.
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
  const sql = storage.sql;
  const p = opts.prefix ?? "jc_";
  if (!/^[a-z][a-z0-9_]*$/.test(p)) {
    throw new RangeError(
      `Cannot open store: table prefix ${JSON.stringify(p)} is not [a-z][a-z0-9_]*`,
    );
  }
  operational("create the log tables", () =>
    storage.transactionSync(() => {
      for (const stmt of schema(p)) sql.exec(stmt);
      const row = sql.exec<{ v: string }>(`SELECT v FROM ${p}meta WHERE k = 'schema'`).toArray()[0];
      if (row === undefined) {
        sql.exec(
          `INSERT INTO ${p}meta (k, v) VALUES ('schema', ?)`,
          String(DURABLE_SCHEMA_VERSION),
        );
      } else if (row.v === "1") {
        // 1 → 2: the SHA-256 view (its tiles and roots are backfilled by openLog). A schema-1
        // store's heads table predates the column (CREATE ... IF NOT EXISTS kept it).
        sql.exec(`ALTER TABLE ${p}heads ADD COLUMN sha_root BLOB`);
        sql.exec(
          `UPDATE ${p}meta SET v = ? WHERE k = 'schema'`,
          String(DURABLE_SCHEMA_VERSION),
        );
      } else if (row.v !== String(DURABLE_SCHEMA_VERSION)) {
        throw new LogStorageError(
          "storage-schema",
          `Cannot open store: schema version ${row.v}, this build reads ${DURABLE_SCHEMA_VERSION}`,
        );
      }
      // the content index's reach: "all" for a store created with it, else 0 until backfilled
      const reach = sql.exec(`SELECT v FROM ${p}meta WHERE k = 'content_ids_upto'`).toArray();
      if (reach.length === 0) {
        const any = sql.exec(`SELECT 1 AS x FROM ${p}entries LIMIT 1`).toArray().length > 0;
        sql.exec(`INSERT INTO ${p}meta (k, v) VALUES ('content_ids_upto', ?)`, any ? "0" : "all");
      }
    }));

  let closed = false;
  const read = <T>(what: string, fn: () => T): Promise<T> => {
    if (closed) {
      return Promise.reject(
        new LogStorageError("storage-closed", `Cannot ${what}: store is closed`),
      );
    }
    try {
      return Promise.resolve(operational(what, fn));
    } catch (err) {
      return Promise.reject(err);
    }
  };
  const putAgent = (a: AgentHead) =>
    sql.exec(
      `INSERT INTO ${p}agent_heads (did, seq, prev, idx) VALUES (?, ?, ?, ?) ON CONFLICT (did) ` +
        `DO UPDATE SET seq = excluded.seq, prev = excluded.prev, idx = excluded.idx ` +
        `WHERE excluded.idx > ${p}agent_heads.idx`,
      a.did,
      a.seq,
      a.prev,
      a.index,
    );
  const latestSize = (): number | undefined =>
    sql.exec<{ size: number }>(`SELECT size FROM ${p}heads ORDER BY size DESC LIMIT 1`).toArray()[0]
      ?.size;

  const putTiles = (table: "tiles" | "tiles256", tiles: Tile[]): void => {
    for (const t of tiles) {
      sql.exec(
        `INSERT OR REPLACE INTO ${p}${table} (level, idx, hashes) VALUES (?, ?, ?)`,
        t.level,
        t.index,
        t.hashes,
      );
    }
  };

  return {
    latestHead: () =>
      read("read the latest head", () => {
        const r =
          sql.exec<HeadRow>(`SELECT * FROM ${p}heads ORDER BY size DESC LIMIT 1`).toArray()[0];
        return r && toHead(r);
      }),
    head: (size) =>
      read("read a head", () => {
        const r = sql.exec<HeadRow>(`SELECT * FROM ${p}heads WHERE size = ?`, size).toArray()[0];
        return r && toHead(r);
      }),
    heads: (fromSize, limit) =>
      read("read heads", () =>
        sql.exec<HeadRow>(
          `SELECT * FROM ${p}heads WHERE size >= ? ORDER BY size LIMIT ?`,
          fromSize,
          limit,
        ).toArray().map(toHead)),
    entry: (index) =>
      read("read an entry", () => {
        const r =
          sql.exec<{ bytes: ArrayBuffer }>(`SELECT bytes FROM ${p}entries WHERE idx = ?`, index)
            .toArray()[0];
        return r && bytes(r.bytes);
      }),
    entries: (start, limit) =>
      read("read entries", () =>
        sql.exec<{ bytes: ArrayBuffer }>(
          `SELECT bytes FROM ${p}entries WHERE idx >= ? ORDER BY idx LIMIT ?`,
          start,
          limit,
        ).toArray().map((r) => bytes(r.bytes))),
    tile: (level, index, view) =>
      read("read a tile", () => {
        const r = sql.exec<{ hashes: ArrayBuffer }>(
          `SELECT hashes FROM ${p}${
            view === "sha256" ? "tiles256" : "tiles"
          } WHERE level = ? AND idx = ?`,
          level,
          index,
        ).toArray()[0];
        return r && bytes(r.hashes);
      }),
    tileRange: (level, start, count, view) =>
      read("read tiles", () => {
        const out: (Uint8Array | undefined)[] = new Array(count).fill(undefined);
        const rows = sql.exec<{ idx: number; hashes: ArrayBuffer }>(
          `SELECT idx, hashes FROM ${p}${view === "sha256" ? "tiles256" : "tiles"}` +
            " WHERE level = ? AND idx >= ? AND idx < ?",
          level,
          start,
          start + count,
        ).toArray();
        for (const r of rows) out[r.idx - start] = bytes(r.hashes);
        return out;
      }),
    leafCandidates: (leafHash) =>
      read(
        "look up a leaf hash",
        () =>
          sql.exec<{ idx: number }>(`SELECT idx FROM ${p}entries WHERE leaf = ?`, leafHash)
            .toArray()
            .map((r) => r.idx),
      ),
    contentIndex: (ids) =>
      read(
        "look up content identities",
        () =>
          ids.map((id) =>
            sql.exec<{ idx: number }>(`SELECT idx FROM ${p}content_ids WHERE id = ?`, id)
              .toArray()[0]?.idx
          ),
      ),
    contentIndexReach: () =>
      read("read the content index reach", () => {
        const v = sql.exec<{ v: string }>(
          `SELECT v FROM ${p}meta WHERE k = 'content_ids_upto'`,
        ).toArray()[0]?.v ?? "all";
        return v === "all" ? "all" : Number(v);
      }),
    backfillContentIndex: (rows, reach) =>
      read("backfill the content index", () =>
        storage.transactionSync(() => {
          for (const r of rows) {
            sql.exec(
              `INSERT OR IGNORE INTO ${p}content_ids (id, idx) VALUES (?, ?)`,
              r.contentId,
              r.index,
            );
          }
          sql.exec(`UPDATE ${p}meta SET v = ? WHERE k = 'content_ids_upto'`, String(reach));
        })),
    commitBatch: (batch) =>
      read("commit batch", () =>
        storage.transactionSync(() => {
          checkBatchExtends(batch, latestSize());
          for (const e of batch.entries) {
            // docs/STORAGE.md: the leaf index is unique; a stored leaf hash refuses the batch.
            const dup = sql.exec(`SELECT idx FROM ${p}entries WHERE leaf = ?`, e.leafHash)
              .toArray();
            if (dup.length) {
              throw new StorageConflictError(
                `Cannot commit batch: the leaf hash of entry ${e.index} is already stored`,
              );
            }
            sql.exec(
              `INSERT INTO ${p}entries (idx, leaf, bytes) VALUES (?, ?, ?)`,
              e.index,
              e.leafHash,
              e.bytes,
            );
            if (e.contentId) {
              // unique: a second entry of one signed content fails the whole transaction
              sql.exec(
                `INSERT INTO ${p}content_ids (id, idx) VALUES (?, ?)`,
                e.contentId,
                e.index,
              );
            }
          }
          putTiles("tiles", batch.tiles);
          putTiles("tiles256", batch.sha256Tiles);
          const h = batch.head;
          sql.exec(
            `INSERT INTO ${p}heads (size, root, ts, sig, sha_root) VALUES (?, ?, ?, ?, ?)`,
            h.size,
            h.root,
            h.timestamp,
            h.signature,
            h.sha256Root ?? null,
          );
          for (const a of batch.agents ?? []) putAgent(a);
          opts.beforeCommitEnd?.(batch);
        })),
    agentHead: (did) =>
      read("read an agent's chain head", () => {
        const r = sql.exec<{ did: string; seq: number; prev: ArrayBuffer; idx: number }>(
          `SELECT did, seq, prev, idx FROM ${p}agent_heads WHERE did = ?`,
          did,
        ).toArray()[0];
        return r && { did: r.did, seq: r.seq, prev: bytes(r.prev), index: r.idx };
      }),
    agentHeadsComplete: () =>
      read(
        "read the agent heads' mark",
        () => sql.exec(`SELECT v FROM ${p}meta WHERE k = 'agent_heads'`).toArray().length > 0,
      ),
    putAgentHeads: (heads, complete) =>
      read("write agents' chain heads", () =>
        storage.transactionSync(() => {
          for (const a of heads) putAgent(a);
          if (complete) {
            sql.exec(`INSERT OR REPLACE INTO ${p}meta (k, v) VALUES ('agent_heads', 'complete')`);
          }
        })),
    commitViewBackfill: (b: ViewBackfill) =>
      read("migrate the SHA-256 view", () =>
        storage.transactionSync(() => {
          putTiles("tiles256", b.sha256Tiles);
          for (const r of b.roots) {
            sql.exec(`UPDATE ${p}heads SET sha_root = ? WHERE size = ?`, r.sha256Root, r.size);
          }
        })),
    logName: () =>
      read(
        "read the log name",
        () =>
          sql.exec<{ v: string }>(`SELECT v FROM ${p}meta WHERE k = 'log_name'`).toArray()[0]?.v,
      ),
    setLogName: (name: string) =>
      read("name the log", () =>
        storage.transactionSync(() => {
          const old = sql.exec<{ v: string }>(`SELECT v FROM ${p}meta WHERE k = 'log_name'`)
            .toArray()[0]?.v;
          if (old !== undefined && old !== name) {
            throw new StorageConflictError(`Cannot name the log ${name}: it is named ${old}`);
          }
          if (old === undefined) {
            sql.exec(`INSERT INTO ${p}meta (k, v) VALUES ('log_name', ?)`, name);
          }
        })),
    publishedSize: () =>
      read(
        "read the published size",
        () =>
          Number(
            sql.exec<{ v: string }>(`SELECT v FROM ${p}meta WHERE k = 'published'`).toArray()[0]
              ?.v ?? -1,
          ),
      ),
    markPublished: (size: number, window: number) =>
      read("mark the log published", () =>
        storage.transactionSync(() => {
          if (window < 256) throw new RangeError("Cannot prune: the dedup window is < 256");
          sql.exec(`INSERT OR REPLACE INTO ${p}meta (k, v) VALUES ('published', ?)`, String(size));
          sql.exec(`DELETE FROM ${p}heads WHERE size < ?`, size);
          const keepFrom = Math.min(Math.floor(size / 256) * 256, size - window);
          if (keepFrom > 0) {
            sql.exec(`DELETE FROM ${p}entries WHERE idx < ?`, keepFrom);
            sql.exec(`DELETE FROM ${p}content_ids WHERE idx < ?`, keepFrom);
          }
          for (const table of ["tiles", "tiles256"]) {
            // Published tile level L is stored levels 2L (16 stored tiles per published tile)
            // and 2L+1 (one stored tile per published tile); full ones are in R2.
            for (let l = 0, c = size; c >= 256; l++, c = Math.floor(c / 256)) {
              const full = Math.floor(c / 256);
              sql.exec(`DELETE FROM ${p}${table} WHERE level = ? AND idx < ?`, 2 * l, 16 * full);
              sql.exec(`DELETE FROM ${p}${table} WHERE level = ? AND idx < ?`, 2 * l + 1, full);
            }
          }
        })),
    databaseBytes: () => sql.databaseSize,
    contentIdsIn: (from: number, to: number) =>
      read("read content identities", () =>
        sql.exec<{ id: ArrayBuffer; idx: number }>(
          `SELECT id, idx FROM ${p}content_ids WHERE idx >= ? AND idx < ? ORDER BY idx`,
          from,
          to,
        ).toArray().map((r) => ({ index: r.idx, contentId: bytes(r.id) }))),
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
}
