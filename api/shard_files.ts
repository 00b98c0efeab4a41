// Where the embedded default keeps its shards (docs/SHARDS.md "Embedded"): shard s0 is the data
// directory's own store and key, exactly as before shards (so existing data directories open
// unchanged); shard sN (N ≥ 1) is `<data dir>/shards/sN/` with its own store and key, generated
// when the shard is created. The directory state (which shards exist, which is frozen and its
// final size, roots and times) is `<data dir>/shards.json`, replaced atomically (a temporary
// file, fsync, rename, fsync of the directory), so a crash leaves the old state or the new one.
// A shard folder the state does not list (a crash after creating it, before the state named it)
// is moved aside to `<data dir>/shards/discarded/` at start: never served, never deleted.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { type Log, openMemoryLog, type SequencerOptions } from "../log/mod.ts";
import { shardId } from "../log/shards/mod.ts";
import type { ShardRecord } from "./shard_set.ts";

/** The shard storage a ShardSet uses. */
export interface ShardFiles {
  /** The recorded state, or undefined when none was written yet (a first start). */
  load(): ShardRecord[] | undefined;
  /** Replaces the state atomically, durable before it returns. */
  save(records: ShardRecord[]): void;
  /** Opens (creating when absent) shard n's log, named `logName` (s0: the configured name). */
  openLog(n: number, logName: string | undefined): Promise<Log>;
  /** Moves aside every shard folder numbered `count` or above (not in the state). */
  discardFrom(count: number): string[];
  /** Shard n's folder, for its other state (the witness collector's); undefined in memory. */
  dirOf(n: number): string | undefined;
}

/** Options every shard's log opens with. */
export type ShardLogOptions = SequencerOptions & { cpuClock?: () => number };

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
): ShardFiles {
  const statePath = join(dataDir, SHARD_STATE_FILE);
  const shardsDir = join(dataDir, "shards");
  const dirOf = (n: number) => n === 0 ? dataDir : join(shardsDir, shardId(n));
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
    async openLog(n, logName) {
      const { openSqliteLog } = await import("../log/sqlite/mod.ts");
      const dir = dirOf(n);
      const created = n > 0 && !existsSync(dir);
      mkdirSync(dir, { recursive: true });
      if (created) fsyncDir(shardsDir);
      return await openSqliteLog({ ...o, dir, keyFile: n === 0 ? keyFile : undefined, logName });
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
  return {
    load: () => state && structuredClone(state),
    save: (records) => void (state = structuredClone(records)),
    openLog: (_n, logName) => openMemoryLog({ ...o, logName }),
    discardFrom: () => [],
    dirOf: () => undefined,
  };
}
