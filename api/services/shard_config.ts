// Settings of shards and their lifecycle (docs/SHARDS.md, docs/CONFIG.md): when the active shard
// rotates (`shard_max_age`, `shard_max_size`), the operator key that signs the directory
// (`operator_key_file`) and the bearer token of `POST /v1/logs/rotate` (`admin_token`). Pure.

/** The shard settings of a ServiceConfig. */
export interface ShardSettings {
  /** Rotate once the active shard's first entry is this old (ms). */
  shardMaxAgeMs?: number;
  /** Rotate once the active shard holds this many entries (checked after each batch). */
  shardMaxSize?: number;
  /** The operator key (32-byte Ed25519 secret, hex); default `<data dir>/operator-key.hex`. */
  operatorKeyFile: string;
  /** Bearer token of the admin routes; absent: they answer 403 admin-disabled. */
  adminToken?: string;
}

const UNITS: Record<string, number> = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3 };

/**
 * A duration in ms: seconds as an integer, or `<n>s|m|h|d` ("90s", "12h", "180d"); 0 is "never"
 * (the same form on both deployments: JC_SHARD_MAX_AGE, edge/worker/settings.ts).
 */
export function parseDuration(key: string, v: unknown): number {
  const m = typeof v === "number"
    ? [String(v), String(v), "s"]
    : typeof v === "string"
    ? /^\s*(\d+)\s*([smhd]?)\s*$/.exec(v)
    : null;
  const ms = m ? Number(m[1]) * UNITS[m[2] || "s"] : NaN;
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new Error(
      `Cannot load config: ${key} must be a duration (seconds, or e.g. "12h", "180d"; 0: never), ` +
        `got ${JSON.stringify(v)}`,
    );
  }
  return ms;
}

function countOrNever(key: string, v: unknown): number {
  const n = typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw new Error(
      `Cannot load config: ${key} must be a count of entries (0: never), got ${JSON.stringify(v)}`,
    );
  }
  return n;
}

function nonEmpty(key: string, v: unknown, min = 1): string {
  if (typeof v !== "string" || v.length < min) {
    throw new Error(`Cannot load config: ${key} must be a string of at least ${min} characters`);
  }
  return v;
}

/** Config-file keys → setters (api/services/config.ts registers them). */
export const SHARD_KEYS: Record<string, (c: ShardSettings, v: unknown) => void> = {
  shard_max_age: (c, v) => c.shardMaxAgeMs = parseDuration("shard_max_age", v) || undefined,
  shard_max_size: (c, v) => c.shardMaxSize = countOrNever("shard_max_size", v) || undefined,
  operator_key_file: (c, v) => c.operatorKeyFile = nonEmpty("operator_key_file", v),
  // a guessable token is no token: at least 16 characters
  admin_token: (c, v) => c.adminToken = nonEmpty("admin_token", v, 16),
};

/** Environment variables of the shard settings → config-file keys. */
export const SHARD_ENV_KEYS: Record<string, string> = {
  JC_SHARD_MAX_AGE: "shard_max_age",
  JC_SHARD_MAX_SIZE: "shard_max_size",
  JC_OPERATOR_KEY_FILE: "operator_key_file",
  JC_ADMIN_TOKEN: "admin_token",
};
