// The configuration in force on the Worker (issue 23; docs/EDGE.md): each shard's sequencer (the
// Durable Object that alone appends to it) logs the verifier-config/1 document when it opens the
// shard taking appends and the rules differ from the last one logged there — a deployment that
// changes the rules restarts the objects, so every change is in the log, as at a Deno start. The
// Worker's apps read it back from the log (api/services/verifier_config_log.ts). Signed by
// JC_OPERATOR_KEY; without one nothing signs a configuration and none is logged or answered.
import type { Log } from "../../log/mod.ts";
import type { R2BucketLike } from "../../log/r2/mod.ts";
import type { ConfigHeadOf, ShardLogs } from "../../api/mod.ts";
import {
  defaultRules,
  operatorDid,
  publishVerifierConfig,
  VerifierConfigs,
  verifierOptions,
} from "../../api/mod.ts";
import { edgeConfig } from "./settings.ts";
import { operatorKeyFromEnv } from "./shard_front.ts";

/**
 * The R2 key (below the shard's prefix) of its configuration chain's head, `{digest, index}`:
 * the apps read it there, so a read of an entry never reaches a Durable Object (docs/EDGE.md).
 */
export const CONFIG_HEAD_KEY = "verifier-config/head";

/**
 * Logs the configuration in `log` (a shard's own, opened by its sequencer) when it changed, and
 * publishes the chain's head to the shard's bucket.
 */
export async function publishEdgeConfig(
  log: Log,
  env: Record<string, unknown>,
  bucket: R2BucketLike,
): Promise<void> {
  const operator = operatorKeyFromEnv(env);
  if (!operator) return;
  const config = edgeConfig(env);
  const ledger = await publishVerifierConfig(
    log,
    config,
    verifierOptions(config),
    <T>(f: (secret: Uint8Array) => T) => f(operator),
  );
  const last = ledger.last();
  if (last) await bucket.put(CONFIG_HEAD_KEY, JSON.stringify(last.ref));
}

/** The head of a shard's chain as its bucket holds it (undefined: none logged). */
export function r2ConfigHead(
  bucketOf: (log: Log) => R2BucketLike | undefined,
): ConfigHeadOf {
  return async (log) => {
    const o = await bucketOf(log)?.get(CONFIG_HEAD_KEY);
    if (!o) return undefined;
    const ref = JSON.parse(await o.text()) as {
      digest?: unknown;
      index?: unknown;
    };
    if (typeof ref.digest !== "string" || !Number.isSafeInteger(ref.index)) {
      return undefined;
    }
    return { digest: ref.digest, index: ref.index as number };
  };
}

/** The apps' view of the configurations (per isolate), or undefined without an operator key. */
export function edgeVerifierConfigs(
  env: Record<string, unknown>,
  shards: ShardLogs,
  headOf: ConfigHeadOf,
): VerifierConfigs | undefined {
  const operator = operatorKeyFromEnv(env);
  if (!operator) return undefined;
  return new VerifierConfigs({
    shards,
    headOf,
    defaults: defaultRules(operatorDid(operator)),
  });
}
