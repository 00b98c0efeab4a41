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
import { capture, type Outcome } from "./wire.ts";
import { R2PublishedStorage, type R2StorageStats, type RoundStep } from "./r2_storage.ts";
import { checkpointKey, type R2BucketLike, type R2PutOptions } from "./r2.ts";
import { edgeConfig, edgeSettings } from "./settings.ts";
import { Batcher } from "./batcher.ts";
import { EdgeConfigError } from "./errors.ts";
import { openDurableWitnessState } from "../../log/durable/witness_state.ts";
import type {
  CollectorRecord,
  CosignedRecord,
  WitnessStateStore,
} from "../../log/c2sp/witness_state.ts";
import {
  type CheckpointSource,
  WitnessCollector,
  type WitnessStatus,
} from "../witness_collector.ts";
import { sha256Source } from "../witness_source.ts";

/** The alarm part of a Durable Object's storage (the collector's rounds run on it). */
interface AlarmStorage {
  getAlarm(): Promise<number | null>;
  setAlarm(at: number): Promise<void>;
}

/** Least time between two collector rounds at the edge, ms (docs/WITNESS.md: about once a second). */
const ROUND_MS = 1000;

/** Name of the one sequencer instance that holds the log. */
export const LOG_OBJECT_NAME = "log";

/** Faults a test injects (JC_EDGE_TEST_HOOKS=on only; docs/EDGE.md "Faults"). */
export interface EdgeFaults {
  /** Restart the object (ctx.abort) right after this step of the next round. */
  crashAt?: RoundStep;
  /** Let this many more R2 puts succeed, then fail the next `r2FailPuts` puts. */
  r2FailAfterPuts?: number;
  r2FailPuts?: number;
  /** Batcher: restart it when it is about to forward a batch (appends pending). */
  batcherCrash?: boolean;
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
}

interface ObjectState {
  storage: DurableSqlStorage;
  blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>;
  abort(reason?: string): void;
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

/** The sequencer, bound as LOG_SEQUENCER in wrangler.toml (SQLite storage). */
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
      const store = new R2PublishedStorage(
        openDurableStorage(ctx.storage),
        faultyBucket(bucketOf(env), () => this.#faults),
        {
          secretKey: logKeyFromEnv(env),
          window: s.dedupWindow,
          checkpointMs: s.checkpointMs,
          onStep: (step) => this.#onStep(step),
        },
      );
      const log = await openEdgeLog(store, env);
      await store.replay(); // what an interrupted round staged goes out before anything else
      await store.flushCheckpoint(); // and a checkpoint held back when the object stopped
      this.#store = store;
      return log;
    });
    // Open (and replay) before the first call is let in; a failure is reported by that call.
    ctx.blockConcurrencyWhile(() => this.#core.log().then(() => {}, () => {}));
  }

  #onStep(step: RoundStep): void {
    if (this.#faults.crashAt === step) {
      this.#faults = {};
      this.#state.abort(`injected restart after ${step}`);
      throw new Error(`injected restart after ${step}`);
    }
  }

  // docs/WITNESS.md: the witness role's state beside the sequencer's tables in this object's
  // SQLite (never in R2: it is not part of the published log), one call at a time.
  #ws(): WitnessStateStore {
    return this.#witness ??= openDurableWitnessState(this.#storage);
  }
  witnessGet(origin: string): Promise<Outcome<CosignedRecord | undefined>> {
    this.#calls++;
    return capture(() => this.#ws().get(origin));
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
    return this.#core.append(entry, link);
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
    return Promise.all(entries.map((e, k) => this.#core.append(e, links?.[k] ?? undefined)));
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
      source: publishedSha256Source(await this.#core.log(), bucketOf(this.#env)),
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
  async alarm(): Promise<void> {
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
  stats(): Promise<Outcome<SequencerStats>>;
  injectFaults(f: EdgeFaults): Promise<Outcome<void>>;
  flushCheckpoint(): Promise<Outcome<void>>;
}

interface Namespace<T> {
  idFromName(name: string): unknown;
  get(id: unknown): T;
}

/** A batcher, bound as LOG_BATCHER in wrangler.toml (nothing durable). */
export class LogBatcher extends DurableObject {
  readonly #batcher: Batcher;
  readonly #state: ObjectState;
  #crash = false;
  readonly #hooks: boolean;

  constructor(ctx: ObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.#state = ctx;
    const s = edgeSettings(env);
    this.#hooks = s.testHooks;
    const ns = env.LOG_SEQUENCER as Namespace<SequencerStub>;
    this.#batcher = new Batcher(
      (entries, links) =>
        ns.get(ns.idFromName(LOG_OBJECT_NAME)).appendMany(
          entries,
          links.some((l) => l !== undefined) ? links : undefined,
        ),
      s.batchMax,
      s.batchAgeMs,
    );
    this.#batcher.beforeForward = () => {
      if (this.#crash) {
        this.#crash = false;
        this.#state.abort("injected batcher restart");
      }
    };
  }

  append(entry: Uint8Array, link?: AgentLink): Promise<Outcome<AppendResult>> {
    return this.#batcher.append(entry, link);
  }
  /** Test hooks only: restart this batcher when it next forwards (its appends pending). */
  injectFaults(f: EdgeFaults): Promise<Outcome<void>> {
    return capture(() => {
      if (!this.#hooks) throw new EdgeConfigError("Cannot inject: JC_EDGE_TEST_HOOKS is off");
      this.#crash = f.batcherCrash === true;
    });
  }
  /** Calls this batcher made to the sequencer and appends it forwarded. */
  stats(): Promise<Outcome<{ forwards: number; forwarded: number }>> {
    return capture(() => ({
      forwards: this.#batcher.forwards,
      forwarded: this.#batcher.forwarded,
    }));
  }
}
