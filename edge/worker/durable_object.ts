// The sequencer Durable Objects of the edge deployment (docs/EDGE.md; ARCHITECTURE "Storage and
// sequencing"; issue 12). `LogSequencer`, one per log, runs the log core's sequencer (openLog)
// over R2PublishedStorage: its SQLite holds only the latest head, the right edge, the rounds not
// yet in R2 and a bounded dedup window; every round is in R2 and covered by a signed head there
// before any append of it is answered (r2_storage.ts). On start it uploads what an interrupted
// round left staged before it serves anything (blockConcurrencyWhile). The shard rotation runs
// here (docs/SHARDS.md), the witness part beside it (object_witness.ts); what the objects share
// and their RPC surface is object_state.ts, the batchers batcher_object.ts. Reads never reach an
// object: the Worker serves them from R2 (r2_log.ts). Test hooks and fault injection are not
// here: the test-only Worker entry subclasses these objects (fixtures/worker_test_entry.ts).
// Loaded only inside workerd (imports cloudflare:workers).
import { DurableObject } from "cloudflare:workers";
import type {
  AgentHead,
  AgentLink,
  AppendResult,
  CarriedKeys,
  Log,
  StreamQuery,
  TreeHead,
  TreeView,
} from "../../log/mod.ts";
import { openDurableStorage } from "../../log/durable/mod.ts";
import type { DurableSqlStorage } from "../../log/durable/mod.ts";
import { logKeyFromEnv, openEdgeLog, SequencerCore } from "./sequencer.ts";
import { capture, type Outcome, unwrap } from "./wire.ts";
import { R2PublishedStorage, type RoundStep } from "../../log/r2/mod.ts";
import type { R2BucketLike } from "../../log/r2/mod.ts";
import {
  checkAgainstPin,
  proveExtends,
  publishedFreeze,
  readPublishedPin,
} from "../../log/r2/mod.ts";
import { edgeSettings } from "./settings.ts";
import {
  finalOf,
  FIRST_TIME_KEY,
  initialState,
  LOG_OBJECT_NAME,
  prefixedBucket,
  readDirectoryState,
  rotatedState,
  shardKeyPrefix,
  writeDirectoryState,
} from "../../log/r2/mod.ts";
import { shardId, shardLogName } from "../../log/shards/mod.ts";
import { isPinnedHeadRefusal, LogIntegrityError, LogStorageError } from "../../log/mod.ts";
import { ed25519PublicKey, fromHex, toHex } from "../../verify/mod.ts";
import type { CollectorRecord, CosignedRecord, OriginHead } from "../../log/c2sp/mod.ts";
import type { WitnessStatus } from "../../api/mod.ts";
import {
  type AlarmStorage,
  bucketOf,
  frozenError,
  type FrozenKv,
  type KvStorage,
  type ObjectState,
  type RotateResult,
  type RotationStep,
  sequencerOf,
  type ShardIdentity,
  type ShardRecordKv,
  type ShardSequencerStub,
} from "./object_state.ts";
import { ObjectWitness, ROUND_MS } from "./object_witness.ts";
import { publishEdgeConfig } from "./verifier_config.ts";

export { LOG_OBJECT_NAME };
export { LogBatcher } from "./batcher_object.ts";
export {
  type BatcherStub,
  type RotateResult,
  type RotationStep,
  sequencerOf,
  type SequencerStub,
  type ShardSequencerStub,
} from "./object_state.ts";

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
  readonly #witness: ObjectWitness;
  #identity: ShardIdentity | undefined;
  /** Set once this shard is frozen (docs/SHARDS.md): appends answer 409 shard-frozen. */
  #frozen: FrozenKv | undefined;
  /** Whether the directory state in R2 is known to list this shard frozen. */
  #listed = false;
  /** While a rotation freezes this shard: appends wait for it, then find it frozen or not. */
  #freezing: Promise<void> | undefined;
  #rotation: Promise<RotateResult> | undefined;
  #listing: Promise<void> | undefined;
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
    this.#core = new SequencerCore(async (): Promise<Log> => {
      const s = edgeSettings(env);
      const id = this.#identity ??= await this.shardIdentity();
      const store = new R2PublishedStorage(
        openDurableStorage(ctx.storage),
        this.storeBucket(id.n),
        {
          secretKey: id.secretKey,
          window: s.dedupWindow,
          checkpointMs: s.checkpointMs,
          onStep: (step) => this.afterStep(step),
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
      // creating: its first entry would start its age (docs/DECISIONS.md), nor in one created and
      // not listed yet (an object restarted mid-rotation): it takes the key state carried into it
      // only while it holds no entry (docs/SHARDS.md "Carried state").
      else if (!this.creating && (directory?.shards.length ?? 1) > id.n) {
        await publishEdgeConfig(log, env, this.#bucket(id.n));
      }
      return log;
    });
    this.#witness = new ObjectWitness({
      storage: this.#storage,
      env,
      log: () => this.#core.log(),
      shardBucket: () => this.#bucket(this.#identity?.n ?? 0),
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

  /** The bucket shard `n`'s store publishes to (its keys' prefix of LOG_BUCKET). */
  protected storeBucket(n: number): R2BucketLike {
    return this.#bucket(n);
  }

  /**
   * After each step of a round (R2PublishedStorage's `onStep`) and of a rotation: nothing here;
   * the test-only entry restarts the object at a step it was asked to (docs/EDGE.md "Faults").
   */
  protected afterStep(_step: RoundStep | RotationStep): void {}

  /** The store, once the log is open. */
  protected published(): R2PublishedStorage | undefined {
    return this.#store;
  }

  /** Whether this shard is frozen (its own record, or the directory's when that was lost). */
  protected frozen(): boolean {
    return this.#frozen !== undefined;
  }

  /** Opens the log and puts a checkpoint held back by the once-a-second rule (docs/EDGE.md E1). */
  protected async publishHeldCheckpoint(): Promise<void> {
    await this.#core.log();
    await this.#store?.flushCheckpoint();
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

  /**
   * The last step of a rotation (docs/SHARDS.md), also run to finish one a crash interrupted:
   * the directory state in R2 lists this shard frozen at its final head and its successor
   * active. Written only while the state still names this shard active.
   */
  #list(): Promise<void> {
    // one at a time: appends finding the shard frozen all call it, the carry must not race
    this.#listing ??= this.#listOnce().finally(() => this.#listing = undefined);
    return this.#listing;
  }

  async #listOnce(): Promise<void> {
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
      // docs/SHARDS.md "Carried state": this shard's key state is final (frozen); it goes into
      // the next shard's store before the directory lists that shard (again after a crash: the
      // carry replaces what an interrupted one wrote; the next shard takes no entry until listed)
      // (the store is open: #list runs from the log's open, after the store is set, or after it)
      const keys = await this.#store!.carriedKeys(shardId(id.n));
      const next = sequencerOf<ShardSequencerStub>(this.#env, id.n + 1);
      unwrap(await next.carryKeys(keys));
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
    this.afterStep("created");
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
    this.afterStep("frozen");
    // 3. The directory state, both changes at once.
    await this.#list();
    return { active: shardId(next) };
  }

  /** Rotates this shard (it must be the active one): `POST /v1/logs/rotate`. */
  rotate(): Promise<Outcome<RotateResult>> {
    return capture(() => this.#rotate());
  }

  // docs/WITNESS.md: the witness state's RPCs (witness_rpc.ts), answered by the witness part.
  witnessGet(origin: string): Promise<Outcome<CosignedRecord | undefined>> {
    return capture(() => this.#witness.state().get(origin));
  }
  witnessHeads(): Promise<Outcome<OriginHead[]>> {
    return capture(() => this.#witness.state().heads());
  }
  witnessCas(
    origin: string,
    expected: { size: number; root: Uint8Array } | undefined,
    next: CosignedRecord,
  ): Promise<Outcome<boolean>> {
    return capture(() => this.#witness.state().compareAndSwap(origin, expected, next));
  }
  collectorGet(witness: string): Promise<Outcome<CollectorRecord | undefined>> {
    return capture(() => this.#witness.state().getCollector(witness));
  }
  collectorPut(witness: string, rec: CollectorRecord): Promise<Outcome<void>> {
    return capture(() => this.#witness.state().putCollector(witness, rec));
  }

  append(entry: Uint8Array, link?: AgentLink): Promise<Outcome<AppendResult>> {
    this.#witness.kick();
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
    this.#witness.kick();
    return this.#run(entries, links);
  }
  agentHead(did: string): Promise<Outcome<AgentHead | undefined>> {
    return this.#core.agentHead(did);
  }
  streamQuery(q: StreamQuery): Promise<Outcome<unknown>> {
    return this.#core.streamQuery(q);
  }
  /**
   * Writes the key state carried from the shard before this one (docs/SHARDS.md "Carried
   * state"), once, before the directory lists this shard; refused once it holds an entry.
   */
  carryKeys(c: CarriedKeys): Promise<Outcome<string>> {
    return capture(async () => {
      await this.#core.log();
      return await this.#store!.carryKeys(c);
    });
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
      await this.publishHeldCheckpoint();
    } catch (e) {
      console.error(`checkpoint alarm: ${(e as Error)?.message ?? e}`);
      // A pinned-head refusal waits for an operator, not for a retry each second (issue 27).
      if (isPinnedHeadRefusal(e)) return;
      await this.#storage.setAlarm(Date.now() + ROUND_MS);
    }
    await this.#witness.round();
  }
  servedCheckpoint(latest: string): Promise<Outcome<string>> {
    return capture(async () => {
      void this.#witness.arm().catch(() => {});
      return (await this.#witness.collector())?.served(latest) ?? latest;
    });
  }
  collectorStatus(): Promise<Outcome<WitnessStatus[]>> {
    return capture(async () => (await (await this.#witness.collector())?.status()) ?? []);
  }
  latestHead(): Promise<Outcome<TreeHead>> {
    return this.#core.latestHead();
  }
  checkpoint(view: TreeView): Promise<Outcome<string>> {
    return this.#core.checkpoint(view);
  }
  check(): Promise<Outcome<void>> {
    return this.#core.check();
  }
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
