// The edge's Durable Objects as the rest of the Worker sees them (edge/worker/durable_object.ts,
// edge/worker/batcher_object.ts): their RPC surfaces, the faults a test injects, the state kept in
// their storage, and the stub of shard n's sequencer. Needs no workerd (no cloudflare:workers).
import type { AgentHead, AgentLink, AppendResult, TreeHead } from "../../log/mod.ts";
import type { DurableSqlStorage } from "../../log/durable/mod.ts";
import type { Outcome } from "./wire.ts";
import {
  type FinalHead,
  type R2StorageStats,
  type RoundStep,
  sequencerName,
} from "../../log/r2/mod.ts";
import { shardId } from "../../log/shards/mod.ts";
import { EdgeConfigError } from "./errors.ts";

export { LOG_OBJECT_NAME } from "../../log/r2/mod.ts";

/** The alarm part of a Durable Object's storage (the collector's rounds run on it). */
export interface AlarmStorage {
  getAlarm(): Promise<number | null>;
  setAlarm(at: number): Promise<void>;
}

/** Steps of a rotation a test restarts the object after (docs/SHARDS.md "Lifecycle"). */
export type RotationStep = "created" | "frozen";

/** Faults a test injects (JC_EDGE_TEST_HOOKS=on only; docs/EDGE.md "Faults"). */
export interface EdgeFaults {
  /** Restart the object (ctx.abort) right after this step of the next round. */
  crashAt?: RoundStep;
  /** Let this many more R2 puts succeed, then fail the next `r2FailPuts` puts. */
  r2FailAfterPuts?: number;
  r2FailPuts?: number;
  /** Batcher: restart it when it is about to forward a batch (appends pending). */
  batcherCrash?: boolean;
  /** Restart the active shard's sequencer right after this step of its next rotation. */
  rotateCrashAt?: RotationStep;
}

/** What the sequencer of a shard is (docs/SHARDS.md): its number, key and log name. */
export interface ShardIdentity {
  n: number;
  secretKey: Uint8Array;
  /** Undefined for s0: its name is the configured one (JC_LOG_NAME, else from the key). */
  logName?: string;
}

/** Kept in a shard sequencer's storage from its creation (`jc-shard`); the key never leaves it. */
export interface ShardRecordKv {
  n: number;
  log_name: string;
  secret: string;
}

/** Kept in a frozen shard's storage (`jc-frozen`): its final head and its successor. */
export interface FrozenKv {
  final: FinalHead;
  next: { id: string; public_key: string };
}

/** The KV part of a SQLite-backed object's storage (shard identity, frozen state). */
export interface KvStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  /** Waits until every write so far is durable (workerd's `storage.sync()`). */
  sync?(): Promise<void>;
}

/** The answer to a rotation: the shard active after it. */
export interface RotateResult {
  active: string;
}

/** What the sequencer reports (JC_EDGE_TEST_HOOKS=on; the bench and tests read it). */
export interface SequencerStats {
  /** RPC calls this object instance answered (every method, this one included). */
  calls: number;
  /** Appends it received (one per entry, whether alone or in a batch). */
  appends: number;
  storage: R2StorageStats | undefined;
  /** Bytes of the object's SQLite database. */
  databaseBytes: number;
  /** Whether this shard is frozen (its own record, or the directory's when that was lost). */
  frozen: boolean;
}

export interface ObjectState {
  storage: DurableSqlStorage;
  blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>;
  abort(reason?: string): void;
}

/** The sequencer's RPC surface as a batcher and the Worker see it. */
export interface SequencerStub {
  append(entry: Uint8Array, link?: AgentLink): Promise<Outcome<AppendResult>>;
  appendMany(
    entries: Uint8Array[],
    links?: (AgentLink | undefined)[],
  ): Promise<Outcome<AppendResult>[]>;
  agentHead(did: string): Promise<Outcome<AgentHead | undefined>>;
  latestHead(): Promise<Outcome<TreeHead>>;
  /** Opens the log if needed and checks its store (a pinned-head refusal fails with its code). */
  check(): Promise<Outcome<void>>;
  rotate(): Promise<Outcome<RotateResult>>;
  stats(): Promise<Outcome<SequencerStats>>;
  injectFaults(f: EdgeFaults): Promise<Outcome<void>>;
  flushCheckpoint(): Promise<Outcome<void>>;
}

/** A shard sequencer after the first: it is created by the rotation that lists it. */
export interface ShardSequencerStub extends SequencerStub {
  createShard(
    n: number,
    logName: string,
  ): Promise<Outcome<{ public_key: string }>>;
}

/** A Durable Object namespace binding (the slice used here). */
export interface Namespace<T> {
  idFromName(name: string): unknown;
  get(id: unknown): T;
}

/** The sequencer stub of shard n (s0: LOG_SEQUENCER's "log"; sN: LOG_SHARD_SEQUENCER's). */
export function sequencerOf<T>(env: Record<string, unknown>, n: number): T {
  const ns = (n === 0 ? env.LOG_SEQUENCER : env.LOG_SHARD_SEQUENCER) as
    | Namespace<T>
    | undefined;
  if (!ns || typeof ns.idFromName !== "function") {
    throw new EdgeConfigError(
      `Cannot reach shard ${shardId(n)}: the ${
        n === 0 ? "LOG_SEQUENCER" : "LOG_SHARD_SEQUENCER"
      } Durable Object binding is missing (wrangler.toml)`,
    );
  }
  return ns.get(ns.idFromName(sequencerName(n)));
}
