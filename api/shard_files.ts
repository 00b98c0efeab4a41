// Where the embedded default keeps its shards (docs/SHARDS.md "Embedded"): shard s0 is the data
// directory's own store and key, exactly as before shards (so existing data directories open
// unchanged); shard sN (N ≥ 1) is `<data dir>/shards/sN/` with its own store and key, generated
// when the shard is created. The directory state (which shards exist, which is frozen and its
// final size, roots and times) is `<data dir>/shards.json`, replaced atomically (a temporary
// file, fsync, rename, fsync of the directory), so a crash leaves the old state or the new one.
// A shard folder the state does not list and that holds no entries (a crash after creating it,
// before the state named it) is moved aside to `<data dir>/shards/discarded/` at start: never
// served, never deleted; one that holds entries stops the start (api/shard_set.ts). Each shard's
// own store keeps its own state beside the directory state (`meta`: the frozen record; s0's also
// the operator key it serves under), so a lost or older shards.json is told at start (issue 27).
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
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { type Log, openMemoryLog, type SequencerOptions } from "../log/mod.ts";
import { shardId } from "../log/shards/mod.ts";
import type { ShardRecord } from "./shard_set.ts";

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
  /** The shard's own state in its own store (open shards only). */
  meta(n: number): ShardMeta;
  /** Numbers (≥ 1) of the shard folders that exist. */
  folders(): number[];
  /** Whether unlisted shard n's folder holds entries (or cannot be told: a pin without a store). */
  holdsEntries(n: number): boolean;
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
export type ShardLogOptions = SequencerOptions & { cpuClock?: () => number };

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
): ShardFiles {
  const statePath = join(dataDir, SHARD_STATE_FILE);
  const shardsDir = join(dataDir, "shards");
  const dirOf = (n: number) => n === 0 ? dataDir : join(shardsDir, shardId(n));
  const metas = new Map<number, ShardMeta>();
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
      const { openSqliteDataDir } = await import("../log/sqlite/mod.ts");
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
      const { log, store } = await openSqliteDataDir({
        ...o,
        dir,
        keyFile: n === 0 ? keyFile : undefined,
        pinFile: n === 0 ? pinFile : undefined, // sN's: beside its key, in its folder
        logName,
        create: n === 0 || create,
      });
      const get = store.db.prepare("SELECT v FROM meta WHERE k = ?");
      const put = store.db.prepare("INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)");
      metas.set(n, {
        get: (k) => (get.get(k) as { v: string } | undefined)?.v,
        async set(k, v) {
          put.run(k, v);
          await store.probeWrite?.(); // a write made durable (the WAL's fdatasync)
        },
      });
      return log;
    },
    meta(n) {
      const m = metas.get(n);
      if (!m) throw new Error(`Cannot read ${shardId(n)}'s own state: not open`);
      return m;
    },
    folders() {
      if (!existsSync(shardsDir)) return [];
      return readdirSync(shardsDir).map((name) => /^s([1-9]\d{0,8})$/.exec(name))
        .filter((m) => m !== null).map((m) => Number(m![1])).sort((a, b) => a - b);
    },
    holdsEntries(n) {
      const dir = dirOf(n);
      const db = join(dir, "log.sqlite");
      const pins = readdirSync(dir).some((f) => f.endsWith(".pin"));
      if (!existsSync(db) || statSync(db).size === 0) return pins;
      const d = new DatabaseSync(db, { readOnly: true });
      try {
        const r = d.prepare("SELECT max(size) AS n FROM heads").get() as { n: number | null };
        return (r?.n ?? 0) > 0;
      } catch {
        return true; // cannot be told: kept, and the start stops
      } finally {
        d.close();
      }
    },
    discardFrom(count) {
      if (!existsSync(shardsDir)) return [];
      const moved: string[] = [];
      for (const name of readdirSync(shardsDir)) {
        const m = /^s(\d+)$/.exec(name);
        if (!m || Number(m[1]) < count) continue;
        const aside = join(shardsDir, "discarded");
        mkdirSync(aside, { recursive: true });
        const to = join(aside, `${name}-${Date.now()}`);
        renameSync(join(shardsDir, name), to);
        moved.push(to);
      }
      if (moved.length > 0) fsyncDir(shardsDir);
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
    meta: (n) => {
      const m = metas.get(n)!;
      return { get: (k) => m.get(k), set: (k, v) => Promise.resolve(void m.set(k, v)) };
    },
    folders: () => [],
    holdsEntries: () => false,
    discardFrom: () => [],
    dirOf: () => undefined,
  };
}
