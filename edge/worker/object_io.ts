// What the sequencer object (edge/worker/durable_object.ts) reaches outside itself: its R2 bucket
// (through a test's injected put failures), the collector's SHA-256 source as R2 holds it, and the
// refusal a frozen shard answers appends with.
import { type Log, LogInputError } from "../../log/mod.ts";
import { checkpointKey, type R2BucketLike, type R2PutOptions } from "../../log/r2/mod.ts";
import { shardId, shardPrefix } from "../../log/shards/mod.ts";
import { EdgeConfigError } from "./errors.ts";
import { type CheckpointSource, sha256Source } from "../../api/mod.ts";
import type { EdgeFaults } from "./object_types.ts";

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

/** A bucket whose puts fail as `faults` says (a test's injected R2 outage). */
export function faultyBucket(
  b: R2BucketLike,
  faults: () => EdgeFaults,
): R2BucketLike {
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

export function bucketOf(env: Record<string, unknown>): R2BucketLike {
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
export function publishedSha256Source(
  log: Log,
  bucket: R2BucketLike,
): CheckpointSource {
  const own = sha256Source(log);
  return {
    latest: async () => {
      const o = await bucket.get(checkpointKey("sha256"));
      return o ? await o.text() : await own.latest();
    },
    consistency: own.consistency,
  };
}
