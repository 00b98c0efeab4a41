// The Durable Objects of the edge deployment (docs/EDGE.md; ARCHITECTURE "Storage and sequencing";
// issue 12). `LogSequencer`, one per log, runs the log core's sequencer (openLog) over
// R2PublishedStorage: its SQLite holds only the latest head, the right edge, the rounds not yet in
// R2 and a bounded dedup window; every round is in R2 and covered by a signed head there before
// any append of it is answered (r2_storage.ts). On start it uploads what an interrupted round
// left staged before it serves anything (blockConcurrencyWhile). `LogBatcher`, B of them, collect
// appends from the front Worker and forward them to the sequencer in batches (batcher.ts). Reads
// never reach either object: the Worker serves them from R2 (r2_log.ts). Loaded only inside
// workerd (imports cloudflare:workers).
import { DurableObject } from "cloudflare:workers";
import type { AgentHead, AgentLink, AppendResult, Log, TreeHead, TreeView } from "../../log/mod.ts";
import { openDurableStorage } from "../../log/durable/mod.ts";
import type { DurableSqlStorage } from "../../log/durable/mod.ts";
import { logKeyFromEnv, openEdgeLog, SequencerCore } from "./sequencer.ts";
import { capture, type Outcome, unwrap } from "./wire.ts";
import { R2PublishedStorage, type R2StorageStats, type RoundStep } from "../../log/r2/mod.ts";
import { checkpointKey, type R2BucketLike, type R2PutOptions } from "../../log/r2/mod.ts";
import {
  checkAgainstPin,
  proveExtends,
  publishedFreeze,
  readPublishedPin,
} from "../../log/r2/mod.ts";
import { edgeConfig, edgeSettings } from "./settings.ts";
import {
  type FinalHead,
  finalOf,
  FIRST_TIME_KEY,
  initialState,
  LOG_OBJECT_NAME,
  prefixedBucket,
  readDirectoryState,
  rotatedState,
  sequencerName,
  shardKeyPrefix,
  writeDirectoryState,
} from "../../log/r2/mod.ts";
import { shardId, shardLogName, shardPrefix } from "../../log/shards/mod.ts";
import {
  isPinnedHeadRefusal,
  LogInputError,
  LogIntegrityError,
  LogStorageError,
} from "../../log/mod.ts";
import { ed25519PublicKey, fromHex, toHex } from "../../verify/mod.ts";
import { Batcher } from "./batcher.ts";
import { EdgeConfigError } from "./errors.ts";
import { publishEdgeConfig } from "./verifier_config.ts";
import { openDurableWitnessState } from "../../log/durable/mod.ts";
import { guardedWitnessState } from "../../log/r2/mod.ts";
import { witnessKeyFromEnv } from "./witness_rpc.ts";
import type {
  CollectorRecord,
  CosignedRecord,
  OriginHead,
  WitnessStateStore,
} from "../../log/c2sp/mod.ts";
import { type CheckpointSource, WitnessCollector, type WitnessStatus } from "../../api/mod.ts";
import { sha256Source } from "../../api/mod.ts";

/** The alarm part of a Durable Object's storage (the collector's rounds run on it). */
interface AlarmStorage {
  getAlarm(): Promise<number | null>;
  setAlarm(at: number): Promise<void>;
}

/** Least time between two collector rounds at the edge, ms (docs/WITNESS.md: about once a second). */
const ROUND_MS = 1000;

export { LOG_OBJECT_NAME };

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
interface ShardIdentity {
  n: number;
  secretKey: Uint8Array;
  /** Undefined for s0: its name is the configured one (JC_LOG_NAME, else from the key). */
  logName?: string;
}

/** Kept in a shard sequencer's storage from its creation (`jc-shard`); the key never leaves it. */
interface ShardRecordKv {
  n: number;
  log_name: string;
  secret: string;
}

/** Kept in a frozen shard's storage (`jc-frozen`): its final head and its successor. */
interface FrozenKv {
  final: FinalHead;
  next: { id: string; public_key: string };
}

/** The KV part of a SQLite-backed object's storage (shard identity, frozen state). */
interface KvStorage {
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

interface ObjectState {
  storage: DurableSqlStorage;
  blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>;
  abort(reason?: string): void;
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

/** The error a frozen shard answers appends with (409 `shard-frozen` at the Worker). */
function frozenError(self: number, next: string): LogInputError {
  const n = Number(next.slice(1));
  return new LogInputError(
    "shard-frozen",
    `Cannot append to shard ${shardId(self)}: it is frozen; the active shard is ${next} (${
      shardPrefix(n)
    })`,
  );
}

/** A bucket whose puts fail as `faults` says (a test's injected R2 outage). */
function faultyBucket(b: R2BucketLike, faults: () => EdgeFaults): R2BucketLike {
  return {
    get: (key) => b.get(key),
    put: (key: string, value: Uint8Array | string, o?: R2PutOptions) => {
      const f = faults();
      if (f.r2FailPuts && f.r2FailPuts > 0) {
        if ((f.r2FailAfterPuts ?? 0) > 0) f.r2FailAfterPuts!--;
        else {
          f.r2FailPuts--;
          return Promise.reject(new Error(`injected R2 put failure (${key})`));
        }
      }
      return b.put(key, value, o);
    },
  };
}

function bucketOf(env: Record<string, unknown>): R2BucketLike {
  const b = env.LOG_BUCKET as R2BucketLike | undefined;
  if (!b || typeof b.put !== "function") {
    throw new EdgeConfigError(
      "Cannot open the log: the LOG_BUCKET R2 binding is missing (wrangler.toml [[r2_buckets]])",
    );
  }
  return b;
}

/**
 * The collector's source in the sequencer (docs/WITNESS.md): the latest SHA-256 checkpoint as R2
 * holds it (the log's own while R2 has none yet), proofs from the log's tiles.
 */
function publishedSha256Source(log: Log, bucket: R2BucketLike): CheckpointSource {
  const own = sha256Source(log);
  return {
    latest: async () => {
      const o = await bucket.get(checkpointKey("sha256"));
      return o ? await o.text() : await own.latest();
    },
    consistency: own.consistency,
  };
}

/**
 * The sequencer of the first shard, s0, bound as LOG_SEQUENCER in wrangler.toml (SQLite storage):
 * the object "log" every deployment before shards has, its key the JC_LOG_KEY secret, its R2
 * keys the bucket's root. `LogShardSequencer` below is the same code for the shards after it.
 */
export class LogSequencer extends DurableObject {
  readonly #core: SequencerCore;
  readonly #state: ObjectState;
  readonly #storage: DurableSqlStorage & AlarmStorage;
  readonly #env: Record<string, unknown>;
  #store: R2PublishedStorage | undefined;
  #faults: EdgeFaults = {};
  #calls = 0;
  #appends = 0;
  readonly #hooks: boolean;
  #witness: WitnessStateStore | undefined;
  #collector: WitnessCollector | undefined;
  #identity: ShardIdentity | undefined;
  /** Set once this shard is frozen (docs/SHARDS.md): appends answer 409 shard-frozen. */
  #frozen: FrozenKv | undefined;
  /** Whether the directory state in R2 is known to list this shard frozen. */
  #listed = false;
  /** While a rotation freezes this shard: appends wait for it, then find it frozen or not. */
  #freezing: Promise<void> | undefined;
  #rotation: Promise<RotateResult> | undefined;
  /** Appends handed to the log core and not yet answered (a freeze drains them). */
  readonly #inflight = new Set<Promise<unknown>>();
  #firstTime: string | undefined;
  /** Set while `createShard` opens a new shard (issue 23: no configuration entry then). */
  protected creating = false;

  constructor(ctx: ObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.#state = ctx;
    this.#storage = ctx.storage as DurableSqlStorage & AlarmStorage;
    this.#env = env;
    let hooks = false;
    try {
      hooks = edgeSettings(env).testHooks;
    } catch { /* reported by the Worker */ }
    this.#hooks = hooks;
    this.#core = new SequencerCore(async (): Promise<Log> => {
      const s = edgeSettings(env);
      const id = this.#identity ??= await this.shardIdentity();
      const store = new R2PublishedStorage(
        openDurableStorage(ctx.storage),
        faultyBucket(this.#bucket(id.n), () => this.#faults),
        {
          secretKey: id.secretKey,
          window: s.dedupWindow,
          checkpointMs: s.checkpointMs,
          onStep: (step) => this.#onStep(step),
          onCheckpointDeferred: (at) => this.#armCheckpoint(at),
        },
      );
      // Issue 27 (docs/EDGE.md "Pinned state"): before the log opens (an empty store's open
      // signs and publishes a fresh head), the store must not be behind what R2 published.
      const local = await store.latestHead();
      const [pin, directory] = await Promise.all([
        readPublishedPin(this.#bucket(id.n), local?.size ?? 0),
        readDirectoryState(bucketOf(env)),
      ]);
      const below = checkAgainstPin(local, pin, await store.logName());
      const log = await openEdgeLog(
        store,
        env,
        id.logName === undefined ? undefined : { secretKey: id.secretKey, logName: id.logName },
      );
      if (local) {
        await proveExtends(local, below, (first) => log.consistencyProof(first, local.size));
      }
      const listedFrozen = publishedFreeze(directory, id.n, local);
      await store.replay(); // what an interrupted round staged goes out before anything else
      await store.flushCheckpoint(); // and a checkpoint held back when the object stopped
      this.#store = store;
      this.#frozen = await this.#kv().get<FrozenKv>("jc-frozen");
      if (!this.#frozen && listedFrozen) {
        // The object's freeze record was lost or rolled back; R2's directory still lists it.
        await this.#kv().put("jc-frozen", listedFrozen);
        this.#frozen = listedFrozen;
        this.#listed = true;
      }
      // A rotation interrupted after the freeze: finish it (write the directory) before serving.
      if (this.#frozen) await this.#list().catch(() => {});
      // Issue 23: the configuration in force, logged in the shard taking appends when it changed
      // (before any append is let in: blockConcurrencyWhile below); not in a shard a rotation is
      // creating: its first entry would start its age (docs/DECISIONS.md).
      else if (!this.creating) await publishEdgeConfig(log, env, this.#bucket(id.n));
      return log;
    });
    // Open (and replay) before the first call is let in; a failure is reported by that call.
    ctx.blockConcurrencyWhile(() => this.#core.log().then(() => {}, () => {}));
  }

  /** Which shard this object sequences (s0 here; LogShardSequencer reads its storage). */
  protected shardIdentity(): Promise<ShardIdentity> {
    return Promise.resolve({ n: 0, secretKey: logKeyFromEnv(this.#env) });
  }

  protected kvStorage(): KvStorage {
    return this.#kv();
  }
  #kv(): KvStorage {
    return this.#state.storage as unknown as KvStorage;
  }
  #bucket(n: number): R2BucketLike {
    return prefixedBucket(bucketOf(this.#env), shardKeyPrefix(n));
  }

  /** Opens the log (a new shard's creation opens it: its empty head and checkpoints go to R2). */
  protected async openLog(): Promise<Log> {
    return await this.#core.log();
  }

  /**
   * Runs appends through the log core unless this shard is frozen (docs/SHARDS.md): the check
   * and the hand-over are synchronous, so a freeze that drains `#inflight` sees every append
   * it let in.
   */
  async #run(
    entries: Uint8Array[],
    links: (AgentLink | undefined)[] | undefined,
  ): Promise<Outcome<AppendResult>[]> {
    // Open first: opening loads the frozen record, which the checks below must see.
    const opened = await capture(() => this.#core.log());
    if (!opened.ok) return entries.map(() => opened as Outcome<never>);
    for (;;) {
      if (this.#frozen) {
        const f = this.#frozen;
        const o = await capture(async () => {
          await this.#list(); // the directory names the active shard before a 409 does
          throw frozenError(this.#identity?.n ?? 0, f.next.id);
        });
        return entries.map(() => o as Outcome<AppendResult>);
      }
      if (!this.#freezing) break;
      await this.#freezing;
    }
    const all = Promise.all(entries.map((e, k) => this.#core.append(e, links?.[k] ?? undefined)));
    this.#inflight.add(all);
    try {
      const outs = await all;
      this.#afterRound(outs);
      return outs;
    } finally {
      this.#inflight.delete(all);
    }
  }

  /** Rotation by size or age (docs/SHARDS.md), checked after each round. */
  #afterRound(outs: Outcome<AppendResult>[]): void {
    let s;
    try {
      s = edgeSettings(this.#env);
    } catch {
      return;
    }
    if (!s.shardMaxSize && !s.shardMaxAgeS) return;
    const size = Math.max(0, ...outs.map((o) => (o.ok ? o.value.tree_head.size : 0)));
    const bySize = s.shardMaxSize > 0 && size >= s.shardMaxSize;
    void (async () => {
      let byAge = false;
      if (!bySize && s.shardMaxAgeS > 0 && size > 0) {
        this.#firstTime ??= await (await this.#bucket(this.#identity?.n ?? 0).get(FIRST_TIME_KEY))
          ?.text();
        byAge = this.#firstTime !== undefined &&
          Date.now() - Date.parse(this.#firstTime) >= s.shardMaxAgeS * 1000;
      }
      if ((bySize || byAge) && !this.#frozen) await this.#rotate();
    })().catch((e) => console.error(`shard rotation failed: ${(e as Error)?.message ?? e}`));
  }

  /** Restarts the object after a rotation step when a test asked for it (test hooks). */
  #rotationStep(step: RotationStep): void {
    if (this.#faults.rotateCrashAt === step) {
      this.#faults = {};
      this.#state.abort(`injected restart after rotation step ${step}`);
      throw new Error(`injected restart after rotation step ${step}`);
    }
  }

  /**
   * The last step of a rotation (docs/SHARDS.md), also run to finish one a crash interrupted:
   * the directory state in R2 lists this shard frozen at its final head and its successor
   * active. Written only while the state still names this shard active.
   */
  async #list(): Promise<void> {
    if (this.#listed || !this.#frozen) return;
    const id = this.#identity ??= await this.shardIdentity();
    const bucket = bucketOf(this.#env);
    const state = await this.#directoryState(bucket, id);
    const me = state.shards[id.n];
    if (!me) throw new LogIntegrityError(`Cannot list ${shardId(id.n)}: not in the directory`);
    if (me.state === "active") {
      if (state.shards.length !== id.n + 1) {
        throw new LogIntegrityError(`Cannot list ${shardId(id.n)}: not the last shard`);
      }
      await writeDirectoryState(
        bucket,
        rotatedState(state, this.#frozen.final, this.#frozen.next.public_key),
      );
    }
    this.#listed = true;
  }

  async #directoryState(bucket: R2BucketLike, id: ShardIdentity) {
    const state = await readDirectoryState(bucket);
    if (state) return state;
    if (id.n !== 0) throw new LogIntegrityError("Cannot rotate: no directory state in R2");
    const log = await this.#core.log();
    return initialState(log.logName(), toHex(ed25519PublicKey(id.secretKey)));
  }

  /**
   * A rotation (docs/SHARDS.md "Lifecycle"), each step durable before the next: the next shard
   * is created (its key generated in its own object, its empty head and checkpoints in R2);
   * this one is frozen (appends wait, every append it let in is answered, its final checkpoints
   * are in R2, the freeze is recorded in its storage); then the directory state is written.
   * One at a time; a rotation of a frozen shard finishes the one it is in.
   */
  #rotate(): Promise<RotateResult> {
    this.#rotation ??= this.#rotateOnce().finally(() => this.#rotation = undefined);
    return this.#rotation;
  }

  async #rotateOnce(): Promise<RotateResult> {
    await this.#core.log();
    const id = this.#identity!;
    if (this.#frozen) {
      await this.#list();
      return { active: this.#frozen.next.id };
    }
    const bucket = bucketOf(this.#env);
    const state = await this.#directoryState(bucket, id);
    if (state.shards.length !== id.n + 1) {
      throw new LogIntegrityError(`Cannot rotate ${shardId(id.n)}: it is not the active shard`);
    }
    // 1. The next shard: created (or found, when an interrupted rotation created it already).
    const next = id.n + 1;
    const created = unwrap(
      await sequencerOf<ShardSequencerStub>(this.#env, next).createShard(
        next,
        shardLogName(state.shards[0].log_name, next),
      ),
    );
    this.#rotationStep("created");
    // 2. Freeze: new appends wait; those let in are answered; the final head is in R2.
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#freezing = promise;
    try {
      while (this.#inflight.size) await Promise.allSettled([...this.#inflight]);
      const store = this.#store!;
      await store.replay();
      const head = await store.latestHead();
      if (!head) throw new LogIntegrityError("Cannot freeze: the shard has no head");
      await store.checkpointAt(head.size);
      const first = head.size > 0
        ? await (await this.#bucket(id.n).get(FIRST_TIME_KEY))?.text()
        : undefined;
      const frozen: FrozenKv = {
        final: finalOf(head, first ?? null),
        next: { id: shardId(next), public_key: created.public_key },
      };
      await this.#kv().put("jc-frozen", frozen);
      await this.#kv().sync?.(); // durable before the next step (a restart keeps it)
      this.#frozen = frozen;
    } finally {
      this.#freezing = undefined;
      resolve();
    }
    this.#rotationStep("frozen");
    // 3. The directory state, both changes at once.
    await this.#list();
    return { active: shardId(next) };
  }

  /** Rotates this shard (it must be the active one): `POST /v1/logs/rotate`. */
  rotate(): Promise<Outcome<RotateResult>> {
    this.#calls++;
    return capture(() => this.#rotate());
  }

  #onStep(step: RoundStep): void {
    if (this.#faults.crashAt === step) {
      this.#faults = {};
      this.#state.abort(`injected restart after ${step}`);
      throw new Error(`injected restart after ${step}`);
    }
  }

  // docs/WITNESS.md: the witness role's state beside the sequencer's tables in this object's
  // SQLite (never in R2: it is not part of the published log), one call at a time; lost or rolled
  // back with the log's store, so refused while the log's open is, or when the witness's mark in
  // R2 says it cosigned and it holds nothing (issue 27, witness_guard.ts).
  #ws(): WitnessStateStore {
    return this.#witness ??= guardedWitnessState(
      () => openDurableWitnessState(this.#storage),
      () => this.#core.log(),
      { bucket: () => bucketOf(this.#env), witnessKey: () => witnessKeyFromEnv(this.#env) },
    );
  }
  witnessGet(origin: string): Promise<Outcome<CosignedRecord | undefined>> {
    this.#calls++;
    return capture(() => this.#ws().get(origin));
  }
  witnessHeads(): Promise<Outcome<OriginHead[]>> {
    this.#calls++;
    return capture(() => this.#ws().heads());
  }
  witnessCas(
    origin: string,
    expected: { size: number; root: Uint8Array } | undefined,
    next: CosignedRecord,
  ): Promise<Outcome<boolean>> {
    this.#calls++;
    return capture(() => this.#ws().compareAndSwap(origin, expected, next));
  }
  collectorGet(witness: string): Promise<Outcome<CollectorRecord | undefined>> {
    this.#calls++;
    return capture(() => this.#ws().getCollector(witness));
  }
  collectorPut(witness: string, rec: CollectorRecord): Promise<Outcome<void>> {
    this.#calls++;
    return capture(() => this.#ws().putCollector(witness, rec));
  }

  append(entry: Uint8Array, link?: AgentLink): Promise<Outcome<AppendResult>> {
    this.#calls++;
    this.#appends++;
    this.#kickCollector();
    return this.#run([entry], [link]).then((o) => o[0]);
  }
  /**
   * A batcher's batch: one call, one Outcome per entry (the core sequences them together);
   * `links[k]` is entry k's agent link (a meter reading's chain head moves in its commit).
   */
  appendMany(
    entries: Uint8Array[],
    links?: (AgentLink | undefined)[],
  ): Promise<Outcome<AppendResult>[]> {
    this.#calls++;
    this.#appends += entries.length;
    this.#kickCollector();
    return this.#run(entries, links);
  }
  agentHead(did: string): Promise<Outcome<AgentHead | undefined>> {
    this.#calls++;
    return this.#core.agentHead(did);
  }

  #kickCollector(): void {
    void this.#armCollector().catch((e) => console.error(`witness collector: ${e}`));
  }

  // docs/WITNESS.md: the cosignature collector runs in this object, one round per alarm, at most
  // about once a second, off the append path; its state is the witness state above. It asks the
  // witnesses to cosign the SHA-256 checkpoint published in R2 (what the Worker serves beside
  // it, so a cosigned checkpoint is never ahead of R2's heads), and proves consistency from the
  // log's tiles, which R2PublishedStorage reads from SQLite's right edge or R2's full tiles.
  async #collectorOf(): Promise<WitnessCollector | undefined> {
    if (this.#collector) return this.#collector;
    const witnesses = edgeConfig(this.#env).witnesses;
    if (witnesses.length === 0) return undefined;
    this.#collector = new WitnessCollector({
      witnesses,
      source: publishedSha256Source(await this.#core.log(), this.#bucket(this.#identity?.n ?? 0)),
      state: this.#ws(),
    });
    return this.#collector;
  }
  async #armCollector(): Promise<void> {
    if (!(await this.#collectorOf())) return;
    if ((await this.#storage.getAlarm()) === null) {
      await this.#storage.setAlarm(Date.now() + ROUND_MS);
    }
  }
  /** A held-back checkpoint is due at `at`: an alarm then, unless one is set sooner. */
  #armCheckpoint(at: number): void {
    void (async () => {
      const set = await this.#storage.getAlarm();
      if (set === null || set > at) await this.#storage.setAlarm(at);
    })().catch((e) => console.error(`checkpoint alarm: ${(e as Error)?.message ?? e}`));
  }
  async alarm(): Promise<void> {
    // A checkpoint held back by the once-a-second rule (docs/EDGE.md E1): opening the log (after
    // an eviction) publishes it, else the flush does; a failure re-arms the alarm.
    try {
      await this.#core.log();
      await this.#store?.flushCheckpoint();
    } catch (e) {
      console.error(`checkpoint alarm: ${(e as Error)?.message ?? e}`);
      // A pinned-head refusal waits for an operator, not for a retry each second (issue 27).
      if (isPinnedHeadRefusal(e)) return;
      await this.#storage.setAlarm(Date.now() + ROUND_MS);
    }
    const c = await this.#collectorOf();
    if (!c) return;
    try {
      await c.round();
    } catch (e) {
      console.error(`witness collector: round failed: ${(e as Error)?.message ?? e}`);
    } finally {
      await this.#storage.setAlarm(Date.now() + ROUND_MS);
    }
  }
  servedCheckpoint(latest: string): Promise<Outcome<string>> {
    this.#calls++;
    return capture(async () => {
      void this.#armCollector().catch(() => {});
      return (await this.#collectorOf())?.served(latest) ?? latest;
    });
  }
  collectorStatus(): Promise<Outcome<WitnessStatus[]>> {
    this.#calls++;
    return capture(async () => (await (await this.#collectorOf())?.status()) ?? []);
  }
  latestHead(): Promise<Outcome<TreeHead>> {
    this.#calls++;
    return this.#core.latestHead();
  }
  checkpoint(view: TreeView): Promise<Outcome<string>> {
    this.#calls++;
    return this.#core.checkpoint(view);
  }
  check(): Promise<Outcome<void>> {
    this.#calls++;
    return this.#core.check();
  }
  /** Test hooks only: counts, storage figures. */
  stats(): Promise<Outcome<SequencerStats>> {
    this.#calls++;
    return capture(() => {
      if (!this.#hooks) throw new EdgeConfigError("Cannot read stats: JC_EDGE_TEST_HOOKS is off");
      return {
        calls: this.#calls,
        appends: this.#appends,
        storage: this.#store && { ...this.#store.stats },
        databaseBytes: this.#store?.databaseBytes() ?? 0,
        frozen: this.#frozen !== undefined,
      };
    });
  }
  /** Test hooks only: injects faults into the next rounds. */
  injectFaults(f: EdgeFaults): Promise<Outcome<void>> {
    this.#calls++;
    return capture(() => {
      if (!this.#hooks) throw new EdgeConfigError("Cannot inject: JC_EDGE_TEST_HOOKS is off");
      this.#faults = { ...f };
    });
  }
  /** Test hooks only: puts a checkpoint held back by the once-a-second rule now. */
  flushCheckpoint(): Promise<Outcome<void>> {
    this.#calls++;
    return capture(async () => {
      if (!this.#hooks) throw new EdgeConfigError("Cannot flush: JC_EDGE_TEST_HOOKS is off");
      await this.#core.log();
      await this.#store?.flushCheckpoint();
    });
  }
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
  createShard(n: number, logName: string): Promise<Outcome<{ public_key: string }>>;
}

/**
 * The sequencer of every shard after the first (docs/SHARDS.md), bound as LOG_SHARD_SEQUENCER
 * (object "shard-sN"; R2 keys under `shards/sN/`). Created by a rotation (`createShard`), which
 * generates its Ed25519 key and keeps it in the object's own storage; it never leaves the object.
 * An object never created refuses to open (`shard-unknown`).
 */
export class LogShardSequencer extends LogSequencer {
  protected override async shardIdentity(): Promise<ShardIdentity> {
    const rec = await this.kvStorage().get<ShardRecordKv>("jc-shard");
    if (!rec) {
      throw new LogStorageError("shard-unknown", "Cannot open the shard: it was never created");
    }
    return { n: rec.n, secretKey: fromHex(rec.secret), logName: rec.log_name };
  }

  /**
   * Creates shard `n` named `logName` (the first step of a rotation): a fresh key, kept here;
   * the log opened, so its signed empty head and checkpoints are in R2. Again on the same
   * object (an interrupted rotation retried): the same key, nothing changed.
   */
  createShard(n: number, logName: string): Promise<Outcome<{ public_key: string }>> {
    return capture(async () => {
      const kv = this.kvStorage();
      let rec = await kv.get<ShardRecordKv>("jc-shard");
      if (!rec) {
        const secret = toHex(crypto.getRandomValues(new Uint8Array(32)));
        rec = { n, log_name: logName, secret };
        await kv.put("jc-shard", rec);
        await kv.sync?.();
      }
      if (rec.n !== n || rec.log_name !== logName) {
        throw new LogIntegrityError(
          `Cannot create shard ${shardId(n)}: this object is ${rec.log_name}`,
        );
      }
      this.creating = true;
      try {
        await this.openLog();
      } finally {
        this.creating = false;
      }
      return { public_key: toHex(ed25519PublicKey(fromHex(rec.secret))) };
    });
  }
}

interface Namespace<T> {
  idFromName(name: string): unknown;
  get(id: unknown): T;
}

/**
 * A batcher, bound as LOG_BATCHER in wrangler.toml (nothing durable). It batches for each shard
 * apart (`shard`: its number; s0 when absent), forwarding to that shard's sequencer.
 */
export class LogBatcher extends DurableObject {
  readonly #batchers = new Map<number, Batcher>();
  readonly #state: ObjectState;
  readonly #env: Record<string, unknown>;
  #crash = false;
  readonly #hooks: boolean;

  constructor(ctx: ObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.#state = ctx;
    this.#env = env;
    this.#hooks = edgeSettings(env).testHooks;
  }

  #batcher(n: number): Batcher {
    let b = this.#batchers.get(n);
    if (b) return b;
    const s = edgeSettings(this.#env);
    b = new Batcher(
      (entries, links) =>
        sequencerOf<SequencerStub>(this.#env, n).appendMany(
          entries,
          links.some((l) => l !== undefined) ? links : undefined,
        ),
      s.batchMax,
      s.batchAgeMs,
    );
    b.beforeForward = () => {
      if (this.#crash) {
        this.#crash = false;
        this.#state.abort("injected batcher restart");
      }
    };
    this.#batchers.set(n, b);
    return b;
  }

  append(entry: Uint8Array, link?: AgentLink, shard = 0): Promise<Outcome<AppendResult>> {
    return this.#batcher(shard).append(entry, link);
  }
  /** Test hooks only: restart this batcher when it next forwards (its appends pending). */
  injectFaults(f: EdgeFaults): Promise<Outcome<void>> {
    return capture(() => {
      if (!this.#hooks) throw new EdgeConfigError("Cannot inject: JC_EDGE_TEST_HOOKS is off");
      this.#crash = f.batcherCrash === true;
    });
  }
  /** Calls this batcher made to the sequencers and appends it forwarded (all shards). */
  stats(): Promise<Outcome<{ forwards: number; forwarded: number }>> {
    return capture(() => {
      let forwards = 0, forwarded = 0;
      for (const b of this.#batchers.values()) {
        forwards += b.forwards;
        forwarded += b.forwarded;
      }
      return { forwards, forwarded };
    });
  }
}
