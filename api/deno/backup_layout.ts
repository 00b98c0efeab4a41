// What a restore of the embedded default needs (docs/OPERATIONS.md "Backup", "Restore"), in one
// place for `deno task backup` (api/deno/backup.ts) and `deno task restore` (api/deno/restore.ts): every
// shard's store, key and signed-head pin (s0 in the data directory, or its key and pin where the
// configuration puts them; sN in `shards/sN/`, its pin in `pin_dir` when set), `shards.json`, the operator key, each shard's
// witness collector state, and the witness role's state, key and pin. A backup is itself a data
// directory with every file under its default name (so a service can start on it as it is), plus
// `backup.json`, the manifest: what was copied, each copy's head and the pins the backup saw.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { shardId } from "../../log/shards/mod.ts";
import { decideWitnessStart, type WitnessStart } from "../../log/c2sp/mod.ts";
import { DB_FILE, KEY_FILE, pinFileOf } from "../../log/sqlite/mod.ts";
import { openSqliteWitnessState, WITNESS_DB_FILE } from "../../log/sqlite/mod.ts";
import { readWitnessPin, witnessPinPath } from "../../log/sqlite/mod.ts";
import { SHARD_STATE_FILE } from "./shard_files.ts";
import { loadConfig } from "./config_load.ts";
import { resolveFromCaller } from "../../cli/mod.ts";

/** Where the files of a data directory are (the service's configuration decides). */
export interface DataDirPaths {
  dataDir: string;
  /** s0's log key (`key_file`). */
  keyFile: string;
  /** s0's signed-head pin (`pin_file`; `<pin_dir>/s0.pin` by default when pin_dir is set). */
  pinFile: string;
  /** Where each shard sN's pin lives (`<pin_dir>/sN.pin`); absent: beside its key. */
  pinDir?: string;
  operatorKeyFile: string;
  /** The witness role's key (`witness.key_file`); its pin is beside it. */
  witnessKeyFile: string;
}

/** The manifest's file name in a backup. */
export const MANIFEST_FILE = "backup.json";
/** The witness key's default name (in a backup, and the service's default). */
export const WITNESS_KEY_FILE = "witness-key.hex";
const OPERATOR_KEY_FILE = "operator-key.hex";

/** The default paths of a data directory, as the service resolves them with no settings. */
export function defaultPaths(dataDir: string): DataDirPaths {
  return {
    dataDir,
    keyFile: join(dataDir, KEY_FILE),
    pinFile: pinFileOf(join(dataDir, KEY_FILE)),
    operatorKeyFile: join(dataDir, OPERATOR_KEY_FILE),
    witnessKeyFile: join(dataDir, WITNESS_KEY_FILE),
  };
}

/** One shard's files. */
export interface ShardPaths {
  n: number;
  id: string;
  /** Its folder relative to the data directory ("" for s0). */
  rel: string;
  dir: string;
  store: string;
  keyFile: string;
  pinFile: string;
  /** Its witness collector's state (s0's is the witness role's too). */
  witnessState: string;
  /** Where its pin was before pin_dir was set (beside its key), when it is in pin_dir now. */
  formerPinFile?: string;
}

/** Shard n's files under `p` (s0's key and pin where `p` says). */
export function shardPaths(p: DataDirPaths, n: number): ShardPaths {
  const rel = n === 0 ? "" : join("shards", shardId(n));
  const dir = join(p.dataDir, rel);
  const keyFile = n === 0 ? p.keyFile : join(dir, KEY_FILE);
  const inDir = p.pinDir ? join(p.pinDir, `${shardId(n)}.pin`) : undefined;
  const pinFile = n === 0 ? p.pinFile : inDir ?? pinFileOf(keyFile);
  return {
    n,
    id: shardId(n),
    rel,
    dir,
    store: join(dir, DB_FILE),
    keyFile,
    pinFile,
    witnessState: join(dir, WITNESS_DB_FILE),
    formerPinFile: inDir === pinFile ? pinFileOf(keyFile) : undefined,
  };
}

/** `shards.json`'s path, its bytes (undefined: none, a log never rotated) and shard count. */
export function readShardState(
  dataDir: string,
): { path: string; bytes?: Uint8Array; count: number } {
  const path = join(dataDir, SHARD_STATE_FILE);
  if (!existsSync(path)) return { path, count: 1 };
  const bytes = Deno.readFileSync(path);
  const o = JSON.parse(new TextDecoder().decode(bytes));
  if (o?.version !== 1 || !Array.isArray(o.shards) || o.shards.length < 1) {
    throw new Error(`Cannot back up: ${path} is not a version 1 shard state`);
  }
  return { path, bytes, count: o.shards.length };
}

/** A shard's entry in the manifest: its copy's head and the pin the backup saw. */
export interface ManifestShard {
  id: string;
  /** Its folder in the backup and in the data directory ("" for s0). */
  dir: string;
  /** The log key's public key (hex). */
  public_key: string;
  size: number;
  root: string;
  sha256_root: string | null;
  /** The pin copied with it, as read before the snapshot (null: none). */
  pin: { size: number; root: string } | null;
  /** A frozen shard's final size per `shards.json` (null: the active one). */
  frozen_size: number | null;
  witness_state: boolean;
}

/** `backup.json`. */
export interface Manifest {
  version: 1;
  /** When the copy was made (RFC 3339). */
  made: string;
  source: DataDirPaths;
  /** Secret keys copied (false: `--no-key`). */
  keys: boolean;
  shards_json: boolean;
  shards: ManifestShard[];
  operator_key: { public_key: string } | null;
  witness: { public_key: string | null; pin: boolean; state: boolean } | null;
}

/**
 * Checks a witness role's state file against a witness pin (the start's rule,
 * log/c2sp/witness_pin.ts): throws WitnessStartError (`witness-state-behind`, …) when the state
 * is behind what the key cosigned.
 */
export async function checkWitnessState(
  stateFile: string,
  keyFile: string,
  pinFile: string,
): Promise<WitnessStart> {
  const pin = readWitnessPin(pinFile);
  const statePresent = existsSync(stateFile);
  const facts = {
    keyFile,
    stateFile,
    pinFile,
    keyPresent: true,
    statePresent,
    statePinned: false,
    heads: [] as { origin: string; size: number; root: Uint8Array }[],
    pin,
  };
  if (statePresent) {
    const s = openSqliteWitnessState(stateFile);
    try {
      facts.heads = await s.heads();
      facts.statePinned = s.pinned();
    } finally {
      await s.close();
    }
  }
  return decideWitnessStart(facts);
}

/** The witness pin of a witness key file. */
export { witnessPinPath };

/**
 * The paths a command line's data directory `dataDir` has under the service's own configuration
 * (`--config FILE` / JC_CONFIG and the JC_* environment: JC_KEY_FILE, JC_PIN_FILE,
 * JC_OPERATOR_KEY_FILE, JC_WITNESS_KEY_FILE), each overridden by its flag when given.
 */
export async function configuredPaths(
  env: Record<string, string | undefined>,
  dataDir: string,
  flags: {
    config?: string;
    keyFile?: string;
    pinFile?: string;
    pinDir?: string;
    operatorKeyFile?: string;
    witnessKeyFile?: string;
  },
): Promise<DataDirPaths> {
  const at = (p: string) => resolveFromCaller(p, env, Deno.cwd());
  const c = await loadConfig(
    { ...env, DATA_DIR: dataDir },
    flags.config ? ["--config", flags.config] : [],
  );
  const keyFile = flags.keyFile ? at(flags.keyFile) : c.keyFile;
  const pinDir = flags.pinDir ? at(flags.pinDir) : c.pinDir;
  // s0's pin: pin_file when set explicitly; else in pin_dir; else beside its key (--key-file too)
  const explicit = c.pinFile !== pinFileOf(c.keyFile) &&
    !(c.pinDir && c.pinFile === join(c.pinDir, "s0.pin"));
  return {
    dataDir,
    keyFile,
    pinFile: flags.pinFile
      ? at(flags.pinFile)
      : explicit
      ? c.pinFile
      : pinDir
      ? join(pinDir, "s0.pin")
      : pinFileOf(keyFile),
    ...(pinDir ? { pinDir } : {}),
    operatorKeyFile: flags.operatorKeyFile ? at(flags.operatorKeyFile) : c.operatorKeyFile,
    witnessKeyFile: flags.witnessKeyFile
      ? at(flags.witnessKeyFile)
      : c.witness?.keyFile
      ? at(c.witness.keyFile)
      : join(dataDir, WITNESS_KEY_FILE),
  };
}
