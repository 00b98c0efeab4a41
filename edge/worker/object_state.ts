// What the edge's Durable Objects share (docs/EDGE.md, docs/SHARDS.md): their RPC surface as the
// Worker and the batchers see it, the slices of an object's state and storage they use, what a
// shard's sequencer keeps in its own storage (its identity, its freeze), and how one reaches a
// shard's sequencer or the log's bucket from the bindings. Types and plain functions only (no
// cloudflare:workers import): the Worker and the objects both read it.
import type {
  AgentHead,
  AgentLink,
  AppendResult,
  CarriedKeys,
  StreamQuery,
  TreeHead,
} from "../../log/mod.ts";
import { LogInputError } from "../../log/mod.ts";
import type { DurableSqlStorage } from "../../log/durable/mod.ts";
import {
  type FinalHead,
  LOG_OBJECT_NAME,
  type R2BucketLike,
  sequencerName,
} from "../../log/r2/mod.ts";
import { shardId, shardPrefix } from "../../log/shards/mod.ts";
import type { Outcome } from "./wire.ts";
import { EdgeConfigError } from "./errors.ts";

export { LOG_OBJECT_NAME };

/** A Durable Object namespace binding (the slice used here). */
export interface Namespace<T> {
  idFromName(name: string): unknown;
  get(id: unknown): T;
}

/** The slice of a Durable Object's state the objects use. */
export interface ObjectState {
  storage: DurableSqlStorage;
  blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>;
  abort(reason?: string): void;
}

/** The alarm part of a Durable Object's storage (the collector's rounds run on it). */
export interface AlarmStorage {
  getAlarm(): Promise<number | null>;
  setAlarm(at: number): Promise<void>;
}

/** The KV part of a SQLite-backed object's storage (shard identity, frozen state). */
export interface KvStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  /** Waits until every write so far is durable (workerd's `storage.sync()`). */
  sync?(): Promise<void>;
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

/** The answer to a rotation: the shard active after it. */
export interface RotateResult {
  active: string;
}

/** The steps of a rotation, each durable before the next (docs/SHARDS.md "Lifecycle"). */
export type RotationStep = "created" | "frozen";

/** The sequencer's RPC surface as a batcher and the Worker see it. */
export interface SequencerStub {
  append(entry: Uint8Array, link?: AgentLink): Promise<Outcome<AppendResult>>;
  appendMany(
    entries: Uint8Array[],
    links?: (AgentLink | undefined)[],
  ): Promise<Outcome<AppendResult>[]>;
  agentHead(did: string): Promise<Outcome<AgentHead | undefined>>;
  /** A stream read (issue 24). */
  streamQuery(q: StreamQuery): Promise<Outcome<unknown>>;
  latestHead(): Promise<Outcome<TreeHead>>;
  /** Opens the log if needed and checks its store (a pinned-head refusal fails with its code). */
  check(): Promise<Outcome<void>>;
  rotate(): Promise<Outcome<RotateResult>>;
}

/** A shard sequencer after the first: it is created by the rotation that lists it. */
export interface ShardSequencerStub extends SequencerStub {
  createShard(n: number, logName: string): Promise<Outcome<{ public_key: string }>>;
  /** Writes the key state carried from the shard before (docs/SHARDS.md "Carried state"). */
  carryKeys(c: CarriedKeys): Promise<Outcome<string>>;
}

/** A batcher's RPC surface as the Worker sees it. */
export interface BatcherStub {
  append(entry: Uint8Array, link?: AgentLink, shard?: number): Promise<Outcome<AppendResult>>;
}

/** The sequencer stub of shard n (s0: LOG_SEQUENCER's "log"; sN: LOG_SHARD_SEQUENCER's). */
export function sequencerOf<T>(env: Record<string, unknown>, n: number): T {
  const ns = (n === 0 ? env.LOG_SEQUENCER : env.LOG_SHARD_SEQUENCER) as Namespace<T> | undefined;
  if (!ns || typeof ns.idFromName !== "function") {
    throw new EdgeConfigError(
      `Cannot reach shard ${shardId(n)}: the ${
        n === 0 ? "LOG_SEQUENCER" : "LOG_SHARD_SEQUENCER"
      } Durable Object binding is missing (wrangler.toml)`,
    );
  }
  return ns.get(ns.idFromName(sequencerName(n)));
}

/** The log's bucket (LOG_BUCKET), or EdgeConfigError naming the missing binding. */
export function bucketOf(env: Record<string, unknown>): R2BucketLike {
  const b = env.LOG_BUCKET as R2BucketLike | undefined;
  if (!b || typeof b.put !== "function") {
    throw new EdgeConfigError(
      "Cannot open the log: the LOG_BUCKET R2 binding is missing (wrangler.toml [[r2_buckets]])",
    );
  }
  return b;
}

/** The error a frozen shard answers appends with (409 `shard-frozen` at the Worker). */
export function frozenError(self: number, next: string): LogInputError {
  const n = Number(next.slice(1));
  return new LogInputError(
    "shard-frozen",
    `Cannot append to shard ${shardId(self)}: it is frozen; the active shard is ${next} (${
      shardPrefix(n)
    })`,
  );
}
