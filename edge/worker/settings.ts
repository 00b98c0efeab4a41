// Settings only the Worker build has (docs/EDGE.md), read from Worker vars beside the service's
// own configuration (api/services/config.ts, docs/CONFIG.md), with the same "Cannot ..." error grammar.
import { resolveConfig, type ServiceConfig } from "../../api/mod.ts";
import { EdgeConfigError } from "./errors.ts";
import { parseDuration } from "../../api/mod.ts";

/** Edge-only settings. */
export interface EdgeSettings {
  /** `max-age` of the latest-head answer, seconds (JC_EDGE_HEAD_MAX_AGE_S, default 1; 0: none). */
  headMaxAgeS: number;
  /** Bytes of immutable reads each isolate keeps (JC_EDGE_CACHE_BYTES, default 8 MiB; 0: none). */
  cacheBytes: number;
  /** Whether GET answers marked immutable are kept in the Cache API (JC_EDGE_HTTP_CACHE, "on"). */
  httpCache: boolean;
  /** Batcher Durable Objects in front of the sequencer (JC_EDGE_BATCHERS, default 8; 0: none). */
  batchers: number;
  /** A batcher forwards at this many appends (JC_EDGE_BATCH_MAX, default 256). */
  batchMax: number;
  /** ... or once its oldest append waited this long, ms (JC_EDGE_BATCH_AGE_MS, default 100). */
  batchAgeMs: number;
  /** Entries whose leaf hash the sequencer keeps in SQLite (JC_EDGE_DEDUP_WINDOW, default 4096). */
  dedupWindow: number;
  /** Least time between two checkpoint writes to R2, ms (JC_EDGE_CHECKPOINT_MS, default 1000). */
  checkpointMs: number;
  /** Test-only fault injection and stats routes under /__edge/ (JC_EDGE_TEST_HOOKS, "off"). */
  testHooks: boolean;
  /** docs/SHARDS.md: the active shard rotates at this size (JC_SHARD_MAX_SIZE; 0: never). */
  shardMaxSize: number;
  /** ... or once its first entry is this old, seconds (JC_SHARD_MAX_AGE; 0: never). */
  shardMaxAgeS: number;
}

/** A duration in seconds: an integer with an optional unit s, m, h or d (`180d`). */
/** A duration in seconds (0: never), in the embedded default's form (api/services/shard_config.ts). */
function age(env: Record<string, unknown>, name: string): number {
  const v = env[name];
  if (v === undefined || v === "") return 0;
  try {
    return parseDuration(name, String(v).trim()) / 1000;
  } catch (e) {
    throw new EdgeConfigError((e as Error).message);
  }
}

function int(env: Record<string, unknown>, name: string, dflt: number, max: number): number {
  const v = env[name];
  if (v === undefined || v === "") return dflt;
  const s = String(v).trim();
  if (!/^\d+$/.test(s) || Number(s) > max) {
    throw new EdgeConfigError(
      `Cannot load config: ${name} must be an integer in [0, ${max}], got ${JSON.stringify(v)}`,
    );
  }
  return Number(s);
}

function onOff(env: Record<string, unknown>, name: string, dflt: "on" | "off"): boolean {
  const v = env[name] ?? dflt;
  if (v !== "on" && v !== "off") {
    throw new EdgeConfigError(
      `Cannot load config: ${name} must be "on" or "off", got ${JSON.stringify(v)}`,
    );
  }
  return v === "on";
}

/** Reads the edge settings from the Worker's bindings; throws EdgeConfigError on a bad value. */
export function edgeSettings(env: Record<string, unknown>): EdgeSettings {
  const http = onOff(env, "JC_EDGE_HTTP_CACHE", "on") ? "on" : "off";
  return {
    headMaxAgeS: int(env, "JC_EDGE_HEAD_MAX_AGE_S", 1, 3600),
    cacheBytes: int(env, "JC_EDGE_CACHE_BYTES", 8 * 1024 * 1024, 64 * 1024 * 1024),
    httpCache: http === "on",
    batchers: int(env, "JC_EDGE_BATCHERS", 8, 1024),
    batchMax: Math.max(1, int(env, "JC_EDGE_BATCH_MAX", 256, 4096)),
    batchAgeMs: int(env, "JC_EDGE_BATCH_AGE_MS", 100, 10_000),
    dedupWindow: Math.max(256, int(env, "JC_EDGE_DEDUP_WINDOW", 4096, 1 << 20)),
    checkpointMs: int(env, "JC_EDGE_CHECKPOINT_MS", 1000, 60_000),
    testHooks: onOff(env, "JC_EDGE_TEST_HOOKS", "off"),
    shardMaxSize: int(env, "JC_SHARD_MAX_SIZE", 0, Number.MAX_SAFE_INTEGER),
    shardMaxAgeS: age(env, "JC_SHARD_MAX_AGE"),
  };
}

/** Text bindings of the Worker as the config reader takes them (vars are strings). */
export function stringBindings(env: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    if (typeof v === "string") out[k] = v;
    else if (typeof v === "number") out[k] = String(v);
  }
  return out;
}

/**
 * The service configuration of a Worker: its JC_* vars as the environment, and the JC_CONFIG var
 * (a JSON object, or a string holding one) as the config file — the Worker's stand-in for the
 * embedded default's `--config FILE` (docs/CONFIG.md keys: gateway_keys, reference_vectors,
 * agents, ...). Throws ConfigError / EdgeConfigError naming the offending key.
 */
export function edgeConfig(env: Record<string, unknown>): ServiceConfig {
  let file: unknown = env.JC_CONFIG;
  if (typeof file === "string") {
    try {
      file = JSON.parse(file);
    } catch (err) {
      throw new EdgeConfigError(
        `Cannot load config: JC_CONFIG is not JSON (${(err as Error).message})`,
      );
    }
  }
  const vars = stringBindings(env);
  delete vars.JC_CONFIG;
  delete vars.JC_LOG_KEY;
  // The embedded default reads the operator config from the file JC_OPERATOR_CONFIG names; a
  // Worker has no files, so there the var holds the JSON itself (verify/'s operator-config format).
  delete vars.JC_OPERATOR_CONFIG;
  const config = resolveConfig(vars, file);
  const op = env.JC_OPERATOR_CONFIG;
  if (op !== undefined && op !== "") {
    try {
      config.operatorConfig = typeof op === "string" ? JSON.parse(op) : op;
    } catch (err) {
      throw new EdgeConfigError(
        `Cannot load config: JC_OPERATOR_CONFIG is not JSON (${(err as Error).message})`,
      );
    }
  }
  return config;
}
