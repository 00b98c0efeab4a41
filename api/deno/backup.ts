// `deno task backup` (docs/OPERATIONS.md "Backup"): an online, consistent copy of everything a
// restore needs (api/deno/backup_layout.ts) while the service runs, then proven. Consistency across
// files: each SQLite file is one committed snapshot (log/sqlite/backup.ts); each pin is read
// before its store's snapshot (a pin is written after its commit is durable, so the copy reaches
// it; the witness's pin likewise after its state); and `shards.json` is read before and after all
// the shards' snapshots: a rotation in between changes it (a new shard is listed), so the copy is
// thrown away and taken again — the copy holds exactly the shards that state lists, each as that
// state knows it (a frozen shard at its final size). Only listed shards are copied (a folder a
// rotation cut short is never restored as a shard). The copy is built in `<dest>.partial`, made
// durable, proven (fsck of every shard, each copied head a signed head of the source, each pin
// reached), and only then renamed to `<dest>`. Keys and pins 0600, folders 0700.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ed25519PublicKey, toHex } from "../../verify/mod.ts";
import { readLogKey } from "../../log/sqlite/mod.ts";
import { copySqliteFile, fsyncPath, proveStoreCopy } from "../../log/sqlite/mod.ts";
import { FROZEN_MARK, frozenMark, type ShardRecord } from "../services/shard_set.ts";
import {
  checkWitnessState,
  type DataDirPaths,
  defaultPaths,
  type Manifest,
  MANIFEST_FILE,
  type ManifestShard,
  readShardState,
  shardPaths,
  witnessPinPath,
} from "./backup_layout.ts";

/** Options of `backupDataDir`. */
export interface BackupOptions {
  /** Copy the secret keys (log, shards', operator, witness); default true. */
  copyKeys?: boolean;
  /**
   * Copies taken before giving up while rotations keep changing `shards.json` (default 10; after
   * the first, each copies only the shards not frozen before it: the active one and new ones).
   */
  attempts?: number;
}

/** What `deno task backup` did and proved (the manifest, and more). */
export interface BackupReport extends Manifest {
  dest: string;
  ok: boolean;
  /** Why the copy does not prove itself (empty when ok). */
  problems: string[];
  /** Copies taken (more than 1: a rotation happened during one). */
  attempts: number;
  copy_ms: number;
  bytes: number;
  proofs: {
    id: string;
    head_in_source: boolean;
    pin_ok: boolean;
    fsck_ok: boolean;
    entries: number;
  }[];
}

function writeFile(path: string, bytes: Uint8Array): void {
  Deno.writeFileSync(path, bytes, { mode: 0o600, createNew: true });
  chmodSync(path, 0o600);
  fsyncPath(path);
}

function readIf(path: string): Uint8Array | undefined {
  return existsSync(path) ? Deno.readFileSync(path) : undefined;
}

function sizeOf(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? sizeOf(p) : statSync(p).size;
  }
  return n;
}

function ownFrozenMark(store: string): string | undefined {
  const db = new DatabaseSync(store, { readOnly: true });
  try {
    const r = db.prepare("SELECT v FROM meta WHERE k = ?").get(FROZEN_MARK) as
      | { v?: string }
      | undefined;
    return r?.v;
  } finally {
    db.close();
  }
}

const same = (a?: Uint8Array, b?: Uint8Array) =>
  a === b || (!!a && !!b && a.length === b.length && a.every((x, i) => x === b[i]));

/** Shards frozen per a `shards.json` (their stores are final: a copy of one stays exact). */
function frozenShards(bytes?: Uint8Array): Set<number> {
  if (!bytes) return new Set();
  const recs = JSON.parse(new TextDecoder().decode(bytes)).shards as ShardRecord[];
  return new Set(recs.flatMap((r, n) => r.state === "frozen" ? [n] : []));
}

/**
 * One copy attempt into `work`: the shards `shards.json` lists, as it lists them. The shards in
 * `keep` were frozen per the state an earlier attempt read before copying them, so their copies
 * are final and stay: a retry after a rotation copies only the shards that were active or new.
 */
async function copyOnce(src: DataDirPaths, work: string, copyKeys: boolean, keep: Set<number>) {
  mkdirSync(work, { recursive: true, mode: 0o700 });
  const to = defaultPaths(work);
  const state = readShardState(src.dataDir);
  // the witness pin (every attempt) before the witness state's snapshot (in s0's folder)
  rmSync(witnessPinPath(to.witnessKeyFile), { force: true });
  const wPin = readIf(witnessPinPath(src.witnessKeyFile));
  if (wPin) writeFile(witnessPinPath(to.witnessKeyFile), wPin);
  const shards: {
    s: ReturnType<typeof shardPaths>;
    t: ReturnType<typeof shardPaths>;
    pub: Uint8Array;
  }[] = [];
  for (let n = 0; n < state.count; n++) {
    const s = shardPaths(src, n), t = shardPaths(to, n);
    mkdirSync(t.dir, { recursive: true, mode: 0o700 });
    const key = readLogKey(s.keyFile); // a backup must be restorable: no key, no backup
    const kept = keep.has(n);
    for (const f of kept ? [] : [t.keyFile, t.pinFile, t.store]) rmSync(f, { force: true });
    if (!kept || n === 0) rmSync(t.witnessState, { force: true }); // s0's: after its pin, above
    if (!kept && copyKeys) writeFile(t.keyFile, new TextEncoder().encode(toHex(key) + "\n"));
    // before the snapshot: the copy reaches it (in pin_dir, or where it was until the service
    // adopts it there at its next start)
    const pin = kept
      ? undefined
      : readIf(s.pinFile) ?? (s.formerPinFile ? readIf(s.formerPinFile) : undefined);
    if (pin) writeFile(t.pinFile, pin);
    if (!kept) await copySqliteFile(s.store, t.store);
    if (!existsSync(t.witnessState) && existsSync(s.witnessState)) {
      await copySqliteFile(s.witnessState, t.witnessState);
    }
    if (n > 0) fsyncPath(dirname(t.dir));
    shards.push({ s, t, pub: ed25519PublicKey(key) });
  }
  const after = readShardState(src.dataDir);
  const changed = !same(state.bytes, after.bytes);
  return { state, changed, shards, wPin: !!wPin, frozen: frozenShards(state.bytes) };
}

/**
 * Copies the data directory of `src` (its files where `src` says) into `dest` (created; refused
 * when it exists and is not empty) while the service may be appending and rotating, and proves
 * the copy.
 */
export async function backupDataDir(
  src: DataDirPaths,
  dest: string,
  o: BackupOptions = {},
): Promise<BackupReport> {
  if (existsSync(dest) && readdirSync(dest).length > 0) {
    throw new Error(`Cannot back up: ${dest} already exists and is not empty`);
  }
  if (!existsSync(shardPaths(src, 0).store)) {
    throw new Error(`Cannot back up: ${shardPaths(src, 0).store} does not exist`);
  }
  const copyKeys = o.copyKeys ?? true;
  const work = `${dest}.partial`;
  const t0 = performance.now();
  let attempts = 0;
  let c;
  rmSync(work, { recursive: true, force: true }); // an earlier run's, cut short
  for (let keep = new Set<number>();; keep = c.frozen) {
    attempts++;
    c = await copyOnce(src, work, copyKeys, keep);
    if (!c.changed) break;
    if (attempts >= (o.attempts ?? 10)) {
      rmSync(work, { recursive: true, force: true });
      throw new Error(`Cannot back up: shards.json changed during each of ${attempts} copies`);
    }
  }
  const to = defaultPaths(work);
  if (c.state.bytes) writeFile(join(work, "shards.json"), c.state.bytes);
  let operator: Manifest["operator_key"] = null;
  if (existsSync(src.operatorKeyFile)) {
    const k = readLogKey(src.operatorKeyFile, "operator key");
    operator = { public_key: toHex(ed25519PublicKey(k)) };
    if (copyKeys) writeFile(to.operatorKeyFile, new TextEncoder().encode(toHex(k) + "\n"));
  }
  let witness: Manifest["witness"] = null;
  const wState = shardPaths(to, 0).witnessState;
  const wKey = existsSync(src.witnessKeyFile)
    ? readLogKey(src.witnessKeyFile, "witness key")
    : undefined;
  if (wKey || c.wPin) {
    if (wKey && copyKeys) {
      writeFile(to.witnessKeyFile, new TextEncoder().encode(toHex(wKey) + "\n"));
    }
    witness = {
      public_key: wKey ? toHex(ed25519PublicKey(wKey)) : null,
      pin: c.wPin,
      state: existsSync(wState),
    };
  }
  const copyMs = Math.round(performance.now() - t0);

  // Prove the copy.
  const problems: string[] = [];
  const recs = c.state.bytes
    ? (JSON.parse(new TextDecoder().decode(c.state.bytes)).shards as ShardRecord[])
    : [];
  const entries: ManifestShard[] = [];
  const proofs: BackupReport["proofs"] = [];
  for (const { s, t, pub } of c.shards) {
    const p = await proveStoreCopy(t.store, s.store, pub, t.pinFile);
    problems.push(...p.problems.map((x) => `${s.id}: ${x}`));
    const rec = recs[s.n];
    const fz = rec?.state === "frozen" ? rec.size ?? null : null;
    if (fz !== null && fz !== p.size) {
      problems.push(`${s.id}: frozen at ${fz} per shards.json, its copy holds ${p.size}`);
    }
    // the copy's own record of being frozen agrees with the copied shards.json (the start's rule)
    const own = ownFrozenMark(t.store);
    if (rec && own !== undefined && own !== frozenMark(rec)) {
      problems.push(
        `${s.id}: its store records it frozen (${own}), the copied shards.json does not`,
      );
    }
    entries.push({
      id: s.id,
      dir: s.rel,
      public_key: toHex(pub),
      size: p.size,
      root: p.root,
      sha256_root: p.sha256_root,
      pin: p.pin,
      frozen_size: fz,
      witness_state: existsSync(t.witnessState),
    });
    proofs.push({
      id: s.id,
      head_in_source: p.head_in_source,
      pin_ok: p.pin_ok,
      fsck_ok: p.fsck.ok,
      entries: p.fsck.entries,
    });
  }
  if (c.wPin) {
    try {
      await checkWitnessState(wState, to.witnessKeyFile, witnessPinPath(to.witnessKeyFile));
    } catch (e) {
      problems.push(`witness: ${(e as Error).message}`);
    }
  }
  const manifest: Manifest = {
    version: 1,
    made: new Date().toISOString(),
    source: src,
    keys: copyKeys,
    shards_json: !!c.state.bytes,
    shards: entries,
    operator_key: operator,
    witness,
  };
  const ok = problems.length === 0;
  writeFile(
    join(work, MANIFEST_FILE),
    new TextEncoder().encode(JSON.stringify({ ...manifest, ok }, null, 1) + "\n"),
  );
  fsyncPath(work);
  if (existsSync(dest)) Deno.removeSync(dest); // empty (checked above): never recursive
  renameSync(work, dest);
  fsyncPath(dirname(dest));
  return {
    ...manifest,
    dest,
    ok,
    problems,
    attempts,
    copy_ms: copyMs,
    bytes: sizeOf(dest),
    proofs,
  };
}
