// `deno task restore` (docs/OPERATIONS.md "Restore"): puts a backup made by `deno task backup`
// (api/deno/backup.ts) back into a data directory that holds no store, without ever rolling the log
// back. The rule (issue 27): a pin already in place (s0's at `pin_file`, often outside the data
// directory; every shard's in `pin_dir` when set, else left in its folder; the witness's beside
// its key) is the newest record of
// what the key signed, so it is kept, never replaced by the backup's older one, and a backup whose
// store does not reach it is refused with the start's own code (`store-behind-signed-head`,
// `store-forks-signed-head`, `witness-state-behind`) before anything is written; the backup's pin
// is put where none survived, or where it is newer than the one in place. A key already in place
// must be the backup's (the same log), else `restore-key-mismatch`; a key neither in place nor in
// the backup (`--no-key`) is `log-key-missing`. A shard folder past the backup's shards that holds
// a pin means the log rotated after the backup: refused. Stores are copied to `.partial` files
// and checked there, so a refusal leaves the data directory as it was.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { ed25519PublicKey, toHex } from "../../verify/mod.ts";
import { openPinFile, openSqliteStorage, readLogKey } from "../../log/sqlite/mod.ts";
import { fsyncPath } from "../../log/sqlite/mod.ts";
import { checkStoreAgainstPin } from "../../log/mod.ts";
import { shardId } from "../../log/shards/mod.ts";
import {
  checkWitnessState,
  type DataDirPaths,
  defaultPaths,
  type Manifest,
  MANIFEST_FILE,
  type ShardPaths,
  shardPaths,
  witnessPinPath,
} from "./backup_layout.ts";
import { SHARD_STATE_FILE } from "./shard_files.ts";

/** A restore refused: nothing was written; `code` is stable (docs/OPERATIONS.md "Restore"). */
export class RestoreError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(`${message} [${code}]`);
    this.name = "RestoreError";
    this.code = code;
  }
}

/** What `restoreDataDir` did. */
export interface RestoreReport {
  backup: string;
  data_dir: string;
  /** Per shard: its restored size and which pin is in force. */
  shards: { id: string; size: number; pin: "kept" | "from-backup" | "none"; pinned_size: number }[];
  /** Key files written from the backup (the others were in place and matched). */
  keys_restored: string[];
  witness: { state: boolean; pin: "kept" | "from-backup" | "none" } | null;
  ok: true;
}

type Pending = { from: string; to: string }[];

function place(p: Pending): void {
  for (const { from, to } of p) {
    mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
    const tmp = `${to}.partial`;
    copyFileSync(from, tmp);
    chmodSync(tmp, 0o600);
    fsyncPath(tmp);
    renameSync(tmp, to);
    fsyncPath(dirname(to));
  }
}

function keyMatches(file: string, publicKey: string, what: string): boolean {
  if (!existsSync(file)) return false;
  const pub = toHex(ed25519PublicKey(readLogKey(file, what)));
  if (pub !== publicKey) {
    throw new RestoreError(
      "restore-key-mismatch",
      `Cannot restore: the ${what} in place (${file}) is not the one the backup was made with ` +
        `(public key ${publicKey}): the backup is another log's`,
    );
  }
  return true;
}

/** Restores the backup directory `backup` into the data directory at `to`. */
export async function restoreDataDir(backup: string, to: DataDirPaths): Promise<RestoreReport> {
  let m: Manifest & { ok?: boolean };
  try {
    m = JSON.parse(Deno.readTextFileSync(join(backup, MANIFEST_FILE)));
  } catch (e) {
    throw new RestoreError(
      "restore-not-a-backup",
      `Cannot restore: ${join(backup, MANIFEST_FILE)} cannot be read (${(e as Error).message})`,
    );
  }
  if (m.version !== 1 || m.ok !== true || !Array.isArray(m.shards)) {
    throw new RestoreError(
      "restore-not-a-backup",
      `Cannot restore: ${backup} is not a proven backup (version 1, "ok": true)`,
    );
  }
  const bk = defaultPaths(backup);
  // The target holds no store: the damaged or older one is moved aside first (never mixed in).
  const stores = [join(to.dataDir, SHARD_STATE_FILE), shardPaths(to, 0).witnessState];
  const shardsDir = join(to.dataDir, "shards");
  const folders = existsSync(shardsDir)
    ? readdirSync(shardsDir).map((f) => /^s([1-9]\d*)$/.exec(f)).filter((x) => x !== null)
      .map((x) => Number(x![1]))
    : [];
  for (const n of [0, ...folders]) stores.push(shardPaths(to, n).store);
  const held = stores.filter((f) => existsSync(f));
  if (held.length > 0) {
    throw new RestoreError(
      "restore-target-not-empty",
      `Cannot restore into ${to.dataDir}: it still holds ${held.join(", ")}; move the old stores ` +
        "aside first (keep keys and pins where they are)",
    );
  }
  // a shard's pin in pin_dir outlives its folder: a later shard is told there too
  const pinned = to.pinDir && existsSync(to.pinDir)
    ? readdirSync(to.pinDir).map((f) => /^s([1-9]\d*)\.pin$/.exec(f)).filter((x) => x !== null)
      .map((x) => Number(x![1]))
    : [];
  for (const n of new Set([...folders, ...pinned])) {
    const pin = livePinOf(shardPaths(to, n));
    if (n >= m.shards.length && pin) {
      throw new RestoreError(
        "store-behind-signed-head",
        `Cannot restore: ${shardId(n)} signed heads (pin ${pin}) but the ` +
          `backup holds ${m.shards.length} shard(s): the log rotated after the backup was made`,
      );
    }
  }
  // Keys: in place and matching, or from the backup.
  const keys: Pending = [];
  const wantKey = (file: string, copy: string, pub: string, what: string, code: string) => {
    if (keyMatches(file, pub, what)) return;
    if (!existsSync(copy)) {
      throw new RestoreError(
        code,
        `Cannot restore: the ${what} ${file} is missing and the backup holds none (made with ` +
          "--no-key): put the key back first",
      );
    }
    keys.push({ from: copy, to: file });
  };
  m.shards.forEach((s, n) =>
    wantKey(
      shardPaths(to, n).keyFile,
      shardPaths(bk, n).keyFile,
      s.public_key,
      "log key",
      "log-key-missing",
    )
  );
  if (m.operator_key) {
    wantKey(
      to.operatorKeyFile,
      bk.operatorKeyFile,
      m.operator_key.public_key,
      "operator key",
      "operator-key-missing",
    );
  }
  if (m.witness?.public_key) {
    wantKey(
      to.witnessKeyFile,
      bk.witnessKeyFile,
      m.witness.public_key,
      "witness key",
      "witness-key-missing",
    );
  }
  // Stores to .partial files, each checked against the pin in place; a refusal removes them.
  const made: string[] = [];
  const dirs: string[] = []; // folders this restore created (removed again if it is refused)
  const pins: Pending = [];
  const out: RestoreReport["shards"] = [];
  const created = !existsSync(to.dataDir);
  try {
    for (const [n, s] of m.shards.entries()) {
      const b = shardPaths(bk, n), t = shardPaths(to, n);
      for (const d of [t.dir, dirname(t.dir)]) if (!existsSync(d)) dirs.push(d);
      mkdirSync(t.dir, { recursive: true, mode: 0o700 });
      const partial = `${t.store}.partial`;
      made.push(partial);
      copyFileSync(b.store, partial);
      chmodSync(partial, 0o600);
      fsyncPath(partial);
      const pub = ed25519PublicKey(readLogKey(existsSync(t.keyFile) ? t.keyFile : b.keyFile));
      const liveAt = livePinOf(t); // pin_dir's, else the one the service will adopt there
      const livePin = liveAt ? await readPin(liveAt, pub) : undefined;
      const bkPin = existsSync(b.pinFile) ? await readPin(b.pinFile, pub) : undefined;
      const store = openSqliteStorage(partial);
      try {
        const latest = await store.latestHead();
        for (const pin of [livePin, bkPin]) {
          if (pin) {
            checkStoreAgainstPin(
              pin,
              { store: t.store, where: liveAt ?? t.pinFile },
              latest,
              await store.head(pin.size),
            );
          }
        }
        const useBackup = bkPin && (!livePin || bkPin.size > livePin.size);
        if (useBackup) pins.push({ from: b.pinFile, to: t.pinFile });
        out.push({
          id: s.id,
          size: latest?.size ?? 0,
          pin: useBackup ? "from-backup" : livePin ? "kept" : "none",
          pinned_size: (useBackup ? bkPin : livePin)?.size ?? 0,
        });
      } finally {
        await store.close();
      }
    }
    let witness: RestoreReport["witness"] = null;
    if (m.witness) {
      const live = witnessPinPath(to.witnessKeyFile), copy = witnessPinPath(bk.witnessKeyFile);
      const state = shardPaths(bk, 0).witnessState;
      if (existsSync(live)) await checkWitnessState(state, to.witnessKeyFile, live); // throws
      else if (existsSync(copy)) pins.push({ from: copy, to: live });
      witness = {
        state: existsSync(state),
        pin: existsSync(live) ? "kept" : existsSync(copy) ? "from-backup" : "none",
      };
    }
    // Checked: put everything in place (stores, witness states, shards.json, keys, then pins).
    const files: Pending = [];
    for (const n of m.shards.keys()) {
      const b = shardPaths(bk, n), t = shardPaths(to, n);
      renameSync(`${t.store}.partial`, t.store);
      fsyncPath(t.dir);
      if (existsSync(b.witnessState)) files.push({ from: b.witnessState, to: t.witnessState });
    }
    made.length = 0;
    if (m.shards_json) {
      files.push({ from: join(backup, SHARD_STATE_FILE), to: join(to.dataDir, SHARD_STATE_FILE) });
    }
    place(files);
    place(keys);
    place(pins);
    return {
      backup,
      data_dir: to.dataDir,
      shards: out,
      keys_restored: keys.map((k) => k.to),
      witness,
      ok: true,
    };
  } catch (e) {
    for (const f of made) rmSync(f, { force: true });
    for (const d of dirs) rmSync(d, { recursive: true, force: true }); // only what it made
    if (created) rmSync(to.dataDir, { recursive: true, force: true });
    throw e;
  }
}

/** The pin in force for a shard: in pin_dir, else at its former place (adopted at start). */
function livePinOf(t: ShardPaths): string | undefined {
  if (existsSync(t.pinFile)) return t.pinFile;
  return t.formerPinFile && existsSync(t.formerPinFile) ? t.formerPinFile : undefined;
}

async function readPin(path: string, pub: Uint8Array) {
  const f = openPinFile(path, pub, path);
  try {
    return await f.read();
  } finally {
    f.close();
  }
}
