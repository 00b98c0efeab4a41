// The log's store in one SQLite file on `node:sqlite` (Deno and Node; docs/STORAGE.md): the one
// SQL store (log/sql/store.ts) over node:sqlite (log/sqlite/executor.ts), in WAL mode with
// synchronous=NORMAL and our own fdatasync of the WAL after each commit, before it is
// acknowledged (FULL's guarantee, off the event loop; log/sqlite/wal_sync.ts), so a committed
// batch survives power loss; published tiles read through the group reader's shared read
// transactions (log/sqlite/group_reader.ts). Only this file knows the store is a file.
import { LogStorageError } from "../errors.ts";
import type {
  AgentHeads,
  ContentIndex,
  KeyIndex,
  LeafLookupMany,
  LogStorage,
  StorageCapabilities,
  TileGroups,
  ViewMigration,
  WriteProbe,
} from "../storage.ts";
import { LEAF_INDEX_LAG, SqlStore } from "../sql/store.ts";
import { SQL_SCHEMA_VERSION } from "../sql/schema.ts";
import { openSqliteExecutor, type SqliteExecutor } from "./executor.ts";
import { GroupReader } from "./group_reader.ts";
import { WalSync } from "./wal_sync.ts";
import type { DatabaseSync } from "node:sqlite";

/** Schema version written to `meta` (the one SQL store's); another is refused, never guessed at. */
export const SQLITE_SCHEMA_VERSION = SQL_SCHEMA_VERSION;
export { LEAF_INDEX_LAG };

/** Options of `openSqliteStorage`. */
export interface SqliteStorageOptions {
  /**
   * Most entries whose leaf-index rows are held in memory (rebuilt from the level-0 tiles on
   * open) before one sorted flush to the `leaves` table; 0 writes them with every batch.
   */
  leafIndexLag?: number;
  /**
   * Most entries whose search keys wait in `search_tail` before one sorted move into
   * `search_keys` (docs/STORAGE.md "Lagging search index"); 0 writes them with every batch.
   * Default SEARCH_KEY_LAG.
   */
  searchKeyLag?: number;
  /**
   * How long one read transaction of the tile-group reader may serve (default
   * GROUP_SNAPSHOT_MS, GROUP_READS_PER_SNAPSHOT reads): whichever comes first ends it.
   */
  groupSnapshot?: { ms: number; reads: number };
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

/** The SQLite store, with its extensions and the raw database for benchmarks and tests. */
export interface SqliteStorage
  extends
    LogStorage,
    TileGroups,
    LeafLookupMany,
    ContentIndex,
    AgentHeads,
    ViewMigration,
    WriteProbe,
    KeyIndex {
  readonly db: DatabaseSync;
  readonly path: string;
  /** A value of the store's own state in `meta` (log/sql/store.ts `readMeta`). */
  readMeta(key: string): string | undefined;
  /** Sets a value of the store's own state in `meta`, durably. */
  writeMeta(key: string, value: string): Promise<void>;
}

/** The one SQL store on a node:sqlite file, with its health probe. */
class SqliteStore extends SqlStore implements SqliteStorage {
  readonly db: DatabaseSync;

  constructor(x: SqliteExecutor, readonly path: string, o: SqliteStorageOptions) {
    const groups = new GroupReader(path, o.groupSnapshot);
    const sync = new WalSync(path);
    super(x, {
      name: path,
      leafIndexLag: o.leafIndexLag,
      searchKeyLag: o.searchKeyLag,
      sync,
      tileGroup: (level, group, view) => groups.read(view, level * 2 ** 48 + group),
      onClose: () => {
        groups.close();
        x.close();
        sync.close();
      },
    });
    this.db = x.db;
  }

  /**
   * One small durable write that changes no log data (the health check's probe while commits
   * fail): 64 KiB (16 pages, more than a small batch writes), so the WAL must find room for it.
   */
  /** The SQL store's extensions, the staged commit (its `sync`) and the write probe. */
  protected override storeCapabilities(): StorageCapabilities {
    return { ...super.storeCapabilities(), writeProbe: this };
  }

  probeWrite = (): Promise<void> =>
    this.write("write to the store", () => {
      this.x.run(this.q.putMeta, "write_probe", String(Date.now()).padEnd(65_536, "."));
    });
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
  let x: SqliteExecutor;
  try {
    // COMMIT writes the WAL without syncing it; every commit is then made durable by an
    // fdatasync of the WAL file off the event loop, before anything in it is acknowledged.
    x = openSqliteExecutor(path, { synchronous: "NORMAL", mmap: true });
  } catch (err) {
    throw new LogStorageError(
      "storage-open",
      `Cannot open log store ${path}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  try {
    return new SqliteStore(x, path, o);
  } catch (err) {
    x.close();
    throw err;
  }
}
