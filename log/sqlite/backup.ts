// One store's online, consistent copy and its proof (docs/OPERATIONS.md "Backup"), the part of
// `deno task backup` (api/deno/backup.ts) that knows SQLite: the file is copied with `VACUUM INTO`
// from its own read connection while the service goes on appending (in WAL mode a reader sees one
// committed snapshot, so the copy is one consistent state: a whole number of batches, its latest
// head among them), made durable (fsync, mode 0600) and only then renamed into place. A log
// store's copy is then proven: fsck re-verifies all of it, its latest head must be a head the
// source itself stores, byte-equal (a signed head of the source), and the signed-head pin read
// before the snapshot must be reached by the copy with the same roots, so the copy opens
// (log/pin.ts `checkStoreAgainstPin`, the rule the log applies at open).
import { chmodSync, existsSync, renameSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { toHex } from "../../verify/mod.ts";
import { fsckLog, type FsckReport, LogStorageError } from "../mod.ts";
import { checkStoreAgainstPin } from "../pin.ts";
import { openSqliteStorage } from "./storage.ts";
import { openPinFile } from "./pin_file.ts";

/** Makes `path` (a file or a directory) durable. */
export function fsyncPath(path: string): void {
  const f = Deno.openSync(path, { read: true });
  try {
    f.syncSync();
  } finally {
    f.close();
  }
}

/**
 * Copies the SQLite file `src` (a log store or a witness state) to `out` as one committed
 * snapshot, while writers go on; `out` must not exist. Durable and mode 0600 when it resolves.
 */
export async function copySqliteFile(src: string, out: string): Promise<void> {
  if (!existsSync(src)) {
    throw new LogStorageError("storage-open", `Cannot back up: ${src} does not exist`);
  }
  if (existsSync(out)) {
    throw new LogStorageError("storage-open", `Cannot back up: ${out} already exists`);
  }
  const partial = `${out}.partial`;
  await Deno.remove(partial).catch(() => {});
  const db = new DatabaseSync(src, { readOnly: true });
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
  chmodSync(partial, 0o600);
  fsyncPath(partial);
  renameSync(partial, out);
  fsyncPath(dirname(out));
}

/** What proving one log store's copy found. */
export interface StoreCopyProof {
  /** Entries in the copy (its latest head's size). */
  size: number;
  /** The copy's latest head's roots (hex). */
  root: string;
  sha256_root: string | null;
  /** The copy's latest head is stored, byte-equal, in the source. */
  head_in_source: boolean;
  /** The pin copied with it (read before the snapshot), or null when the log had none. */
  pin: { size: number; root: string } | null;
  /** The copy reaches its pin with the pinned roots (it opens). */
  pin_ok: boolean;
  fsck: FsckReport;
  /** Why the copy does not prove itself (empty when ok). */
  problems: string[];
  ok: boolean;
}

/**
 * Proves the copy `copyDb` of the log store `srcDb` (key `pub`): fsck over all of it, its latest
 * head stored byte-equal in the source, and the copied pin (`pinPath`, if any) reached.
 */
export async function proveStoreCopy(
  copyDb: string,
  srcDb: string,
  pub: Uint8Array,
  pinPath: string | undefined,
): Promise<StoreCopyProof> {
  const problems: string[] = [];
  const copy = openSqliteStorage(copyDb);
  const from = openSqliteStorage(srcDb);
  try {
    const latest = await copy.latestHead();
    if (!latest) throw new LogStorageError("storage-open", `Cannot back up: ${copyDb} has no head`);
    const inSource = await from.head(latest.size);
    const same = !!inSource && toHex(inSource.root) === toHex(latest.root) &&
      toHex(inSource.signature) === toHex(latest.signature) &&
      inSource.timestamp === latest.timestamp;
    if (!same) problems.push(`the copy's head at ${latest.size} is not a head of ${srcDb}`);
    let pin: StoreCopyProof["pin"] = null;
    let pinOk = true;
    if (pinPath && existsSync(pinPath)) {
      const file = openPinFile(pinPath, pub, copyDb);
      try {
        const p = await file.read();
        if (p) {
          pin = { size: p.size, root: toHex(p.root) };
          checkStoreAgainstPin(p, file, latest, await copy.head(p.size));
        }
      } catch (e) {
        pinOk = false;
        problems.push((e as Error).message);
      } finally {
        file.close();
      }
    }
    const fsck = await fsckLog(copy, pub);
    if (!fsck.ok) problems.push(...fsck.problems.map((p) => `fsck ${copyDb}: ${p}`));
    return {
      size: latest.size,
      root: toHex(latest.root),
      sha256_root: latest.sha256Root ? toHex(latest.sha256Root) : null,
      head_in_source: same,
      pin,
      pin_ok: pinOk,
      fsck,
      problems,
      ok: problems.length === 0,
    };
  } finally {
    await copy.close();
    await from.close();
  }
}
