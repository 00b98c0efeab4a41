// The configuration in force on the Worker (issue 23; docs/EDGE.md): each shard's sequencer (the
// Durable Object that alone appends to it) logs the verifier-config/1 document when it opens the
// shard taking appends and the rules differ from the last one logged there — a deployment that
// changes the rules restarts the objects, so every change is in the log, as at a Deno start. The
// Worker's apps read it back from the log (api/services/verifier_config_log.ts). Signed by
// JC_OPERATOR_KEY; without one nothing signs a configuration and none is logged or answered.
import type { Log } from "../../log/mod.ts";
import type { ShardLogs } from "../../api/mod.ts";
import {
  defaultRules,
  operatorDid,
  publishVerifierConfig,
  VerifierConfigs,
  verifierOptions,
} from "../../api/mod.ts";
import { edgeConfig } from "./settings.ts";
import { operatorKeyFromEnv } from "./shard_front.ts";

/** Logs the configuration in `log` (a shard's own, opened by its sequencer) when it changed. */
export async function publishEdgeConfig(
  log: Log,
  env: Record<string, unknown>,
): Promise<void> {
  const operator = operatorKeyFromEnv(env);
  if (!operator) return;
  const config = edgeConfig(env);
  await publishVerifierConfig(
    log,
    config,
    verifierOptions(config),
    <T>(f: (secret: Uint8Array) => T) => f(operator),
  );
}

/** The apps' view of the configurations (per isolate), or undefined without an operator key. */
export function edgeVerifierConfigs(
  env: Record<string, unknown>,
  shards: ShardLogs,
): VerifierConfigs | undefined {
  const operator = operatorKeyFromEnv(env);
  if (!operator) return undefined;
  return new VerifierConfigs({
    shards,
    defaults: defaultRules(operatorDid(operator)),
  });
}
