// Settings of connections and request bodies (issue 27 "No caller can stall the service";
// docs/CONFIG.md "Connections and bodies"): the connection cap and timeouts of the Deno entry's
// listener (api/deno/conn_server.ts) and the least rate a request body must arrive at (api/http/limits.ts,
// both deployments). Pure.

/** What the Deno entry's listener enforces (api/deno/conn_server.ts). */
export interface ConnLimits {
  /** Most open connections. */
  max: number;
  /** A new connection's first request head must arrive within this, ms. */
  headerTimeoutMs: number;
  /** The next request head must arrive within this of the last answer, ms. */
  idleTimeoutMs: number;
  /** A request holds its connection at most this long (head to last byte of the answer), ms. */
  requestTimeoutMs: number;
}

/** The connection and body settings of a ServiceConfig. */
export interface ConnSettings {
  /** Most open connections; "auto": below the descriptor limit (connLimits). */
  connMax: number | "auto";
  /** A new connection's first request head must arrive within this, ms. */
  connHeaderTimeoutMs: number;
  /** A kept-alive connection's next request head must arrive within this of the last answer, ms. */
  connIdleTimeoutMs: number;
  /** A request may hold its connection this long, head to last byte of its answer, ms. */
  connRequestTimeoutMs: number;
  /** A request body must arrive at this many bytes per second on average (after BODY_GRACE_MS). */
  bodyMinRate: number;
}

/** The defaults (docs/CONFIG.md; docs/DECISIONS.md "Connections" says why). */
export const CONN_DEFAULTS: Readonly<ConnSettings> = Object.freeze({
  connMax: "auto",
  connHeaderTimeoutMs: 10_000,
  connIdleTimeoutMs: 30_000,
  connRequestTimeoutMs: 120_000,
  bodyMinRate: 1024,
});

/** Descriptors kept for everything but connections: at least 64, else an eighth of the limit. */
export function fdReserve(limit: number): number {
  return Math.max(64, Math.ceil(limit / 8));
}

/** `conn_max: auto` under no known descriptor limit, and its ceiling under any. */
export const AUTO_CONN_MAX = 16_384;

/**
 * The listener's limits for `s` under a descriptor limit (`fdSoft`, undefined: unknown): the cap is
 * `conn_max`, or AUTO_CONN_MAX, and never above `fdSoft − fdReserve(fdSoft)` (at least 16).
 */
export function connLimits(s: ConnSettings, fdSoft: number | undefined): ConnLimits {
  const want = s.connMax === "auto" ? AUTO_CONN_MAX : s.connMax;
  const room = fdSoft === undefined ? want : Math.max(16, fdSoft - fdReserve(fdSoft));
  return {
    max: Math.min(want, room),
    headerTimeoutMs: s.connHeaderTimeoutMs,
    idleTimeoutMs: s.connIdleTimeoutMs,
    requestTimeoutMs: s.connRequestTimeoutMs,
  };
}

function int(key: string, v: unknown, min: number, max: number): number {
  const n = typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new Error(
      `Cannot load config: ${key} must be an integer in [${min}, ${max}], got ${JSON.stringify(v)}`,
    );
  }
  return n;
}

/** Config-file keys → setters (api/services/config.ts registers them). */
export const CONN_KEYS: Record<string, (c: ConnSettings, v: unknown) => void> = {
  conn_max: (c, v) => c.connMax = v === "auto" ? "auto" : int("conn_max", v, 16, 10_000_000),
  conn_header_timeout_ms: (c, v) =>
    c.connHeaderTimeoutMs = int("conn_header_timeout_ms", v, 100, 3_600_000),
  conn_idle_timeout_ms: (c, v) =>
    c.connIdleTimeoutMs = int("conn_idle_timeout_ms", v, 100, 3_600_000),
  conn_request_timeout_ms: (c, v) =>
    c.connRequestTimeoutMs = int("conn_request_timeout_ms", v, 100, 86_400_000),
  body_min_rate: (c, v) => c.bodyMinRate = int("body_min_rate", v, 0, 1e9),
};

/** Environment variables of these settings → config-file keys. */
export const CONN_ENV_KEYS: Record<string, string> = {
  JC_CONN_MAX: "conn_max",
  JC_CONN_HEADER_TIMEOUT_MS: "conn_header_timeout_ms",
  JC_CONN_IDLE_TIMEOUT_MS: "conn_idle_timeout_ms",
  JC_CONN_REQUEST_TIMEOUT_MS: "conn_request_timeout_ms",
  JC_BODY_MIN_RATE: "body_min_rate",
};
