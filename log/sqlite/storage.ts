// SQLite backend of the log's storage contract (log/storage.ts, docs/STORAGE.md) on `node:sqlite`
// (Deno and Node): WAL journal with synchronous=NORMAL and our own fdatasync of the WAL after each
// commit, before it is acknowledged (FULL's guarantee, off the event loop; docs/STORAGE.md
// "Durability off the event loop"), so a committed batch survives power loss. One file; the
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
  type Tile,
  type TreeView,
  type ViewBackfill,
} from "../mod.ts";
import { dirname } from "node:path";
import { LeafTail } from "./leaf_tail.ts";

/** Schema version written to `meta`; another version is refused, never guessed at. */
export const SQLITE_SCHEMA_VERSION = "4";

/** Default of `leafIndexLag`: entries held in memory before the leaf index is flushed. */
export const LEAF_INDEX_LAG = 65_536;

/** Options of `openSqliteStorage`. */
export interface SqliteStorageOptions {
  /**
   * Most entries whose leaf-index rows are held in memory (rebuilt from the level-0 tiles on
   * open) before one sorted flush to the `leaves` table; 0 writes them with every batch.
   */
  leafIndexLag?: number;
  /**
   * How long one read transaction of the tile-group reader may serve (default
   * GROUP_SNAPSHOT_MS, GROUP_READS_PER_SNAPSHOT reads): whichever comes first ends it.
   */
  groupSnapshot?: { ms: number; reads: number };
}

// Largest level-0 tile id + 1 (tile ids are level·2^48 + index).
const LEVEL1 = 2 ** 48;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (idx INTEGER PRIMARY KEY, bytes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS leaves (lp INTEGER NOT NULL, idx INTEGER NOT NULL, PRIMARY KEY (lp, idx)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tiles (id INTEGER PRIMARY KEY, hashes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS tiles256 (id INTEGER PRIMARY KEY, hashes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS tile_groups (id INTEGER PRIMARY KEY, hashes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS tile_groups256 (id INTEGER PRIMARY KEY, hashes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS heads (size INTEGER PRIMARY KEY, root BLOB NOT NULL, ts INTEGER NOT NULL, sig BLOB NOT NULL, sha_root BLOB);
CREATE TABLE IF NOT EXISTS content_ids (id BLOB PRIMARY KEY, idx INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS agent_heads (did TEXT PRIMARY KEY, seq INTEGER NOT NULL, prev BLOB NOT NULL, idx INTEGER NOT NULL);
`;
// content_ids (docs/DECISIONS.md "One entry per signed content"): content identity → index,
// unique; created when absent, so an older store gains it on open (its reach then starts at 0 and
// the log's backfill completes it).

/**
 * Schema migrations on open, each in one transaction (docs/STORAGE.md "Migration"): 1 → 2 adds
 * `leaves_upto` (the lagging leaf index; schema 1 had every entry in `leaves`); 2 → 3 adds the
 * SHA-256 view (`tiles256`, `heads.sha_root`), whose tiles and roots `openLog` then backfills
 * from the entries (log/view_backfill.ts); 3 → 4 stores every 16 full tiles of a level that
 * make one published tile as one row (`tile_groups`, `tile_groups256`; docs/STORAGE.md "Tile
 * groups"). A new store is written at the current version.
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
      for (const view of ["blake3", "sha256"] as const) {
        const { tiles } = TABLES[view];
        const group = tileGrouper(db, view);
        const full = db.prepare(
          `SELECT id / ${GROUP} AS g FROM ${tiles} GROUP BY id / ${GROUP} ` +
            `HAVING count(*) = ${GROUP} AND min(length(hashes)) = ${FULL_TILE}`,
        ).all() as Row[];
        for (const r of full) group(Number(r.g) * GROUP);
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

/** Tiles per group: the 16 tiles of one level that make one published (height-8) tile. */
const GROUP = 16;
/** Bytes of a full tile (16 hashes). */
const FULL_TILE = 16 * 32;
/** Each view's tables: its tiles and its groups of 16 full tiles (id: tileId(level, group)). */
const TABLES = {
  blake3: { tiles: "tiles", groups: "tile_groups" },
  sha256: { tiles: "tiles256", groups: "tile_groups256" },
} as const;

/**
 * Moves a group of 16 full tiles into one row (docs/STORAGE.md "Tile groups"): given the id of
 * the group's first tile, writes their concatenation to the view's group table and deletes the
 * 16 rows, in the caller's transaction. False (nothing changed) unless all 16 are stored full.
 */
function tileGrouper(db: DatabaseSync, view: TreeView): (first: number) => boolean {
  const t = TABLES[view];
  const read = db.prepare(`SELECT hashes FROM ${t.tiles} WHERE id >= ? AND id < ? ORDER BY id`);
  const put = db.prepare(`INSERT OR REPLACE INTO ${t.groups} (id, hashes) VALUES (?, ?)`);
  const drop = db.prepare(`DELETE FROM ${t.tiles} WHERE id >= ? AND id < ?`);
  return (first) => {
    const rows = read.all(first, first + GROUP) as Row[];
    if (rows.length !== GROUP) return false;
    const out = new Uint8Array(GROUP * FULL_TILE);
    for (let k = 0; k < GROUP; k++) {
      const h = rows[k].hashes as Uint8Array;
      if (h.length !== FULL_TILE) return false;
      out.set(h, k * FULL_TILE);
    }
    const level = Math.floor(first / 2 ** 48);
    put.run(tileId(level, (first - tileId(level, 0)) / GROUP), out);
    drop.run(first, first + GROUP);
    return true;
  };
}

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

/** Lets a timer not keep the process alive (Deno: Deno.unrefTimer; Node: Timeout.unref). */
function unref(t: ReturnType<typeof setTimeout>): void {
  const deno = (globalThis as { Deno?: { unrefTimer(id: number): void } }).Deno;
  if (deno) deno.unrefTimer(Number(t));
  else (t as unknown as { unref?: () => void }).unref?.();
}

/** Published-tile reads one read transaction serves at most (the snapshot's age, by count). */
const GROUP_READS_PER_SNAPSHOT = 256;
/** Milliseconds a group-read snapshot is kept at most. */
const GROUP_SNAPSHOT_MS = 2;

/**
 * Reads tile groups on its own read-only connection, many reads per read transaction
 * (docs/STORAGE.md "Tile groups"): beginning and ending a WAL read transaction costs more than
 * the read (measured 7.3-10.2 µs a read alone, 4.9-5.8 µs inside one). A snapshot is ended after
 * GROUP_READS_PER_SNAPSHOT reads or GROUP_SNAPSHOT_MS, whichever first, so it never holds back
 * a checkpoint for longer. A group is immutable once written, so an old snapshot can only lack a
 * group committed since: the caller then reads the tiles through the store's own connection.
 */
class GroupReader {
  #db: DatabaseSync | undefined;
  #limit: { ms: number; reads: number };
  #stmts: StatementSync[] = [];
  #reads = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(readonly path: string, limit?: { ms: number; reads: number }) {
    this.#limit = limit ?? { ms: GROUP_SNAPSHOT_MS, reads: GROUP_READS_PER_SNAPSHOT };
  }

  read(view: 0 | 1, id: number): Uint8Array | undefined {
    if (this.#closed) throw new Error("the store is closed");
    if (!this.#db) {
      const db = this.#db = new DatabaseSync(this.path, { readOnly: true });
      db.exec("PRAGMA mmap_size = 1073741824");
      this.#stmts = (["blake3", "sha256"] as const).map((v) => {
        const st = db.prepare(`SELECT hashes FROM ${TABLES[v].groups} WHERE id = ?`);
        (st as unknown as { setReturnArrays(on: boolean): void }).setReturnArrays(true); // no row object
        return st;
      });
    }
    if (this.#reads === 0) {
      if (!this.#db.isTransaction) this.#db.exec("BEGIN");
      this.#timer = setTimeout(() => this.#end(), this.#limit.ms);
      unref(this.#timer); // never what keeps a process alive
    }
    try {
      return (this.#stmts[view].get(id) as unknown[] | undefined)?.[0] as Uint8Array | undefined;
    } finally {
      if (++this.#reads >= this.#limit.reads) this.#end();
    }
  }

  #end(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#reads === 0) return;
    this.#reads = 0;
    // Ending a read transaction does not fail in practice; should it, the connection is dropped
    // (the next read opens another) rather than the error reaching the timer that called this.
    try {
      if (this.#db?.isTransaction) this.#db.exec("COMMIT");
    } catch {
      try {
        this.#db?.close();
      } catch { /* already unusable */ }
      this.#db = undefined;
    }
  }

  close(): void {
    this.#end();
    this.#closed = true;
    this.#db?.close();
    this.#db = undefined;
  }
}

/** SQLite's primary result codes for a damaged file: SQLITE_CORRUPT, SQLITE_NOTADB. */
const DAMAGED = new Set([11, 26]);

/**
 * True when `e` (or an error it wraps) is SQLite saying the file is damaged ("database disk
 * image is malformed", "file is not a database"): node:sqlite's `errcode`, extended codes too.
 */
export function sqliteDamaged(e: unknown): boolean {
  for (let x = e, depth = 0; x instanceof Error && depth < 8; x = x.cause, depth++) {
    const code = (x as { errcode?: unknown }).errcode;
    if (typeof code === "number" && DAMAGED.has(code & 0xff)) return true;
  }
  return false;
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
    // COMMIT writes the WAL without syncing it; every commit is then made durable by an
    // fdatasync of the WAL file off the event loop (`durable` below), before anything in it is
    // acknowledged: FULL's guarantee, without stopping every other request for the fsync.
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA mmap_size = 1073741824");
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
  if (version === undefined || version.v === "1" || version.v === "2" || version.v === "3") {
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
  // Agents' chain heads (issue 16): a store created with the table is complete from its first
  // write; one written before it (entries, no mark) is backfilled once by the log (`agent_heads`
  // in `meta` says "complete" afterwards). No schema bump: the table and the mark are additive.
  db.exec(
    "INSERT OR IGNORE INTO meta (k, v) SELECT 'agent_heads', 'complete' WHERE NOT EXISTS (SELECT 1 FROM entries)",
  );
  const q = (sql: string): StatementSync => db.prepare(sql);
  const s = {
    latest: q("SELECT size, root, ts, sig, sha_root FROM heads ORDER BY size DESC LIMIT 1"),
    head: q("SELECT size, root, ts, sig, sha_root FROM heads WHERE size = ?"),
    heads: q(
      "SELECT size, root, ts, sig, sha_root FROM heads WHERE size >= ? ORDER BY size LIMIT ?",
    ),
    entry: q("SELECT bytes FROM entries WHERE idx = ?"),
    entries: q("SELECT idx, bytes FROM entries WHERE idx >= ? ORDER BY idx LIMIT ?"),
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
    probe: q("INSERT OR REPLACE INTO meta (k, v) VALUES ('write_probe', ?)"),
    agent: q("SELECT did, seq, prev, idx FROM agent_heads WHERE did = ?"),
    // per agent the larger index wins (a backfill never moves a head back)
    putAgent: q(
      "INSERT INTO agent_heads (did, seq, prev, idx) VALUES (?, ?, ?, ?) ON CONFLICT (did) DO " +
        "UPDATE SET seq = excluded.seq, prev = excluded.prev, idx = excluded.idx " +
        "WHERE excluded.idx > agent_heads.idx",
    ),
    agentsComplete: q("SELECT v FROM meta WHERE k = 'agent_heads'"),
    markAgents: q("INSERT OR REPLACE INTO meta (k, v) VALUES ('agent_heads', 'complete')"),
  };
  // Each view's tile statements: a tile is a row of its tiles table until the 16 full tiles of
  // its group are stored, then a slice of the group's row (docs/STORAGE.md "Tile groups").
  const views = (["blake3", "sha256"] as const).map((view) => {
    const t = TABLES[view];
    return {
      tile: q(`SELECT hashes FROM ${t.tiles} WHERE id = ?`),
      tiles: q(`SELECT id, hashes FROM ${t.tiles} WHERE id >= ? AND id < ?`),
      group: q(`SELECT hashes FROM ${t.groups} WHERE id = ?`),
      // the same, answered as [hashes]: no row object per published tile
      groups: q(`SELECT id, hashes FROM ${t.groups} WHERE id >= ? AND id < ?`),
      put: q(`INSERT OR REPLACE INTO ${t.tiles} (id, hashes) VALUES (?, ?)`),
      grouper: tileGrouper(db, view),
    };
  });
  type ViewStatements = (typeof views)[number];
  const viewOf = (view: TreeView | undefined): ViewStatements => views[view === "sha256" ? 1 : 0];
  /** Tile (level, index) of a view, from its row or its group's. */
  const readTile = (v: ViewStatements, level: number, index: number): Uint8Array | undefined => {
    const r = v.tile.get(tileId(level, index)) as Row | undefined;
    if (r) return r.hashes as Uint8Array;
    const k = index % GROUP;
    const g = v.group.get(tileId(level, (index - k) / GROUP)) as Row | undefined;
    return (g?.hashes as Uint8Array | undefined)?.slice(k * FULL_TILE, (k + 1) * FULL_TILE);
  };
  /** Tiles (level, start) .. (level, start + count - 1) of a view; `[k]` undefined if absent. */
  const readTiles = (v: ViewStatements, level: number, start: number, count: number) => {
    const out: (Uint8Array | undefined)[] = new Array(count).fill(undefined);
    if (count <= 0) return out;
    const first = tileId(level, start);
    let missing = count;
    for (const r of v.tiles.all(first, first + count) as Row[]) {
      out[(r.id as number) - first] = r.hashes as Uint8Array;
      missing--;
    }
    if (missing === 0) return out;
    const g0 = Math.floor(start / GROUP), g1 = Math.floor((start + count - 1) / GROUP);
    for (const r of v.groups.all(tileId(level, g0), tileId(level, g1) + 1) as Row[]) {
      const b = r.hashes as Uint8Array;
      const base = ((r.id as number) - tileId(level, 0)) * GROUP - start;
      for (let k = Math.max(0, base); k < Math.min(count, base + GROUP); k++) {
        out[k] ??= b.slice((k - base) * FULL_TILE, (k - base + 1) * FULL_TILE);
      }
    }
    return out;
  };
  /** Writes a view's tiles; a full tile that completes its group moves the group to one row. */
  const putTiles = (v: ViewStatements, tiles: Tile[]): void => {
    for (const t of tiles) v.put.run(tileId(t.level, t.index), t.hashes);
    for (const t of tiles) {
      if (t.hashes.length === FULL_TILE && t.index % GROUP === GROUP - 1) {
        v.grouper(tileId(t.level, t.index - (GROUP - 1)));
      }
    }
  };
  const groupReader = new GroupReader(path, o.groupSnapshot);
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
    const first = Math.floor(from / 16);
    const tiles = readTiles(
      views[0],
      0,
      first,
      Math.min(LEVEL1, Math.floor((size - 1) / 16) + 1) - first,
    );
    for (let i = from; i < size; i++) {
      const b = tiles[Math.floor(i / 16) - first];
      const off = (i % 16) * 32;
      tail.push(b && b.length >= off + 32 ? leafPrefix(b.subarray(off, off + 32)) : -1);
    }
  };
  syncTail();
  const storedLeaf = (index: number): Uint8Array | undefined => {
    const b = readTile(views[0], 0, Math.floor(index / 16));
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
  const store: SqliteStorage = {
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
      operational("read entries", () => {
        // consecutive from `start` (the contract): a row a damaged page no longer holds ends the
        // run there, never shifts a later entry into its place (log/read_faults.ts)
        const out: Uint8Array[] = [];
        for (const r of s.entries.all(start, limit) as Row[]) {
          if (r.idx !== start + out.length) break;
          out.push(r.bytes as Uint8Array);
        }
        return out;
      }),
    tile: (level, index, view) =>
      operational("read tile", () => readTile(viewOf(view), level, index)),
    tileRange: (level, start, count, view) =>
      operational("read tiles", () => readTiles(viewOf(view), level, start, count)),
    tileGroup: (level, group, view) =>
      operational(
        "read a tile group",
        () => groupReader.read(view === "sha256" ? 1 : 0, tileId(level, group)),
      ),
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
          putTiles(views[0], batch.tiles);
          putTiles(views[1], batch.sha256Tiles);
          const h = batch.head;
          s.insHead.run(h.size, h.root, h.timestamp, h.signature, h.sha256Root ?? null);
          for (const a of batch.agents ?? []) s.putAgent.run(a.did, a.seq, a.prev, a.index);
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
          // A failed COMMIT (SQLITE_FULL) may already have rolled back: keep the first error.
          if (db.isTransaction) db.exec("ROLLBACK");
          throw err;
        }
      }),
    agentHead: (did) =>
      operational("read an agent's chain head", () => {
        const r = s.agent.get(did) as Row | undefined;
        return r && {
          did: r.did as string,
          seq: r.seq as number,
          prev: r.prev as Uint8Array,
          index: r.idx as number,
        };
      }),
    agentHeadsComplete: () =>
      operational("read the agent heads' mark", () => s.agentsComplete.get() !== undefined),
    putAgentHeads: (heads, complete) =>
      operational("write agents' chain heads", () => {
        db.exec("BEGIN IMMEDIATE");
        try {
          for (const a of heads) s.putAgent.run(a.did, a.seq, a.prev, a.index);
          if (complete) s.markAgents.run();
          db.exec("COMMIT");
        } catch (err) {
          if (db.isTransaction) db.exec("ROLLBACK");
          throw err;
        }
      }),
    probeWrite: () =>
      operational("write to the store", () => {
        db.exec("BEGIN IMMEDIATE");
        try {
          // 64 KiB (16 pages, more than a small batch writes), so the WAL must find room for it
          s.probe.run(String(Date.now()).padEnd(65_536, "."));
          db.exec("COMMIT");
        } catch (err) {
          if (db.isTransaction) db.exec("ROLLBACK");
          throw err;
        }
      }),
    commitViewBackfill: (b: ViewBackfill) =>
      operational("migrate the SHA-256 view", () => {
        db.exec("BEGIN IMMEDIATE");
        try {
          putTiles(views[1], b.sha256Tiles);
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
        groupReader.close();
        if (!closed) db.close();
        wal?.close();
        wal = undefined;
        closed = true;
      }),
  };
  // Durability off the event loop (issue 16): COMMIT (synchronous=NORMAL) has written the batch's
  // WAL frames; an fdatasync of the WAL file on Deno's blocking pool makes them durable while the
  // event loop goes on (the sequencer meanwhile sequences the next batch). Syncs never overlap:
  // a commit made while one runs waits for the next, which covers every commit before it. A
  // failed sync poisons the store (after a failed fsync the kernel may drop the dirty pages and a
  // later fsync succeed regardless): every later commit fails until the store is reopened.
  let wal: Deno.FsFile | undefined;
  let syncFailed: Error | undefined;
  let syncing: Promise<void> | undefined;
  let again: Promise<void> | undefined;
  const syncWal = async (): Promise<void> => {
    if (syncFailed) throw syncFailed;
    try {
      if (!wal) {
        wal = await Deno.open(`${path}-wal`, { read: true });
        const dir = await Deno.open(dirname(path), { read: true });
        try {
          await dir.sync(); // the WAL file's directory entry, once
        } finally {
          dir.close();
        }
      }
      await wal.syncData();
    } catch (err) {
      syncFailed = new LogStorageError(
        "storage-sync",
        `Cannot make the commit durable (fdatasync ${path}-wal): ${(err as Error).message}`,
        { cause: err },
      );
      throw syncFailed;
    }
  };
  const durable = (): Promise<void> => {
    if (!syncing) {
      const p = syncing = syncWal().finally(() => {
        if (syncing === p) syncing = undefined;
      });
      return p;
    }
    // a sync that started before this commit: one more after it, shared by every commit meanwhile
    return again ??= syncing.catch(() => {}).then(() => {
      again = undefined;
      return durable();
    });
  };
  const commitNow = store.commitBatch;
  store.commitBatchStaged = async (batch) => {
    if (syncFailed) throw syncFailed;
    await commitNow(batch);
    return { durable: durable() };
  };
  store.commitBatch = async (batch) => {
    if (syncFailed) throw syncFailed;
    await commitNow(batch);
    await durable();
  };
  // the other writes are rare (backfills, the health probe, the name): durable before they resolve
  for (
    const k of [
      "putAgentHeads",
      "probeWrite",
      "commitViewBackfill",
      "backfillContentIndex",
      "setLogName",
    ] as const
  ) {
    const f = store[k] as ((...a: unknown[]) => Promise<void>) | undefined;
    if (f) {
      (store as unknown as Record<string, unknown>)[k] = async (...a: unknown[]) => {
        await f(...a);
        await durable();
      };
    }
  }
  return store;
}
