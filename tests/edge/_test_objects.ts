// The Durable Objects of the test-only Worker entry (worker_test_entry.ts; docs/EDGE.md "Faults"):
// the production objects (edge/worker/durable_object.ts, batcher_object.ts) subclassed with what
// only tests and the bench reach: stats (RPC calls, appends, the store's figures), fault injection
// (an object restarted after a step of a round or of a rotation, R2 puts that fail, a batcher
// restarted as it forwards) and a forced checkpoint. All refused unless JC_EDGE_TEST_HOOKS=on.
// The production bundle carries none of them (tests/edge/production_bundle_test.ts).
import {
  LogBatcher as ProductionBatcher,
  LogSequencer as ProductionSequencer,
  LogShardSequencer as ProductionShardSequencer,
} from "../../edge/worker/durable_object.ts";
import type { ObjectState, RotationStep, SequencerStub } from "../../edge/worker/object_state.ts";
import { capture, EdgeConfigError, edgeSettings, type Outcome } from "../../edge/worker/mod.ts";
import type { R2BucketLike, R2PutOptions, R2StorageStats, RoundStep } from "../../log/r2/mod.ts";
import type { AgentLink, AppendResult, TreeView } from "../../log/mod.ts";
import type { CollectorRecord, CosignedRecord } from "../../log/c2sp/mod.ts";

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

/** What the sequencer reports (the bench and tests read it). */
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

/** A test sequencer's RPC surface (the production one and the hooks). */
export interface TestSequencerStub extends SequencerStub {
  stats(): Promise<Outcome<SequencerStats>>;
  injectFaults(f: EdgeFaults): Promise<Outcome<void>>;
  flushCheckpoint(): Promise<Outcome<void>>;
}

/** A test batcher's RPC surface. */
export interface TestBatcherStub {
  injectFaults(f: EdgeFaults): Promise<Outcome<void>>;
  stats(): Promise<Outcome<{ forwards: number; forwarded: number }>>;
}

const ROTATION_STEPS: readonly string[] = ["created", "frozen"] satisfies RotationStep[];

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

function hooksOn(env: Record<string, unknown>): boolean {
  try {
    return edgeSettings(env).testHooks;
  } catch {
    return false; // reported by the Worker
  }
}

// deno-lint-ignore no-explicit-any
type SequencerClass = new (...args: any[]) => ProductionSequencer;

/** `Base` with the test hooks: every RPC counted, faults injected, stats and a forced checkpoint. */
function withHooks<B extends SequencerClass>(Base: B) {
  return class extends Base {
    #faults: EdgeFaults = {};
    #calls = 0;
    #appends = 0;
    readonly #ctx: ObjectState;
    readonly #hooks: boolean;

    // deno-lint-ignore no-explicit-any
    constructor(...args: any[]) {
      super(...args);
      this.#ctx = args[0] as ObjectState;
      this.#hooks = hooksOn(args[1] as Record<string, unknown>);
    }

    protected override storeBucket(n: number): R2BucketLike {
      return faultyBucket(super.storeBucket(n), () => this.#faults);
    }

    protected override afterStep(step: RoundStep | RotationStep): void {
      super.afterStep(step);
      const rotation = ROTATION_STEPS.includes(step);
      if ((rotation ? this.#faults.rotateCrashAt : this.#faults.crashAt) !== step) return;
      const why = `injected restart after ${rotation ? "rotation step " : ""}${step}`;
      this.#faults = {};
      this.#ctx.abort(why);
      throw new Error(why);
    }

    /** Test hooks only: counts, storage figures. */
    stats(): Promise<Outcome<SequencerStats>> {
      this.#calls++;
      return capture(() => {
        if (!this.#hooks) throw new EdgeConfigError("Cannot read stats: JC_EDGE_TEST_HOOKS is off");
        const store = this.published();
        return {
          calls: this.#calls,
          appends: this.#appends,
          storage: store && { ...store.stats },
          databaseBytes: store?.databaseBytes() ?? 0,
          frozen: this.frozen(),
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
        await this.publishHeldCheckpoint();
      });
    }

    // Every RPC of the production object, counted (the bench's calls per append).
    override append(entry: Uint8Array, link?: AgentLink) {
      this.#calls++;
      this.#appends++;
      return super.append(entry, link);
    }
    override appendMany(entries: Uint8Array[], links?: (AgentLink | undefined)[]) {
      this.#calls++;
      this.#appends += entries.length;
      return super.appendMany(entries, links);
    }
    override agentHead(did: string) {
      this.#calls++;
      return super.agentHead(did);
    }
    override rotate() {
      this.#calls++;
      return super.rotate();
    }
    override witnessGet(origin: string) {
      this.#calls++;
      return super.witnessGet(origin);
    }
    override witnessHeads() {
      this.#calls++;
      return super.witnessHeads();
    }
    override witnessCas(
      origin: string,
      expected: { size: number; root: Uint8Array } | undefined,
      next: CosignedRecord,
    ) {
      this.#calls++;
      return super.witnessCas(origin, expected, next);
    }
    override collectorGet(witness: string) {
      this.#calls++;
      return super.collectorGet(witness);
    }
    override collectorPut(witness: string, rec: CollectorRecord) {
      this.#calls++;
      return super.collectorPut(witness, rec);
    }
    override servedCheckpoint(latest: string) {
      this.#calls++;
      return super.servedCheckpoint(latest);
    }
    override collectorStatus() {
      this.#calls++;
      return super.collectorStatus();
    }
    override latestHead() {
      this.#calls++;
      return super.latestHead();
    }
    override checkpoint(view: TreeView) {
      this.#calls++;
      return super.checkpoint(view);
    }
    override check() {
      this.#calls++;
      return super.check();
    }
  };
}

/** s0's sequencer with the test hooks (bound as LOG_SEQUENCER). */
export const LogSequencer = withHooks(ProductionSequencer);
/** Every later shard's sequencer with the test hooks (bound as LOG_SHARD_SEQUENCER). */
export const LogShardSequencer = withHooks(ProductionShardSequencer);

/** A batcher with the test hooks: restarted when it next forwards; its forwarding counts. */
export class LogBatcher extends ProductionBatcher {
  #crash = false;
  readonly #ctx: ObjectState;
  readonly #hooks: boolean;

  constructor(ctx: ObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.#ctx = ctx;
    this.#hooks = edgeSettings(env).testHooks;
  }

  protected override forward(
    n: number,
    entries: Uint8Array[],
    links: (AgentLink | undefined)[],
  ): Promise<Outcome<AppendResult>[]> {
    if (this.#crash) {
      this.#crash = false;
      this.#ctx.abort("injected batcher restart");
    }
    return super.forward(n, entries, links);
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
      for (const b of this.batchers()) {
        forwards += b.forwards;
        forwarded += b.forwarded;
      }
      return { forwards, forwarded };
    });
  }
}
