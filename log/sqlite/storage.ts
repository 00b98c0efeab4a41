// SQLite backend of the log's storage contract (log/storage.ts, docs/STORAGE.md) on `node:sqlite`
// (Deno and Node): WAL journal with synchronous=FULL, so a committed batch survives power loss
// (SQLite "PRAGMA synchronous": FULL syncs the WAL on every commit). One file, four tables; the
// leaf index keys the first 6 bytes of the leaf hash (candidates are confirmed against the
// level-0 tile), which keeps the per-entry overhead under 100 bytes (docs/DECISIONS.md). The leaf
// index lags: the newest entries' prefixes are held in memory (log/sqlite/leaf_tail.ts, rebuilt on
// open from the level-0 tiles, the durable truth) and written to `leaves` in one sorted insert per
// `leafIndexLag` entries, inside a batch's transaction (docs/STORAGE.md "Lagging leaf index").
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import {
  type Batch,
  checkBatchExtends,
  leafPrefix,
  type LogStorage,
  LogStorageError,
  StorageConflictError,
  type StoredHead,
  type ViewBackfill,
} from "../mod.ts";
import { LeafTail } from "./leaf_tail.ts";

/** Schema version written to `meta`; another version is refused, never guessed at. */
export const SQLITE_SCHEMA_VERSION = "3";

/** Default of `leafIndexLag`: entries held in memory before the leaf index is flushed. */
export const LEAF_INDEX_LAG = 65_536;

/** Options of `openSqliteStorage`. */
export interface SqliteStorageOptions {
  /**
   * Most entries whose leaf-index rows are held in memory (rebuilt from the level-0 tiles on
   * open) before one sorted flush to the `leaves` table; 0 writes them with every batch.
   */
  leafIndexLag?: number;
}

// Largest level-0 tile id + 1 (tile ids are level·2^48 + index).
const LEVEL1 = 2 ** 48;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (idx INTEGER PRIMARY KEY, bytes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS leaves (lp INTEGER NOT NULL, idx INTEGER NOT NULL, PRIMARY KEY (lp, idx)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tiles (id INTEGER PRIMARY KEY, hashes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS tiles256 (id INTEGER PRIMARY KEY, hashes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS heads (size INTEGER PRIMARY KEY, root BLOB NOT NULL, ts INTEGER NOT NULL, sig BLOB NOT NULL, sha_root BLOB);
CREATE TABLE IF NOT EXISTS content_ids (id BLOB PRIMARY KEY, idx INTEGER NOT NULL) WITHOUT ROWID;
`;
// content_ids (docs/DECISIONS.md "One entry per signed content"): content identity → index,
// unique; created when absent, so an older store gains it on open (its reach then starts at 0 and
// the log's backfill completes it).

/**
 * Schema migrations on open, each in one transaction (docs/STORAGE.md "Migration"): 1 → 2 adds
 * `leaves_upto` (the lagging leaf index; schema 1 had every entry in `leaves`); 2 → 3 adds the
 * SHA-256 view (`tiles256`, `heads.sha_root`), whose tiles and roots `openLog` then backfills
 * from the entries (log/view_backfill.ts). A new store is written at the current version.
 */
function migrate(db: DatabaseSync, from: string | undefined): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    if (from === undefined || from === "1") {
      db.exec(
        "INSERT OR REPLACE INTO meta (k, v) SELECT 'leaves_upto', coalesce(max(idx) + 1, 0) FROM entries",
      );
    }
    if (from !== undefined) {
      const cols = db.prepare("SELECT name FROM pragma_table_info('heads')").all() as Row[];
      if (!cols.some((c) => c.name === "sha_root")) {
        db.exec("ALTER TABLE heads ADD COLUMN sha_root BLOB");
      }
    }
    db.prepare("INSERT OR REPLACE INTO meta (k, v) VALUES ('schema', ?)").run(
      SQLITE_SCHEMA_VERSION,
    );
    db.exec("COMMIT");
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}

/** Tile (level, index) as one integer key: level·2^48 + index (exact below 2^53). */
const tileId = (level: number, index: number) => level * 2 ** 48 + index;

type Row = Record<string, unknown>;

/** Rows per multi-row INSERT (2·ROWS bound parameters, far below SQLite's limit of 32,766). */
const ROWS = 64;

/** Runs `many` (ROWS rows a call) then `one` over the flat (a, b) pairs in `args`. */
function insertPairs(many: StatementSync, one: StatementSync, args: SQLInputValue[]): void {
  const full = args.length - (args.length % (2 * ROWS));
  for (let off = 0; off < full; off += 2 * ROWS) many.run(...args.slice(off, off + 2 * ROWS));
  for (let off = full; off < args.length; off += 2) one.run(args[off], args[off + 1]);
}

const toHead = (r: Row): StoredHead => ({
  size: r.size as number,
  root: r.root as Uint8Array,
  timestamp: r.ts as number,
  signature: r.sig as Uint8Array,
  sha256Root: (r.sha_root as Uint8Array | null) ?? undefined,
});

function operational<T>(what: string, fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    if (err instanceof StorageConflictError || err instanceof LogStorageError) {
      return Promise.reject(err);
    }
    return Promise.reject(
      new LogStorageError("storage-fault", `Cannot ${what}: ${(err as Error)?.message ?? err}`, {
        cause: err,
      }),
    );
  }
}

/** The SQLite store, with the raw database for benchmarks and tests. */
export interface SqliteStorage extends LogStorage {
  readonly db: DatabaseSync;
  readonly path: string;
}

/**
 * Opens (creating when absent) the log store in the SQLite file at `path`.
 *
 * @example
 * ```ts
 * const store = openSqliteStorage("./data/log.sqlite");
 * ```
 */
export function openSqliteStorage(path: string, o: SqliteStorageOptions = {}): SqliteStorage {
  const lag = o.leafIndexLag ?? LEAF_INDEX_LAG;
  if (!Number.isSafeInteger(lag) || lag < 0) {
    throw new RangeError(`Cannot open log store: leafIndexLag must be an integer >= 0, got ${lag}`);
  }
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = FULL"); // durable commits: fsync the WAL at every COMMIT
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec(SCHEMA);
  } catch (err) {
    throw new LogStorageError(
      "storage-open",
      `Cannot open log store ${path}: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  const version = db.prepare("SELECT v FROM meta WHERE k = 'schema'").get() as Row | undefined;
  if (version === undefined || version.v === "1" || version.v === "2") {
    try {
      migrate(db, version?.v as string | undefined);
    } catch (err) {
      db.close();
      throw new LogStorageError(
        "storage-schema",
        `Cannot open log store ${path}: migrating schema ${version?.v} failed: ${
          (err as Error).message
        }`,
        { cause: err },
      );
    }
  } else if (version.v !== SQLITE_SCHEMA_VERSION) {
    db.close();
    throw new LogStorageError(
      "storage-schema",
      `Cannot open log store ${path}: schema version ${version.v}, this build reads ${SQLITE_SCHEMA_VERSION}`,
    );
  }
  // The content index's reach (docs/DECISIONS.md "One entry per signed content"): "all" for a store
  // created with it; for an older store with entries, 0 until the log's backfill completes it.
  if (db.prepare("SELECT v FROM meta WHERE k = 'content_ids_upto'").get() === undefined) {
    const any = db.prepare("SELECT 1 AS x FROM entries LIMIT 1").get() !== undefined;
    db.prepare("INSERT INTO meta (k, v) VALUES ('content_ids_upto', ?)").run(any ? "0" : "all");
  }
  const q = (sql: string): StatementSync => db.prepare(sql);
  const s = {
    latest: q("SELECT size, root, ts, sig, sha_root FROM heads ORDER BY size DESC LIMIT 1"),
    head: q("SELECT size, root, ts, sig, sha_root FROM heads WHERE size = ?"),
    heads: q(
      "SELECT size, root, ts, sig, sha_root FROM heads WHERE size >= ? ORDER BY size LIMIT ?",
    ),
    entry: q("SELECT bytes FROM entries WHERE idx = ?"),
    entries: q("SELECT bytes FROM entries WHERE idx >= ? ORDER BY idx LIMIT ?"),
    tile: q("SELECT hashes FROM tiles WHERE id = ?"),
    tile256: q("SELECT hashes FROM tiles256 WHERE id = ?"),
    tileRange: q("SELECT id, hashes FROM tiles WHERE id >= ? AND id < ?"),
    tileRange256: q("SELECT id, hashes FROM tiles256 WHERE id >= ? AND id < ?"),
    leaf: q("SELECT idx FROM leaves WHERE lp = ?"),
    // One statement for a whole batch: the prefixes as a JSON array, answered by index lookups.
    leafMany: q(
      "SELECT j.key AS k, l.idx AS idx FROM json_each(?) j JOIN leaves l ON l.lp = j.value",
    ),
    insEntry: q("INSERT INTO entries (idx, bytes) VALUES (?, ?)"),
    insLeaf: q("INSERT INTO leaves (lp, idx) VALUES (?, ?)"),
    // ROWS rows per statement: one call into SQLite instead of ROWS (the per-call cost dominates)
    insEntries: q(`INSERT INTO entries (idx, bytes) VALUES ${"(?, ?), ".repeat(ROWS - 1)}(?, ?)`),
    insLeaves: q(`INSERT INTO leaves (lp, idx) VALUES ${"(?, ?), ".repeat(ROWS - 1)}(?, ?)`),
    // One snapshot of how far `leaves` and the log reach (the tail between them is in memory).
    reach: q(
      "SELECT (SELECT CAST(v AS INTEGER) FROM meta WHERE k = 'leaves_upto') AS upto, " +
        "(SELECT max(size) FROM heads) AS size",
    ),
    setUpto: q("UPDATE meta SET v = ? WHERE k = 'leaves_upto'"),
    leafTiles: q("SELECT id, hashes FROM tiles WHERE id >= ? AND id <= ? ORDER BY id"),
    putTile: q("INSERT OR REPLACE INTO tiles (id, hashes) VALUES (?, ?)"),
    putTile256: q("INSERT OR REPLACE INTO tiles256 (id, hashes) VALUES (?, ?)"),
    insHead: q("INSERT INTO heads (size, root, ts, sig, sha_root) VALUES (?, ?, ?, ?, ?)"),
    setShaRoot: q("UPDATE heads SET sha_root = ? WHERE size = ?"),
    getName: q("SELECT v FROM meta WHERE k = 'log_name'"),
    setName: q("INSERT INTO meta (k, v) VALUES ('log_name', ?)"),
    contentId: q("SELECT idx FROM content_ids WHERE id = ?"),
    insContentId: q("INSERT INTO content_ids (id, idx) VALUES (?, ?)"),
    insContentIds: q(
      `INSERT INTO content_ids (id, idx) VALUES ${"(?, ?), ".repeat(ROWS - 1)}(?, ?)`,
    ),
    backfillContentId: q("INSERT OR IGNORE INTO content_ids (id, idx) VALUES (?, ?)"),
    contentReach: q("SELECT v FROM meta WHERE k = 'content_ids_upto'"),
    setContentReach: q("UPDATE meta SET v = ? WHERE k = 'content_ids_upto'"),
  };
  let closed = false;
  const tail = new LeafTail(0);
  /**
   * Brings the in-memory tail up to the store: rebuilt when `leaves` moved (another connection
   * flushed), extended from the level-0 tiles by entries committed since. An entry whose leaf
   * hash is missing from the tiles (a damaged store) gets no prefix; fsck reports it.
   */
  const syncTail = (): void => {
    const r = s.reach.get() as Row;
    const upto = Number(r.upto ?? 0), size = Number(r.size ?? 0);
    if (upto !== tail.base || tail.base + tail.size > size) tail.reset(upto);
    const from = tail.base + tail.size;
    if (from >= size) return;
    const rows = s.leafTiles.all(
      Math.floor(from / 16),
      Math.min(LEVEL1 - 1, Math.floor((size - 1) / 16)),
    ) as Row[];
    const byId = new Map(rows.map((t) => [t.id as number, t.hashes as Uint8Array]));
    for (let i = from; i < size; i++) {
      const b = byId.get(Math.floor(i / 16));
      const off = (i % 16) * 32;
      tail.push(b && b.length >= off + 32 ? leafPrefix(b.subarray(off, off + 32)) : -1);
    }
  };
  syncTail();
  const storedLeaf = (index: number): Uint8Array | undefined => {
    const t = s.tile.get(tileId(0, Math.floor(index / 16))) as Row | undefined;
    const b = t?.hashes as Uint8Array | undefined;
    const off = (index % 16) * 32;
    return b && b.length >= off + 32 ? b.subarray(off, off + 32) : undefined;
  };
  const same = (a: Uint8Array, b: Uint8Array) => {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  };
  /** Candidates of many leaf-hash prefixes with one statement ([k] answers prefixes[k]). */
  // Most entries have no candidate: they share one frozen empty list (a push into it throws).
  const NONE = Object.freeze([]) as unknown as number[];
  const candidatesMany = (prefixes: number[]): number[][] => {
    const out: number[][] = new Array(prefixes.length).fill(NONE);
    if (prefixes.length === 0) return out;
    const rows = s.leafMany.all(JSON.stringify(prefixes)) as Row[];
    const add = (k: number, i: number) => (out[k] === NONE ? (out[k] = [i]) : out[k].push(i));
    for (const r of rows) add(r.k as number, r.idx as number);
    for (let k = 0; k < prefixes.length; k++) {
      if (tail.has(prefixes[k])) {
        tail.candidates(prefixes[k], out[k] === NONE ? (out[k] = []) : out[k]);
      }
    }
    return out;
  };
  return {
    db,
    path,
    latestHead: () =>
      operational("read latest head", () => {
        const r = s.latest.get() as Row | undefined;
        return r && toHead(r);
      }),
    head: (size) =>
      operational("read head", () => {
        const r = s.head.get(size) as Row | undefined;
        return r && toHead(r);
      }),
    heads: (fromSize, limit) =>
      operational("read heads", () => (s.heads.all(fromSize, limit) as Row[]).map(toHead)),
    entry: (index) =>
      operational(
        "read entry",
        () => (s.entry.get(index) as Row | undefined)?.bytes as Uint8Array | undefined,
      ),
    entries: (start, limit) =>
      operational(
        "read entries",
        () => (s.entries.all(start, limit) as Row[]).map((r) => r.bytes as Uint8Array),
      ),
    tile: (level, index, view) =>
      operational(
        "read tile",
        () =>
          ((view === "sha256" ? s.tile256 : s.tile).get(tileId(level, index)) as Row | undefined)
            ?.hashes as Uint8Array | undefined,
      ),
    tileRange: (level, start, count, view) =>
      operational("read tiles", () => {
        const out: (Uint8Array | undefined)[] = new Array(count).fill(undefined);
        const first = tileId(level, start);
        const rows = (view === "sha256" ? s.tileRange256 : s.tileRange)
          .all(first, first + count) as Row[];
        for (const r of rows) out[(r.id as number) - first] = r.hashes as Uint8Array;
        return out;
      }),
    leafCandidates: (leafHash) =>
      operational("read leaf index", () => {
        syncTail();
        const lp = leafPrefix(leafHash);
        const out = (s.leaf.all(lp) as Row[]).map((r) => r.idx as number);
        tail.candidates(lp, out);
        return out;
      }),
    leafCandidatesMany: (leafHashes) =>
      operational("read leaf index", () => {
        syncTail();
        return candidatesMany(leafHashes.map(leafPrefix));
      }),
    contentIndex: (ids) =>
      operational(
        "read content index",
        () => ids.map((id) => (s.contentId.get(id) as Row | undefined)?.idx as number | undefined),
      ),
    contentIndexReach: () =>
      operational("read content index reach", () => {
        const v = String((s.contentReach.get() as Row | undefined)?.v ?? "all");
        return v === "all" ? "all" : Number(v);
      }),
    backfillContentIndex: (rows, reach) =>
      operational("backfill content index", () => {
        db.exec("BEGIN IMMEDIATE");
        try {
          for (const r of rows) s.backfillContentId.run(r.contentId, r.index); // first one wins
          s.setContentReach.run(String(reach));
          db.exec("COMMIT");
        } catch (err) {
          db.exec("ROLLBACK");
          throw err;
        }
      }),
    commitBatch: (batch: Batch) =>
      operational("commit batch", () => {
        db.exec("BEGIN IMMEDIATE");
        try {
          const latest = s.latest.get() as Row | undefined;
          checkBatchExtends(batch, latest?.size as number | undefined);
          syncTail();
          const prefixes = batch.entries.map((e) => leafPrefix(e.leafHash));
          // The leaf index is unique (docs/STORAGE.md): confirm prefix hits against the tile.
          const stored = candidatesMany(prefixes);
          // prefix → the leaf hash(es) of this batch with that prefix (a list only on collision)
          const seen = new Map<number, Uint8Array | Uint8Array[]>();
          const rowArgs: SQLInputValue[] = [];
          for (let k = 0; k < batch.entries.length; k++) {
            const e = batch.entries[k];
            for (const i of stored[k]) {
              const old = storedLeaf(i);
              if (old && same(old, e.leafHash)) {
                throw new StorageConflictError(
                  `Cannot commit batch: entry ${e.index} is already stored at ${i}`,
                );
              }
            }
            const lp = prefixes[k];
            const twins = seen.get(lp);
            if (twins === undefined) seen.set(lp, e.leafHash);
            else {
              const list = twins instanceof Uint8Array ? [twins] : twins;
              if (list.some((x) => same(x, e.leafHash))) {
                throw new StorageConflictError("Cannot commit batch: an entry is in it twice");
              }
              list.push(e.leafHash);
              seen.set(lp, list);
            }
            rowArgs.push(e.index, e.bytes);
          }
          insertPairs(s.insEntries, s.insEntry, rowArgs);
          const idArgs: SQLInputValue[] = [];
          for (const e of batch.entries) if (e.contentId) idArgs.push(e.contentId, e.index);
          insertPairs(s.insContentIds, s.insContentId, idArgs); // unique: a twin fails the batch
          for (const t of batch.tiles) s.putTile.run(tileId(t.level, t.index), t.hashes);
          for (const t of batch.sha256Tiles) s.putTile256.run(tileId(t.level, t.index), t.hashes);
          const h = batch.head;
          s.insHead.run(h.size, h.root, h.timestamp, h.signature, h.sha256Root ?? null);
          // Lagging leaf index: once the tail would exceed `lag`, the tail and this batch go to
          // `leaves` in key order (each index page written once), in this same transaction.
          const flush = tail.size + batch.entries.length > lag;
          if (flush) {
            const rows = tail.sorted();
            batch.entries.forEach((e, k) => rows.push({ prefix: prefixes[k], index: e.index }));
            rows.sort((a, b) => a.prefix - b.prefix || a.index - b.index);
            const leafArgs: SQLInputValue[] = [];
            for (const r of rows) if (r.prefix >= 0) leafArgs.push(r.prefix, r.index);
            insertPairs(s.insLeaves, s.insLeaf, leafArgs);
            s.setUpto.run(String(h.size));
          }
          db.exec("COMMIT");
          if (flush) tail.reset(h.size);
          else for (const lp of prefixes) tail.push(lp);
        } catch (err) {
          db.exec("ROLLBACK");
          throw err;
        }
      }),
    commitViewBackfill: (b: ViewBackfill) =>
      operational("migrate the SHA-256 view", () => {
        db.exec("BEGIN IMMEDIATE");
        try {
          for (const t of b.sha256Tiles) s.putTile256.run(tileId(t.level, t.index), t.hashes);
          for (const r of b.roots) s.setShaRoot.run(r.sha256Root, r.size);
          db.exec("COMMIT");
        } catch (err) {
          db.exec("ROLLBACK");
          throw err;
        }
      }),
    logName: () =>
      operational("read the log name", () => (s.getName.get() as Row | undefined)?.v as string),
    setLogName: (name: string) =>
      operational("name the log", () => {
        db.exec("BEGIN IMMEDIATE");
        try {
          const old = (s.getName.get() as Row | undefined)?.v as string | undefined;
          if (old !== undefined && old !== name) {
            throw new StorageConflictError(`Cannot name the log ${name}: it is named ${old}`);
          }
          if (old === undefined) s.setName.run(name);
          db.exec("COMMIT");
        } catch (err) {
          db.exec("ROLLBACK");
          throw err;
        }
      }),
    close: () =>
      operational("close store", () => {
        if (!closed) db.close();
        closed = true;
      }),
  };
}
