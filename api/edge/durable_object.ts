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
import type { AppendResult, Log, TreeHead, TreeView } from "../../log/mod.ts";
import { openDurableStorage } from "../../log/durable/mod.ts";
import type { DurableSqlStorage } from "../../log/durable/mod.ts";
import { logKeyFromEnv, openEdgeLog, SequencerCore } from "./sequencer.ts";
import { capture, type Outcome } from "./wire.ts";
import { R2PublishedStorage, type R2StorageStats, type RoundStep } from "./r2_storage.ts";
import type { R2BucketLike, R2PutOptions } from "./r2.ts";
import { edgeSettings } from "./settings.ts";
import { Batcher } from "./batcher.ts";
import { EdgeConfigError } from "./errors.ts";

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

/** The sequencer, bound as LOG_SEQUENCER in wrangler.toml (SQLite storage). */
export class LogSequencer extends DurableObject {
  readonly #core: SequencerCore;
  readonly #state: ObjectState;
  #store: R2PublishedStorage | undefined;
  #faults: EdgeFaults = {};
  #calls = 0;
  #appends = 0;
  readonly #hooks: boolean;

  constructor(ctx: ObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.#state = ctx;
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

  append(entry: Uint8Array): Promise<Outcome<AppendResult>> {
    this.#calls++;
    this.#appends++;
    return this.#core.append(entry);
  }
  /** A batcher's batch: one call, one Outcome per entry (the core sequences them together). */
  appendMany(entries: Uint8Array[]): Promise<Outcome<AppendResult>[]> {
    this.#calls++;
    this.#appends += entries.length;
    return Promise.all(entries.map((e) => this.#core.append(e)));
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
  append(entry: Uint8Array): Promise<Outcome<AppendResult>>;
  appendMany(entries: Uint8Array[]): Promise<Outcome<AppendResult>[]>;
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
      (entries) => ns.get(ns.idFromName(LOG_OBJECT_NAME)).appendMany(entries),
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

  append(entry: Uint8Array): Promise<Outcome<AppendResult>> {
    return this.#batcher.append(entry);
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
