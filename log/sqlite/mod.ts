// log/sqlite: the embedded default's storage (node:sqlite, Deno and Node) and key file, the
// `openSqliteLog` entry api/ uses (docs/CONTRACTS.md), and fsck over a data directory.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  fsckLog,
  type FsckReport,
  type Log,
  LogIntegrityError,
  LogStorageError,
  openLog,
  type SequencerOptions,
} from "../mod.ts";
import { ed25519PublicKey } from "../../verify/mod.ts";
import { openSqliteStorage, sqliteDamaged, type SqliteStorageOptions } from "./storage.ts";
import { loadOrCreateLogKey, readLogKey } from "./key.ts";

export {
  LEAF_INDEX_LAG,
  openSqliteStorage,
  SQLITE_SCHEMA_VERSION,
  sqliteDamaged,
  type SqliteStorage,
  type SqliteStorageOptions,
} from "./storage.ts";
export { loadOrCreateLogKey, LogKeyError, readLogKey } from "./key.ts";
export { backupDataDir, type BackupOptions, type BackupReport } from "./backup.ts";

/** File names inside a data directory. */
export const DB_FILE = "log.sqlite";
export const KEY_FILE = "log-key.hex";

/** Options of `openSqliteLog`. */
export interface SqliteLogOptions extends SequencerOptions, SqliteStorageOptions {
  /** Data directory (created when absent). */
  dir: string;
  /** Log key file; default `<dir>/log-key.hex`, generated (mode 0600) on first start. */
  keyFile?: string;
  /** A log key given directly (configuration), instead of a file. */
  secretKey?: Uint8Array;
  /** This thread's CPU clock, ms (LogOptions.cpuClock): the sequencer's per-phase CPU. */
  cpuClock?: () => number;
  /** The log's name (LogOptions.logName), bound to the store on first open. */
  logName?: string;
  now?: () => number;
}

/**
 * Opens the embedded default's log in a data directory: the SQLite store `<dir>/log.sqlite` and
 * the log key. Refuses (`LogIntegrityError`) a store whose latest head does not match its nodes.
 *
 * @example
 * ```ts
 * const log = await openSqliteLog({ dir: "./data" });
 * ```
 */
export async function openSqliteLog(o: SqliteLogOptions): Promise<Log> {
  mkdirSync(o.dir, { recursive: true });
  const secretKey = o.secretKey ?? loadOrCreateLogKey(o.keyFile || join(o.dir, KEY_FILE)).secret;
  const path = join(o.dir, DB_FILE);
  let store;
  try {
    store = openSqliteStorage(path, {
      leafIndexLag: o.leafIndexLag,
      groupSnapshot: o.groupSnapshot,
    });
  } catch (err) {
    throw damaged(path, err);
  }
  try {
    return await openLog(store, { ...o, secretKey });
  } catch (err) {
    await store.close().catch(() => {});
    throw damaged(path, err);
  }
}

/**
 * A store SQLite finds damaged while it is opened and proven (the quick check at open, issue 27):
 * the log cannot prove its latest head, so it refuses to start (`log-integrity`) and names the
 * remedy (docs/OPERATIONS.md "A damaged store"); any other error is left as it is.
 */
function damaged(path: string, err: unknown): unknown {
  if (!sqliteDamaged(err) || err instanceof LogIntegrityError) return err;
  return new LogIntegrityError(
    `Cannot open log: ${path} is damaged (${(err as Error).message}); the log refuses to serve ` +
      "or sign: run `deno task fsck` on the data directory, then restore from a backup " +
      '(docs/OPERATIONS.md "A damaged store")',
    { cause: err },
  );
}

/** Re-verifies the whole log in a data directory (see log/fsck.ts). */
export async function fsckDataDir(dir: string, keyFile?: string): Promise<FsckReport> {
  const pub = ed25519PublicKey(readLogKey(keyFile || join(dir, KEY_FILE)));
  if (!existsSync(join(dir, DB_FILE))) {
    throw new LogStorageError(
      "storage-open",
      `Cannot check log: ${join(dir, DB_FILE)} does not exist`,
    );
  }
  const store = openSqliteStorage(join(dir, DB_FILE));
  try {
    return await fsckLog(store, pub);
  } finally {
    await store.close();
  }
}
