// The witness part of a shard's sequencer object (docs/WITNESS.md): the witness role's state
// beside the sequencer's tables in the object's SQLite (never in R2: it is not part of the
// published log), and the cosignature collector, one round per alarm, at most about once a
// second, off the append path. The state is lost or rolled back with the log's store, so it is
// refused while the log's open is, or when the witness's mark in R2 says it cosigned and it holds
// nothing (issue 27, log/r2/witness_guard.ts). The collector asks the witnesses to cosign the
// SHA-256 checkpoint published in R2 (what the Worker serves beside it, so a cosigned checkpoint
// is never ahead of R2's heads), and proves consistency from the log's tiles.
import type { Log } from "../../log/mod.ts";
import { openDurableWitnessState } from "../../log/durable/mod.ts";
import type { DurableSqlStorage } from "../../log/durable/mod.ts";
import { checkpointKey, guardedWitnessState, type R2BucketLike } from "../../log/r2/mod.ts";
import type { WitnessStateStore } from "../../log/c2sp/mod.ts";
import { type CheckpointSource, sha256Source, WitnessCollector } from "../../api/mod.ts";
import { edgeConfig } from "./settings.ts";
import { witnessKeyFromEnv } from "./witness_rpc.ts";
import { type AlarmStorage, bucketOf } from "./object_state.ts";

/** Least time between two collector rounds at the edge, ms (about once a second). */
export const ROUND_MS = 1000;

/**
 * The collector's source in the sequencer: the latest SHA-256 checkpoint as R2 holds it (the
 * log's own while R2 has none yet), proofs from the log's tiles.
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

/** What the witness part is given by its object. */
export interface ObjectWitnessOptions {
  storage: DurableSqlStorage & AlarmStorage;
  env: Record<string, unknown>;
  /** Opens the object's log (its refusal refuses the witness state too). */
  log: () => Promise<Log>;
  /** The shard's own bucket (its keys' prefix), known once the log is open. */
  shardBucket: () => R2BucketLike;
}

/** The witness state and the collector of one sequencer object. */
export class ObjectWitness {
  readonly #o: ObjectWitnessOptions;
  #state: WitnessStateStore | undefined;
  #collector: WitnessCollector | undefined;

  constructor(o: ObjectWitnessOptions) {
    this.#o = o;
  }

  /** The witness state, guarded (one call at a time). */
  state(): WitnessStateStore {
    const { storage, env, log } = this.#o;
    return this.#state ??= guardedWitnessState(() => openDurableWitnessState(storage), log, {
      bucket: () => bucketOf(env),
      witnessKey: () => witnessKeyFromEnv(env),
    });
  }

  /** The collector, when witnesses are configured. */
  async collector(): Promise<WitnessCollector | undefined> {
    if (this.#collector) return this.#collector;
    const witnesses = edgeConfig(this.#o.env).witnesses;
    if (witnesses.length === 0) return undefined;
    this.#collector = new WitnessCollector({
      witnesses,
      source: publishedSha256Source(await this.#o.log(), this.#o.shardBucket()),
      state: this.state(),
    });
    return this.#collector;
  }

  /** Arms the alarm of the next round (when witnesses are configured and none is set). */
  async arm(): Promise<void> {
    if (!(await this.collector())) return;
    if ((await this.#o.storage.getAlarm()) === null) {
      await this.#o.storage.setAlarm(Date.now() + ROUND_MS);
    }
  }

  /** Arms the next round off the caller's path (an append). */
  kick(): void {
    void this.arm().catch((e) => console.error(`witness collector: ${e}`));
  }

  /** One round at an alarm; the next is armed whatever it did. */
  async round(): Promise<void> {
    const c = await this.collector();
    if (!c) return;
    try {
      await c.round();
    } catch (e) {
      console.error(`witness collector: round failed: ${(e as Error)?.message ?? e}`);
    } finally {
      await this.#o.storage.setAlarm(Date.now() + ROUND_MS);
    }
  }
}
