// log/sqlite: the embedded default's storage (node:sqlite, Deno and Node) and key file, the
// `openSqliteLog` entry api/ uses (docs/CONTRACTS.md), and fsck over a data directory.
import { existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  blake3Hasher,
  fsckLog,
  type FsckReport,
  type Log,
  LogIntegrityError,
  LogStateError,
  LogStorageError,
  openLog,
  type SequencerOptions,
  sha256Hasher,
} from "../mod.ts";
import { ed25519PublicKey } from "../../verify/mod.ts";
import {
  openSqliteStorage,
  sqliteDamaged,
  type SqliteStorage,
  type SqliteStorageOptions,
} from "./storage.ts";
import { loadOrCreateLogKey, readLogKey } from "./key.ts";
import { adoptPin, openPinFile, pinFileOf } from "./pin_file.ts";

export {
  LEAF_INDEX_LAG,
  openSqliteStorage,
  SQLITE_SCHEMA_VERSION,
  sqliteDamaged,
  type SqliteStorage,
  type SqliteStorageOptions,
} from "./storage.ts";
export {
  keyFileMode,
  type KeyFileOptions,
  loadOrCreateLogKey,
  LogKeyError,
  readLogKey,
} from "./key.ts";
export { adoptPin, movedPinName, openPinFile, pinFileOf } from "./pin_file.ts";
export { copySqliteFile, fsyncPath, proveStoreCopy, type StoreCopyProof } from "./backup.ts";
export { openSqliteWitnessState, WITNESS_DB_FILE } from "./witness_state.ts";
export {
  openWitnessPinFile,
  readWitnessPin,
  type WitnessPinFile,
  witnessPinPath,
} from "./witness_pin_file.ts";

/** File names inside a data directory. */
export const DB_FILE = "log.sqlite";
export const KEY_FILE = "log-key.hex";

/** Options of `openSqliteLog`. */
export interface SqliteLogOptions extends SequencerOptions, SqliteStorageOptions {
  /** Data directory (created mode 0700 when absent). */
  dir: string;
  /** Log key file; default `<dir>/log-key.hex`, generated (mode 0600) for a brand-new log. */
  keyFile?: string;
  /** The signed-head pin; default `<key file>.pin` (docs/STORAGE.md "Signed-head pin"). */
  pinFile?: string;
  /**
   * The pin's former place (beside the key), adopted into `pinFile` when `pin_dir` is first set
   * (log/sqlite/pin_file.ts `adoptPin`).
   */
  formerPinFile?: string;
  /**
   * Whether a missing key may be generated for a brand-new log (nothing of the log exists: no
   * store, no pin). Default true (s0's first start); a shard opened at start passes false.
   */
  create?: boolean;
  /** A log key given directly (tests), instead of a file. */
  secretKey?: Uint8Array;
  /** This thread's CPU clock, ms (LogOptions.cpuClock): the sequencer's per-phase CPU. */
  cpuClock?: () => number;
  /** The log's name (LogOptions.logName), bound to the store on first open. */
  logName?: string;
  now?: () => number;
}

/** The store's mark that its log has a signed-head pin (from then on a missing pin is refused). */
const PINNED_MARK = "signed_head_pin";

/** "missing", "empty" (0 bytes: truncated) or "present". */
function storeFile(path: string): "missing" | "empty" | "present" {
  if (!existsSync(path)) return "missing";
  return statSync(path).size === 0 ? "empty" : "present";
}

/**
 * Opens the embedded default's log in a data directory: the SQLite store `<dir>/log.sqlite`, the
 * log key and its signed-head pin (issue 27, docs/STORAGE.md "Signed-head pin"):
 * - a key is generated only for a brand-new log: no key, no store, no pin (and `create`);
 * - a key without a store (missing or 0 bytes) opens only with a pin at size 0; without a pin
 *   it is `log-store-missing`, with a pin past 0 `store-behind-signed-head`;
 * - a store or pin without its key is `log-key-missing`;
 * - a store behind its pin, or with another root at the pinned size, refuses (log/pin.ts);
 * - a store marked pinned whose pin file is missing is `signed-head-pin-missing`;
 * - a store written before pins (no mark, no pin) is pinned at its current head (trust on first
 *   upgrade, docs/DECISIONS.md).
 * Also refuses (`LogIntegrityError`) a store whose latest head does not match its nodes.
 *
 * @example
 * ```ts
 * const log = await openSqliteLog({ dir: "./data" });
 * ```
 */
export async function openSqliteLog(o: SqliteLogOptions): Promise<Log> {
  return (await openSqliteDataDir(o)).log;
}

/** `openSqliteLog`, with the store it opened (its `meta` table holds the shard's own state). */
export async function openSqliteDataDir(
  o: SqliteLogOptions,
): Promise<{ log: Log; store: SqliteStorage }> {
  // 0700 whatever the umask (issue 27): entries may be public, the store's state is not for others
  mkdirSync(o.dir, { recursive: true, mode: 0o700 });
  const keyFile = o.keyFile || join(o.dir, KEY_FILE);
  const pinPath = o.pinFile || pinFileOf(keyFile);
  const dbPath = join(o.dir, DB_FILE);
  const store0 = storeFile(dbPath);
  const former = o.formerPinFile && o.formerPinFile !== pinPath ? o.formerPinFile : undefined;
  const pinExists = existsSync(pinPath) || (former !== undefined && existsSync(former));
  const fresh = store0 === "missing" && !pinExists;
  let secretKey = o.secretKey;
  let created = false;
  if (!secretKey) {
    const k = loadOrCreateLogKey(keyFile, {
      create: fresh && o.create !== false,
      missingWhy: store0 !== "missing" || pinExists
        ? `its log exists (${
          store0 !== "missing" ? dbPath : existsSync(pinPath) ? pinPath : former
        })`
        : "this log is not new (a listed shard)",
    });
    secretKey = k.secret;
    created = k.created;
  }
  const pub = ed25519PublicKey(secretKey);
  if (former) await adoptPin(former, pinPath, pub);
  const pinFile = openPinFile(pinPath, pub, dbPath);
  const pinned = await pinFile.read();
  if (!created && !pinned && store0 !== "present" && !o.secretKey) {
    throw new LogStateError(
      "log-store-missing",
      `Cannot open the log: its key ${keyFile} exists but its store ${dbPath} is ${store0} and ` +
        `there is no signed-head pin (${pinPath}) to tell what the key signed; a fresh tree ` +
        "under this key could fork the log. Restore the store (and its pin) from a backup, or " +
        'see docs/OPERATIONS.md "When the log refuses to open"',
    );
  }
  if (pinned && pinned.size > 0 && store0 !== "present") {
    // refused before a store file is created (restoring into this directory stays simple)
    throw new LogStateError(
      "store-behind-signed-head",
      `Cannot open the log: its store ${dbPath} is ${store0}, but the log signed a head at size ` +
        `${pinned.size} (pin ${pinPath}); a fresh tree would fork the log. Restore the newest ` +
        'copy of the store, or see docs/OPERATIONS.md "When the log refuses to open"',
    );
  }
  let store;
  try {
    store = openSqliteStorage(dbPath, {
      leafIndexLag: o.leafIndexLag,
      searchKeyLag: o.searchKeyLag,
      groupSnapshot: o.groupSnapshot,
    });
  } catch (err) {
    pinFile.close();
    throw damaged(dbPath, err);
  }
  try {
    const marked = store.readMeta(PINNED_MARK) !== undefined;
    if (marked && !pinned) {
      throw new LogStateError(
        "signed-head-pin-missing",
        `Cannot open the log: its store ${dbPath} has been pinned, but the signed-head pin ` +
          `${pinPath} is missing; without it a rolled-back store cannot be told from the latest. ` +
          'Restore the pin from a backup, or see docs/OPERATIONS.md "When the log refuses to open"',
      );
    }
    const log = await openLog(store, { ...o, secretKey, pin: pinFile });
    if (!marked) {
      await store.writeMeta(PINNED_MARK, "1");
    }
    return { log, store };
  } catch (err) {
    pinFile.close();
    await store.close().catch(() => {});
    throw damaged(dbPath, err);
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

/**
 * The explicit start of a brand-new log under a key made beforehand (a key provisioned on a secret
 * mount, or made to configure peers before the first start): pins size 0 (the empty tree, whose
 * root no other tree has), so the first start opens a fresh tree. Refused when the key already has
 * a pin. `deno task init-log`.
 */
export async function initLogPin(keyFile: string, pinFile?: string): Promise<string> {
  const pub = ed25519PublicKey(readLogKey(keyFile));
  const path = pinFile || pinFileOf(keyFile);
  if (existsSync(path)) {
    throw new LogStateError(
      "signed-head-pin-exists",
      `Cannot start a new log under ${keyFile}: it already has a signed-head pin ${path}`,
    );
  }
  const pin = openPinFile(path, pub, "(none yet)");
  try {
    await pin.write({ size: 0, root: blake3Hasher.empty(), sha256Root: sha256Hasher.empty() });
  } finally {
    pin.close();
  }
  return path;
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
