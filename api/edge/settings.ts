// Settings only the Worker build has (docs/EDGE.md), read from Worker vars beside the service's
// own configuration (api/config.ts, docs/CONFIG.md), with the same "Cannot ..." error grammar.
import { resolveConfig, type ServiceConfig } from "../config.ts";
import { EdgeConfigError } from "./errors.ts";

/** Edge-only settings. */
export interface EdgeSettings {
  /** `max-age` of the latest-head answer, seconds (JC_EDGE_HEAD_MAX_AGE_S, default 1; 0: none). */
  headMaxAgeS: number;
  /** Bytes of immutable reads each isolate keeps (JC_EDGE_CACHE_BYTES, default 8 MiB; 0: none). */
  cacheBytes: number;
  /** Whether GET answers marked immutable are kept in the Cache API (JC_EDGE_HTTP_CACHE, "on"). */
  httpCache: boolean;
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

/** Reads the edge settings from the Worker's bindings; throws EdgeConfigError on a bad value. */
export function edgeSettings(env: Record<string, unknown>): EdgeSettings {
  const http = env.JC_EDGE_HTTP_CACHE ?? "on";
  if (http !== "on" && http !== "off") {
    throw new EdgeConfigError(
      `Cannot load config: JC_EDGE_HTTP_CACHE must be "on" or "off", got ${JSON.stringify(http)}`,
    );
  }
  return {
    headMaxAgeS: int(env, "JC_EDGE_HEAD_MAX_AGE_S", 1, 3600),
    cacheBytes: int(env, "JC_EDGE_CACHE_BYTES", 8 * 1024 * 1024, 64 * 1024 * 1024),
    httpCache: http === "on",
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
