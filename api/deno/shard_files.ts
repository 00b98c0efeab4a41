// Where the embedded default keeps its shards (docs/SHARDS.md "Embedded"): shard s0 is the data
// directory's own store and key, exactly as before shards (so existing data directories open
// unchanged); shard sN (N ≥ 1) is `<data dir>/shards/sN/` with its own store and key, generated
// when the shard is created. The directory state (which shards exist, which is frozen and its
// final size, roots and times) is `<data dir>/shards.json`, replaced atomically (a temporary
// file, fsync, rename, fsync of the directory), so a crash leaves the old state or the new one.
// A shard folder the state does not list and that holds no entries (a crash after creating it,
// before the state named it) is moved aside to `<data dir>/shards/discarded/` at start: never
// served, never deleted; one that holds entries stops the start (api/services/shard_set.ts). Each shard's
// own store keeps its own state beside the directory state (`meta`: the frozen record; s0's also
// the operator key it serves under), so a lost or older shards.json is told at start (issue 27).
// With `pin_dir` set, every shard's signed-head pin lives there (`<pin_dir>/sN.pin`, s0's
// `s0.pin` unless `pin_file` is set), outside the data directory: a whole data directory restored
// from an older copy is refused at the first shard it rolled back; a pin found at its former place
// (beside the key) is adopted into pin_dir once (log/sqlite/pin_file.ts `adoptPin`).
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { type Log, openMemoryLog, type SequencerOptions } from "../../log/mod.ts";
import type { SqliteStorage } from "../../log/sqlite/mod.ts";
import { shardId } from "../../log/shards/mod.ts";

/** One shard as the directory state records it. */
export interface ShardRecord {
  id: string;
  state: "active" | "frozen";
  /** RFC 3339 UTC time the shard was created. */
  created: string;
  /** A frozen shard's final values, recorded when it was frozen. */
  size?: number;
  root?: { blake3: string; sha256: string };
  first_time?: string | null;
  last_time?: string | null;
  /**
   * The `keys_carried` mark the shard's own store got when the key state of the shard before it
   * was carried in at its creation (docs/SHARDS.md "Carried state"): its store must still hold
   * it (`shard-carry-missing`). Absent for s0 and for shards created before the carry.
   */
  keys_carried?: string;
}

/** The shard storage a ShardSet uses. */
export interface ShardFiles {
  /** The recorded state, or undefined when none was written yet (a first start). */
  load(): ShardRecord[] | undefined;
  /** Replaces the state atomically, durable before it returns. */
  save(records: ShardRecord[]): void;
  /**
   * Opens shard n's log, named `logName` (s0: the configured name). `create`: a brand-new shard
   * (a rotation) whose key is generated now; otherwise a missing key or store is refused.
   */
  openLog(n: number, logName: string | undefined, create: boolean): Promise<Log>;
  /**
   * Carries open shard `from`'s key state (final: drained) into open, empty shard `to`'s store in
   * one durable transaction (docs/SHARDS.md "Carried state"); answers the mark `to`'s store got.
   * Undefined: the stores keep no key state (memory).
   */
  carryKeys(from: number, to: number): Promise<string | undefined>;
  /** The shard's own state in its own store (open shards only). */
  meta(n: number): ShardMeta;
  /** Numbers (≥ 1) of the shard folders that exist. */
  folders(): number[];
  /** Whether unlisted shard n's folder holds entries (or cannot be told: a pin without a store). */
  holdsEntries(n: number): Promise<boolean>;
  /** Moves aside every shard folder numbered `count` or above (not in the state). */
  discardFrom(count: number): string[];
  /** Shard n's folder, for its other state (the witness collector's); undefined in memory. */
  dirOf(n: number): string | undefined;
}

/** A shard's own state in its store's `meta` table (durable before `set` resolves). */
export interface ShardMeta {
  get(k: string): string | undefined;
  set(k: string, v: string): Promise<void>;
}

/** Options every shard's log opens with. */
export type ShardLogOptions = SequencerOptions & {
  cpuClock?: () => number;
  /** SQLite stores: docs/STORAGE.md "Lagging search index" (`search_key_lag`). */
  searchKeyLag?: number;
};

/** The shards' files disagree with each other (issue 27): the start stops; `code` is stable. */
export class ShardStateError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(`${message} (docs/OPERATIONS.md "When the log refuses to open") [${code}]`);
    this.name = "ShardStateError";
    this.code = code;
  }
}

/** The state file's name in the data directory. */
export const SHARD_STATE_FILE = "shards.json";

function writeDurably(path: string, text: string): void {
  const fd = openSync(path, "w", 0o644);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The embedded default's shard files under `dataDir` (s0: `dataDir` itself, key `keyFile`). */
export function sqliteShardFiles(
  dataDir: string,
  keyFile: string,
  o: ShardLogOptions,
  pinFile?: string,
  pinDir?: string,
): ShardFiles {
  const statePath = join(dataDir, SHARD_STATE_FILE);
  const shardsDir = join(dataDir, "shards");
  const dirOf = (n: number) => n === 0 ? dataDir : join(shardsDir, shardId(n));
  const metas = new Map<number, ShardMeta>();
  const stores = new Map<number, SqliteStorage>();
  // sN's pin in pin_dir (s0's: pinFile, which the configuration put there unless pin_file is set)
  const pinIn = (n: number) => pinDir ? join(pinDir, `${shardId(n)}.pin`) : undefined;
  const pinDirPins = () =>
    pinDir && existsSync(pinDir)
      ? readdirSync(pinDir).map((name) => /^s([1-9]\d{0,8})\.pin$/.exec(name))
        .filter((m) => m !== null).map((m) => Number(m![1]))
      : [];
  return {
    load() {
      if (!existsSync(statePath)) return undefined;
      const o = JSON.parse(readFileSync(statePath, "utf8"));
      if (o?.version !== 1 || !Array.isArray(o.shards)) {
        throw new Error(`Cannot read ${statePath}: not a version 1 shard state`);
      }
      return o.shards as ShardRecord[];
    },
    save(records) {
      const tmp = `${statePath}.tmp`;
      writeDurably(tmp, JSON.stringify({ version: 1, shards: records }, null, 1) + "\n");
      renameSync(tmp, statePath);
      fsyncDir(dataDir);
    },
    async openLog(n, logName, create) {
      const { openSqliteDataDir, KEY_FILE, pinFileOf } = await import("../../log/sqlite/mod.ts");
      const dir = dirOf(n);
      const created = n > 0 && !existsSync(dir);
      if (n > 0 && !create && created) {
        throw new ShardStateError(
          "shard-missing",
          `Cannot open the shards: ${shardId(n)} is listed in ${statePath} but its folder ${dir} ` +
            "is missing; restore it from a backup",
        );
      }
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (created) fsyncDir(shardsDir);
      if (pinDir && !existsSync(pinDir)) {
        mkdirSync(pinDir, { recursive: true, mode: 0o700 });
        fsyncDir(dirname(pinDir));
      }
      const pin = n === 0 ? pinFile : pinIn(n); // undefined: beside its key, in its folder
      // pin_dir set for the first time: the pin beside the key is adopted (never lost)
      const former = !pinDir
        ? undefined
        : n > 0
        ? pinFileOf(join(dir, KEY_FILE))
        : pinFile === join(pinDir, "s0.pin")
        ? pinFileOf(keyFile)
        : undefined; // an explicit pin_file stays where it is
      const { log, store } = await openSqliteDataDir({
        ...o,
        dir,
        keyFile: n === 0 ? keyFile : undefined,
        pinFile: pin,
        formerPinFile: former,
        logName,
        create: n === 0 || create,
      });
      stores.set(n, store);
      const get = store.db.prepare("SELECT v FROM meta WHERE k = ?");
      const put = store.db.prepare("INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)");
      metas.set(n, {
        get: (k) => (get.get(k) as { v: string } | undefined)?.v,
        async set(k, v) {
          put.run(k, v);
          await store.probeWrite(); // a write made durable (the WAL's fdatasync)
        },
      });
      return log;
    },
    async carryKeys(from, to) {
      const a = stores.get(from), b = stores.get(to);
      if (!a || !b) {
        throw new Error(`Cannot carry key state: ${shardId(from)} or ${shardId(to)} is not open`);
      }
      return await b.carryKeys(await a.carriedKeys(shardId(from)));
    },
    meta(n) {
      const m = metas.get(n);
      if (!m) throw new Error(`Cannot read ${shardId(n)}'s own state: not open`);
      return m;
    },
    folders() {
      const inDir = existsSync(shardsDir)
        ? readdirSync(shardsDir).map((name) => /^s([1-9]\d{0,8})$/.exec(name))
          .filter((m) => m !== null).map((m) => Number(m![1]))
        : [];
      // a pin in pin_dir is a shard too, folder or not (a data directory lost or rolled back)
      return [...new Set([...inDir, ...pinDirPins()])].sort((a, b) => a - b);
    },
    async holdsEntries(n) {
      const dir = dirOf(n);
      const db = join(dir, "log.sqlite");
      if (existsSync(db) && statSync(db).size > 0) {
        const d = new DatabaseSync(db, { readOnly: true });
        try {
          const schema = d.prepare(
            "SELECT 1 AS t FROM sqlite_master WHERE type = 'table' AND name = 'heads'",
          ).get();
          // a store whose schema was never written (a crash while it was created) holds nothing;
          // else its heads say
          if (schema) {
            const r = d.prepare("SELECT max(size) AS n FROM heads").get() as { n: number | null };
            return (r?.n ?? 0) > 0;
          }
        } catch {
          return true; // cannot be told: kept, and the start stops
        } finally {
          d.close();
        }
      }
      // No store to ask (a crash after the key and pin, before the store): the pins say what the
      // shard signed. A shard is created with a pin at size 0 (the empty tree), so a pin past 0,
      // or one that cannot be read (no key, damaged), is a shard that signed entries.
      const pins = [
        ...(existsSync(dir)
          ? readdirSync(dir).filter((f) => f.endsWith(".pin")).map((f) => join(dir, f))
          : []),
        ...(pinDir !== undefined && existsSync(pinIn(n)!) ? [pinIn(n)!] : []),
      ];
      if (pins.length === 0) return false;
      const { openPinFile, readLogKey, KEY_FILE } = await import("../../log/sqlite/mod.ts");
      const { ed25519PublicKey } = await import("../../verify/mod.ts");
      let pub: Uint8Array;
      try {
        pub = ed25519PublicKey(readLogKey(join(dir, KEY_FILE)));
      } catch {
        return true;
      }
      for (const path of pins) {
        const pin = openPinFile(path, pub, db);
        try {
          if (((await pin.read())?.size ?? 0) > 0) return true;
        } catch {
          return true;
        } finally {
          pin.close();
        }
      }
      return false;
    },
    discardFrom(count) {
      const moved: string[] = [];
      for (const name of existsSync(shardsDir) ? readdirSync(shardsDir) : []) {
        const m = /^s(\d+)$/.exec(name);
        if (!m || Number(m[1]) < count) continue;
        const aside = join(shardsDir, "discarded");
        mkdirSync(aside, { recursive: true });
        const to = join(aside, `${name}-${Date.now()}`);
        renameSync(join(shardsDir, name), to);
        moved.push(to);
      }
      if (moved.length > 0) fsyncDir(shardsDir);
      // its pin in pin_dir (an empty tree's, when it holds no entries) goes aside with it
      for (const n of pinDirPins().filter((n) => n >= count)) {
        const aside = join(pinDir!, "discarded");
        mkdirSync(aside, { recursive: true, mode: 0o700 });
        const to = join(aside, `${shardId(n)}-${Date.now()}.pin`);
        renameSync(pinIn(n)!, to);
        fsyncDir(pinDir!);
        moved.push(to);
      }
      return moved;
    },
    dirOf: (n) => dirOf(n),
  };
}

/** Shards in memory (`store: "memory"`): lost at exit like the log itself. */
export function memoryShardFiles(o: ShardLogOptions): ShardFiles {
  let state: ShardRecord[] | undefined;
  const metas = new Map<number, Map<string, string>>();
  return {
    load: () => state && structuredClone(state),
    save: (records) => void (state = structuredClone(records)),
    openLog: (n, logName) => {
      metas.set(n, new Map());
      return openMemoryLog({ ...o, logName });
    },
    carryKeys: () => Promise.resolve(undefined),
    meta: (n) => {
      const m = metas.get(n)!;
      return { get: (k) => m.get(k), set: (k, v) => Promise.resolve(void m.set(k, v)) };
    },
    folders: () => [],
    holdsEntries: () => Promise.resolve(false),
    discardFrom: () => [],
    dirOf: () => undefined,
  };
}
