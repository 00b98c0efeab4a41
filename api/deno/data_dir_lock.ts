// One service per data directory (issue 28): two services on one directory each believed it held
// the log (each then answered 503s with nothing logged, /healthz ok on both). At start, after the
// port is bound and before any store is opened, the service takes an exclusive OS lock (flock,
// Deno.FsFile.tryLock) on `<data dir>/service.lock` and holds it until it exits; a second start on
// the same directory is refused with `data-dir-locked`, naming the holder's pid from the file.
// Why an OS lock and not an O_EXCL pid file: the kernel releases it when the holder dies however it
// dies (SIGKILL, power loss), so there is no stale lock to detect or remove, and a reused pid
// cannot fake one. It is advisory: `deno task fsck` and `deno task backup`, which only read the
// store through SQLite's own locking, do not take it and keep working on a running service's
// directory. The file stays after exit; its content only names the last holder.
// docs/DECISIONS.md "One service per data directory".
import { join } from "node:path";
import { ConfigError } from "../services/config.ts";

/** The lock file's name inside the data directory. */
export const LOCK_FILE = "service.lock";

/** The stable code of a start refused because another service holds the data directory. */
export const DATA_DIR_LOCKED = "data-dir-locked";

/** Another service holds the data directory: the start is refused. */
export class DataDirLockedError extends ConfigError {
  readonly code = DATA_DIR_LOCKED;
  constructor(dir: string, readonly holder: { pid?: number; since?: string }) {
    const who = holder.pid
      ? `pid ${holder.pid}${holder.since ? `, since ${holder.since}` : ""}`
      : "pid unknown";
    super(
      `Cannot open the data directory ${dir}: another service holds it (${who}); stop that ` +
        `service, or set DATA_DIR to another directory (${DATA_DIR_LOCKED})`,
    );
    this.name = "DataDirLockedError";
  }
}

/** A held lock: `release` unlocks and closes it (the service's shutdown; exit releases it too). */
export interface DataDirLock {
  path: string;
  release(): void;
}

/**
 * Takes the exclusive lock of `dir` (created, mode 0700, when absent), recording this process
 * (pid, start time) in the lock file; throws DataDirLockedError when another process holds it.
 */
export async function lockDataDir(dir: string): Promise<DataDirLock> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, LOCK_FILE);
  const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
  let held = false;
  try {
    held = await file.tryLock(true);
  } catch (e) {
    file.close();
    throw new ConfigError(`Cannot lock the data directory ${dir}: ${(e as Error).message}`);
  }
  if (!held) {
    file.close();
    throw new DataDirLockedError(dir, await readHolder(path));
  }
  const me = JSON.stringify({ pid: Deno.pid, since: new Date().toISOString() }) + "\n";
  await file.truncate(0);
  await file.write(new TextEncoder().encode(me));
  let open = true;
  return {
    path,
    release: () => {
      if (!open) return;
      open = false;
      file.unlockSync();
      file.close();
    },
  };
}

/** The holder recorded in the lock file (the holder writes it right after locking). */
async function readHolder(path: string): Promise<{ pid?: number; since?: string }> {
  // The holder may be between its lock and its write: a few tries.
  for (let i = 0; i < 5; i++) {
    try {
      const j = JSON.parse(await Deno.readTextFile(path));
      if (Number.isSafeInteger(j.pid)) return { pid: j.pid, since: String(j.since ?? "") };
    } catch { /* empty or being written */ }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {};
}
