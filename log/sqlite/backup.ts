// An online, consistent copy of a data directory (docs/OPERATIONS.md "Backup and restore"): the
// SQLite store copied with `VACUUM INTO` from its own read connection while the service goes on
// appending (in WAL mode a reader sees one committed snapshot, so the copy is one consistent
// state: a whole number of batches, its latest head among them), made durable (fsync) and only
// then renamed into place, plus the log key (mode 0600). The copy is then proven: it opens, fsck
// re-verifies all of it, and its latest head must be a head the source itself stores, byte-equal.
// With the key go its signed-head pin, read before the snapshot (so the copy's store reaches it),
// and the operator key when the source has one (a restored log opens only with both, issue 27).
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { basename, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { toHex } from "../../verify/mod.ts";
import { type FsckReport, LogStorageError } from "../mod.ts";
import { DB_FILE, fsckDataDir, KEY_FILE, openSqliteStorage, pinFileOf, readLogKey } from "./mod.ts";

/** What `backupDataDir` did and proved. */
export interface BackupReport {
  source: string;
  dest: string;
  /** Entries in the copy (its latest head's size). */
  size: number;
  root: string;
  /** The copy's latest head is stored, byte-equal, in the source. */
  head_in_source: boolean;
  key_copied: boolean;
  copy_ms: number;
  bytes: number;
  fsck: FsckReport;
  ok: boolean;
}

/** Options of `backupDataDir`. */
export interface BackupOptions {
  /** The log key file; default `<source>/log-key.hex`. */
  keyFile?: string;
  /** Copy the key file into the destination (default true; needed to restore and to fsck). */
  copyKey?: boolean;
  /** The operator key file; default `<source>/operator-key.hex` (copied with the key if present). */
  operatorKeyFile?: string;
}

function fsyncPath(path: string): void {
  const f = Deno.openSync(path, { read: true });
  try {
    f.syncSync();
  } finally {
    f.close();
  }
}

/**
 * Copies the data directory `source` into `dest` (created; refused if it already holds a store)
 * while a service may be appending to it, and proves the copy.
 */
export async function backupDataDir(
  source: string,
  dest: string,
  o: BackupOptions = {},
): Promise<BackupReport> {
  const src = join(source, DB_FILE);
  if (!existsSync(src)) {
    throw new LogStorageError("storage-open", `Cannot back up: ${src} does not exist`);
  }
  const keyFile = o.keyFile || join(source, KEY_FILE);
  const key = readLogKey(keyFile); // before anything is written: a backup must be restorable
  // the pin as of before the snapshot: the copy's store is at or past it
  const pinPath = pinFileOf(keyFile);
  const pin = existsSync(pinPath) ? readFileSync(pinPath) : undefined;
  mkdirSync(dest, { recursive: true, mode: 0o700 });
  const out = join(dest, DB_FILE);
  if (existsSync(out)) {
    throw new LogStorageError("storage-open", `Cannot back up: ${out} already exists`);
  }
  const partial = `${out}.partial`;
  await Deno.remove(partial).catch(() => {});
  const t0 = performance.now();
  const db = new DatabaseSync(src);
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.prepare("VACUUM INTO ?").run(partial); // one read transaction: one snapshot
  } catch (err) {
    await Deno.remove(partial).catch(() => {});
    throw new LogStorageError("storage-fault", `Cannot back up ${src}: ${(err as Error).message}`, {
      cause: err,
    });
  } finally {
    db.close();
  }
  fsyncPath(partial);
  renameSync(partial, out);
  fsyncPath(dest);
  const copyMs = performance.now() - t0;
  const copyKey = o.copyKey ?? true;
  if (copyKey) {
    const k = join(dest, KEY_FILE);
    Deno.writeTextFileSync(k, toHex(key) + "\n", { mode: 0o600, createNew: true });
    chmodSync(k, 0o600);
    fsyncPath(k);
    if (pin) {
      Deno.writeFileSync(pinFileOf(k), pin, { mode: 0o600, createNew: true });
      fsyncPath(pinFileOf(k));
    }
    const op = o.operatorKeyFile || join(source, "operator-key.hex");
    if (existsSync(op)) {
      const to = join(dest, basename(op));
      copyFileSync(op, to);
      chmodSync(to, 0o600);
      fsyncPath(to);
    }
    fsyncPath(dest);
  }
  // Prove the copy: its latest head is one the source stores, byte-equal; fsck over all of it.
  const copy = openSqliteStorage(out);
  const from = openSqliteStorage(src);
  let latest, inSource;
  try {
    latest = await copy.latestHead();
    if (!latest) throw new LogStorageError("storage-open", `Cannot back up: ${out} has no head`);
    inSource = await from.head(latest.size);
  } finally {
    await copy.close();
    await from.close();
  }
  const same = !!inSource && toHex(inSource.root) === toHex(latest.root) &&
    toHex(inSource.signature) === toHex(latest.signature) &&
    inSource.timestamp === latest.timestamp;
  const fsck = await fsckDataDir(dest, copyKey ? undefined : keyFile);
  return {
    source,
    dest,
    size: latest.size,
    root: toHex(latest.root),
    head_in_source: same,
    key_copied: copyKey,
    copy_ms: Math.round(copyMs),
    bytes: Deno.statSync(out).size,
    fsck,
    ok: same && fsck.ok,
  };
}
