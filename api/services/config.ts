// Service configuration: defaults < optional JSON config file < environment variables.
// Pure (no Deno.*): the platform entry reads the environment and the file and passes them in,
// so the Worker entry can build the same ServiceConfig from its bindings. Documented for users in
// docs/CONFIG.md; every key there is parsed here and nowhere else.
import { CodedError } from "../../net/mod.ts";
import { SEARCH_KEY_LAG, SEQUENCER_DEFAULTS } from "../../log/mod.ts";
import {
  type CollectorWitnessSetting,
  parseCollectorWitnesses,
  parseWitnessLogsEnv,
  parseWitnessRole,
  type WitnessRoleSetting,
} from "./witness_config.ts";
import {
  blankRdfSync,
  checkRdfSync,
  parseRdfSync,
  RDF_SYNC_FIELDS,
  type RdfSyncSetting,
} from "./rdf_sync_config.ts";
import { SHARD_ENV_KEYS, SHARD_KEYS, type ShardSettings } from "./shard_config.ts";
import { parsePublicUrl } from "../http/public_url.ts";
import { CONN_DEFAULTS, CONN_ENV_KEYS, CONN_KEYS, type ConnSettings } from "../deno/conn_config.ts";

/** A token bucket's refill rate and capacity; perSecond 0 disables the limit. */
export interface RateSpec {
  perSecond: number;
  burst: number;
}

/** The whole configuration of one service instance. */
export interface ServiceConfig extends ShardSettings, ConnSettings {
  port: number;
  host: string;
  /**
   * The base of every IRI and URL the service publishes (api/http/public_url.ts); never the request's
   * Host. Undefined: the listen address (the Deno entry sets it once bound; the Worker needs it).
   */
  publicUrl?: string;
  dataDir: string;
  /** "sqlite" (durable, the default) or "memory" (ephemeral, for trying the API out). */
  store: "sqlite" | "memory";
  /** Log signing key (32-byte Ed25519 secret, hex); generated on first start when absent. */
  keyFile: string;
  /** s0's signed-head pin (log/pin.ts); default `<pin_dir>/s0.pin`, else beside the key (issue 27). */
  pinFile: string;
  /**
   * A durable directory outside the data directory holding every log's pin (`s0.pin`, `sN.pin`;
   * docs/STORAGE.md "Signed-head pin"); undefined: each pin beside its key.
   */
  pinDir?: string;
  /**
   * The log's name (origins `<name>/blake3`, `<name>/sha256`; docs/PUBLICATION.md): bound to
   * the data on first start, fixed after. Undefined: the bound one, or a default from the key.
   */
  logName?: string;
  /** Largest request body accepted, bytes (413 above). */
  bodyLimit: number;
  /**
   * Bulk appends (POST /v1/log/entries as application/cbor-seq, issue 29): largest body, bytes,
   * and most envelopes in one (413 above either, before any envelope is verified).
   */
  bulkBodyLimit: number;
  bulkMaxEnvelopes: number;
  rate: { read: RateSpec; write: RateSpec };
  /** Sequencer: most entries per batch, longest wait for a batch, bound on pending appends. */
  batchMax: number;
  /** Entries whose search keys wait in the SQLite store's tail (docs/STORAGE.md). */
  searchKeyLag: number;
  batchAgeMs: number;
  pendingMax: number;
  /** Stream checks (issue 24): `closed-after-integration` skew, ms; "off" turns them off. */
  closedSkewMs: number;
  streamChecks: "on" | "off";
  /** "open": any steward whose receipt verifies may append; "listed": only `stewards`. */
  appends: "open" | "listed";
  stewards: string[];
  /** JCR-1 §5 gateway HMAC keys, gateway_id → hex key. */
  gatewayKeys: Record<string, string>;
  /** Keys for kids that are not did:key, kid → hex public key or did:key. */
  keyDirectory: Record<string, string>;
  /** JCR-1 §6 step 6 reference vectors, input_hash → { joules_uj } (checked by verify/). */
  referenceVectors: Record<string, unknown>;
  /**
   * Path of an operator-config JSON file in verify/'s format (gateway_keys, keys,
   * reference_vectors, policies; see verify/operator_config.ts), read by the platform entry.
   */
  operatorConfigFile?: string;
  /** That file's parsed content; the inline keys above add to and override it. */
  operatorConfig?: unknown;
  /** Time limit for one request, milliseconds. */
  requestTimeoutMs: number;
  /** Largest page of GET /v1/log/entries. */
  pageMax: number;
  /** Meter agents registered for POST /v1/readings: did:key → label (meter-agent/README.md). */
  agents: Record<string, string>;
  /**
   * Verifier Worker threads of the Deno entry (api/services/verify_pool.ts): 0 verifies on the event
   * loop's thread; "auto" is one per CPU core but one, at least 1 and at most 4.
   */
  verifyWorkers: number | "auto";
  /** SPARQL (issue 15, docs/RDF.md): time limit of one query, ms (503 sparql-timeout past it). */
  sparqlTimeoutMs: number;
  /** SPARQL: most queries queued or running at once (503 sparql-busy beyond). */
  sparqlMaxQueued: number;
  /** SPARQL: largest serialized answer, bytes (413 sparql-result-too-large beyond). */
  sparqlMaxResultBytes: number;
  /** SPARQL: most log entries the embedded store holds (507 sparql-log-too-large beyond). */
  sparqlMaxEntries: number;
  /** SPARQL: most linear memory of the store's Oxigraph, MiB (its queries included). */
  sparqlMaxMemoryMb: number;
  /** POST /v1/validate (issue 15): Worker threads, time limit (ms), node limit, queue per Worker. */
  validateWorkers: number;
  validateTimeoutMs: number;
  validateMaxNodes: number;
  validateMaxQueued: number;
  /** The witness role (docs/WITNESS.md): absent unless configured. */
  witness?: WitnessRoleSetting;
  /** Witnesses that cosign our own SHA-256 checkpoints (docs/WITNESS.md). */
  witnesses: CollectorWitnessSetting[];
  /** The background sync into an external SPARQL store (docs/RDF.md): absent unless configured. */
  rdfSync?: RdfSyncSetting;
}

/** Thrown for a configuration that cannot be used (kind `config`, net/error.ts). */
export class ConfigError extends CodedError {
  constructor(message: string, code = "config") {
    super(code, message, "config");
    this.name = "ConfigError";
  }
}

/** The embedded defaults (docs/CONFIG.md). */
export function defaultConfig(): ServiceConfig {
  return {
    port: 8080,
    // Loopback unless the operator opens it (HOST=0.0.0.0): appends are unauthenticated, so a
    // first start on a workstation is not reachable from the network (docs/DECISIONS.md).
    host: "127.0.0.1",
    dataDir: "./data",
    store: "sqlite",
    keyFile: "",
    pinFile: "",
    bodyLimit: 64 * 1024,
    bulkBodyLimit: 4 * 1024 * 1024,
    bulkMaxEnvelopes: 1000,
    rate: { read: { perSecond: 200, burst: 400 }, write: { perSecond: 50, burst: 100 } },
    batchMax: SEQUENCER_DEFAULTS.batchMax,
    searchKeyLag: SEARCH_KEY_LAG,
    batchAgeMs: SEQUENCER_DEFAULTS.batchAgeMs,
    closedSkewMs: 300_000,
    streamChecks: "on",
    pendingMax: SEQUENCER_DEFAULTS.pendingMax,
    appends: "open",
    stewards: [],
    gatewayKeys: {},
    keyDirectory: {},
    referenceVectors: {},
    requestTimeoutMs: 10_000,
    pageMax: 100,
    agents: {},
    // Measured: a pool fed one message per event-loop turn costs the event loop ~40% less per
    // append than verifying in place (docs/DECISIONS.md §3).
    verifyWorkers: "auto",
    sparqlTimeoutMs: 10_000,
    sparqlMaxQueued: 4,
    sparqlMaxResultBytes: 16 * 1024 * 1024,
    // ≈ 9 KiB per entry in Oxigraph (docs/RDF.md): 50,000 entries stay under about 500 MB.
    sparqlMaxEntries: 50_000,
    sparqlMaxMemoryMb: 1024,
    validateWorkers: 1,
    validateTimeoutMs: 5_000,
    // A receipt is a few dozen nodes; 500 JSON-LD nodes with violations validate in ≈ 2 s here.
    validateMaxNodes: 500,
    validateMaxQueued: 8,
    witnesses: [],
    operatorKeyFile: "",
    ...CONN_DEFAULTS,
  };
}

function fail(key: string, why: string): never {
  throw new ConfigError(`Cannot load config: ${key} ${why}`);
}

function int(key: string, v: unknown, min: number, max: number): number {
  const n = typeof v === "string" && /^\d+$/.test(v.trim()) ? Number(v.trim()) : v;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < min || n > max) {
    fail(key, `must be an integer in [${min}, ${max}], got ${JSON.stringify(v)}`);
  }
  return n;
}

function str(key: string, v: unknown): string {
  if (typeof v !== "string" || v.length === 0) fail(key, "must be a non-empty string");
  return v;
}

function strMap(key: string, v: unknown): Record<string, string> {
  if (typeof v === "string") {
    // env form: "a=x,b=y"
    const out: Record<string, string> = {};
    for (const part of v.split(",").map((s) => s.trim()).filter(Boolean)) {
      const eq = part.indexOf("=");
      if (eq <= 0) fail(key, `entry "${part}" is not name=value`);
      out[part.slice(0, eq)] = part.slice(eq + 1);
    }
    return out;
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) fail(key, "must be an object");
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== "string") fail(`${key}.${k}`, "must be a string");
  }
  return { ...(v as Record<string, string>) };
}

function rate(key: string, v: unknown): RateSpec {
  if (typeof v === "string") {
    // env form: "PER_SECOND[:BURST]"; "0" disables
    const m = /^\s*(\d+)(?::(\d+))?\s*$/.exec(v);
    if (!m) fail(key, `must be "PER_SECOND[:BURST]", got ${JSON.stringify(v)}`);
    const perSecond = Number(m[1]);
    return { perSecond, burst: m[2] !== undefined ? Number(m[2]) : perSecond * 2 };
  }
  if (!v || typeof v !== "object") fail(key, "must be an object {per_second, burst}");
  const o = v as Record<string, unknown>;
  const perSecond = int(`${key}.per_second`, o.per_second, 0, 1e9);
  const burst = o.burst === undefined ? perSecond * 2 : int(`${key}.burst`, o.burst, 1, 1e9);
  return { perSecond, burst };
}

function obj(key: string, v: unknown): Record<string, unknown> {
  if (!v || typeof v !== "object" || Array.isArray(v)) fail(key, "must be an object");
  return { ...(v as Record<string, unknown>) };
}

/** Config-file keys (snake_case JSON) → setters. Unknown keys are refused, so typos show. */
const FILE_KEYS: Record<string, (c: ServiceConfig, v: unknown) => void> = {
  port: (c, v) => c.port = int("port", v, 0, 65535),
  host: (c, v) => c.host = str("host", v),
  public_url: (c, v) => {
    try {
      c.publicUrl = parsePublicUrl("public_url", v);
    } catch (e) {
      throw new ConfigError((e as Error).message);
    }
  },
  data_dir: (c, v) => c.dataDir = str("data_dir", v),
  key_file: (c, v) => c.keyFile = str("key_file", v),
  pin_file: (c, v) => c.pinFile = str("pin_file", v),
  pin_dir: (c, v) => c.pinDir = str("pin_dir", v) || undefined,
  log_name: (c, v) => {
    const name = str("log_name", v);
    // signed-note key names: no spaces, no '+', not empty (the origin `<name>/blake3` is one).
    if (name === "" || /[\s+]/u.test(name) || name.length > 200) {
      fail(
        "log_name",
        "must be 1 to 200 characters with no space or '+' (e.g. log.example.org/jc)",
      );
    }
    c.logName = name;
  },
  store: (c, v) => {
    if (v !== "sqlite" && v !== "memory") fail("store", `must be "sqlite" or "memory"`);
    c.store = v;
  },
  body_limit: (c, v) => c.bodyLimit = int("body_limit", v, 1024, 64 * 1024 * 1024),
  bulk_body_limit: (c, v) => c.bulkBodyLimit = int("bulk_body_limit", v, 1024, 256 * 1024 * 1024),
  bulk_max_envelopes: (c, v) => c.bulkMaxEnvelopes = int("bulk_max_envelopes", v, 1, 100_000),
  rate_read: (c, v) => c.rate.read = rate("rate_read", v),
  rate_write: (c, v) => c.rate.write = rate("rate_write", v),
  batch_max: (c, v) => c.batchMax = int("batch_max", v, 1, 1_000_000),
  search_key_lag: (c, v) => c.searchKeyLag = int("search_key_lag", v, 0, 1_000_000),
  batch_age_ms: (c, v) => c.batchAgeMs = int("batch_age_ms", v, 0, 60_000),
  closed_skew_ms: (c, v) => c.closedSkewMs = int("closed_skew_ms", v, 0, 86_400_000),
  stream_checks: (c, v) => {
    if (v !== "on" && v !== "off") fail("stream_checks", `must be "on" or "off"`);
    c.streamChecks = v;
  },
  pending_max: (c, v) => c.pendingMax = int("pending_max", v, 1, 10_000_000),
  appends: (c, v) => {
    if (v !== "open" && v !== "listed") fail("appends", `must be "open" or "listed"`);
    c.appends = v;
  },
  stewards: (c, v) => {
    const list = typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v;
    if (!Array.isArray(list) || list.some((s) => typeof s !== "string" || !s)) {
      fail("stewards", "must be a list of steward ids");
    }
    c.stewards = list as string[];
  },
  gateway_keys: (c, v) => {
    c.gatewayKeys = strMap("gateway_keys", v);
    for (const [id, hex] of Object.entries(c.gatewayKeys)) {
      if (!/^([0-9a-f]{2})+$/.test(hex)) fail(`gateway_keys.${id}`, "must be lowercase hex");
    }
  },
  key_directory: (c, v) => c.keyDirectory = strMap("key_directory", v),
  reference_vectors: (c, v) => c.referenceVectors = obj("reference_vectors", v),
  operator_config: (c, v) => c.operatorConfigFile = str("operator_config", v),
  request_timeout_ms: (c, v) => c.requestTimeoutMs = int("request_timeout_ms", v, 1, 3_600_000),
  page_max: (c, v) => c.pageMax = int("page_max", v, 1, 10_000),
  verify_workers: (c, v) => {
    c.verifyWorkers = v === "auto" ? "auto" : int("verify_workers", v, 0, 64);
  },
  sparql_timeout_ms: (c, v) => c.sparqlTimeoutMs = int("sparql_timeout_ms", v, 1, 600_000),
  sparql_max_queued: (c, v) => c.sparqlMaxQueued = int("sparql_max_queued", v, 1, 1_000),
  sparql_max_result_bytes: (c, v) =>
    c.sparqlMaxResultBytes = int("sparql_max_result_bytes", v, 1024, 1024 * 1024 * 1024),
  sparql_max_entries: (c, v) => c.sparqlMaxEntries = int("sparql_max_entries", v, 0, 1e9),
  sparql_max_memory_mb: (c, v) => c.sparqlMaxMemoryMb = int("sparql_max_memory_mb", v, 16, 4095),
  validate_workers: (c, v) => c.validateWorkers = int("validate_workers", v, 0, 64),
  validate_timeout_ms: (c, v) => c.validateTimeoutMs = int("validate_timeout_ms", v, 1, 600_000),
  validate_max_nodes: (c, v) => c.validateMaxNodes = int("validate_max_nodes", v, 1, 1e7),
  validate_max_queued: (c, v) => c.validateMaxQueued = int("validate_max_queued", v, 1, 1_000),
  agents: (c, v) => {
    c.agents = strMap("agents", v);
    for (const did of Object.keys(c.agents)) {
      if (!/^did:key:z[1-9A-HJ-NP-Za-km-z]+$/.test(did)) {
        fail(`agents.${did}`, "must be keyed by a did:key");
      }
    }
  },
};

// Witnessing (api/services/witness_config.ts); the witness key's default path is resolved at the end.
function witnessRole(c: ServiceConfig): WitnessRoleSetting {
  return c.witness ??= parseWitnessRole({});
}
const WITNESS_KEYS: Record<string, (c: ServiceConfig, v: unknown) => void> = {
  witness: (c, v) => c.witness = parseWitnessRole(v),
  witness_logs: (c, v) => witnessRole(c).logs = parseWitnessLogsEnv(str("JC_WITNESS_LOGS", v)),
  witness_name: (c, v) => witnessRole(c).name = str("JC_WITNESS_NAME", v),
  witness_key_file: (c, v) => witnessRole(c).keyFile = str("JC_WITNESS_KEY_FILE", v),
  witnesses: (c, v) => c.witnesses = parseCollectorWitnesses(v),
};
for (const [k, set] of Object.entries(WITNESS_KEYS)) {
  FILE_KEYS[k] = (c, v) => {
    try {
      set(c, v);
    } catch (e) {
      throw e instanceof ConfigError ? e : new ConfigError((e as Error).message);
    }
  };
}

// The background RDF sync (api/services/rdf_sync_config.ts): `rdf_sync` (an object) and its flat fields.
const RDF_SYNC_KEYS: Record<string, (c: ServiceConfig, v: unknown) => void> = {
  rdf_sync: (c, v) => c.rdfSync = parseRdfSync(v),
};
for (const [field, set] of Object.entries(RDF_SYNC_FIELDS)) {
  RDF_SYNC_KEYS[`rdf_sync_${field}`] = (c, v) =>
    set(c.rdfSync ??= blankRdfSync(), v, `rdf_sync_${field}`);
}
for (const [k, set] of Object.entries(RDF_SYNC_KEYS)) {
  FILE_KEYS[k] = (c, v) => {
    try {
      set(c, v);
    } catch (e) {
      throw e instanceof ConfigError ? e : new ConfigError((e as Error).message);
    }
  };
}

// Shards and their lifecycle (api/services/shard_config.ts, docs/SHARDS.md); connections and bodies
// (api/deno/conn_config.ts).
for (const [k, set] of [...Object.entries(SHARD_KEYS), ...Object.entries(CONN_KEYS)]) {
  FILE_KEYS[k] = (c, v) => {
    try {
      set(c, v);
    } catch (e) {
      throw new ConfigError((e as Error).message);
    }
  };
}

/** Every config-file key (docs/CONFIG.md lists each; tests/docs/config_doc_test.ts checks). */
export const CONFIG_FILE_KEYS: readonly string[] = Object.keys(FILE_KEYS);

/** Environment variable → config-file key. */
export const ENV_KEYS: Record<string, string> = {
  PORT: "port",
  HOST: "host",
  JC_PUBLIC_URL: "public_url",
  DATA_DIR: "data_dir",
  JC_KEY_FILE: "key_file",
  JC_PIN_FILE: "pin_file",
  JC_PIN_DIR: "pin_dir",
  JC_LOG_NAME: "log_name",
  JC_STORE: "store",
  JC_BODY_LIMIT: "body_limit",
  JC_BULK_BODY_LIMIT: "bulk_body_limit",
  JC_BULK_MAX_ENVELOPES: "bulk_max_envelopes",
  JC_RATE_READ: "rate_read",
  JC_RATE_WRITE: "rate_write",
  JC_BATCH_MAX: "batch_max",
  JC_SEARCH_KEY_LAG: "search_key_lag",
  JC_BATCH_AGE_MS: "batch_age_ms",
  JC_CLOSED_SKEW_MS: "closed_skew_ms",
  JC_STREAM_CHECKS: "stream_checks",
  JC_PENDING_MAX: "pending_max",
  JC_APPENDS: "appends",
  JC_STEWARDS: "stewards",
  JC_GATEWAY_KEYS: "gateway_keys",
  JC_KEY_DIRECTORY: "key_directory",
  JC_OPERATOR_CONFIG: "operator_config",
  JC_REQUEST_TIMEOUT_MS: "request_timeout_ms",
  JC_PAGE_MAX: "page_max",
  JC_AGENTS: "agents",
  JC_VERIFY_WORKERS: "verify_workers",
  JC_SPARQL_TIMEOUT_MS: "sparql_timeout_ms",
  JC_SPARQL_MAX_QUEUED: "sparql_max_queued",
  JC_SPARQL_MAX_RESULT_BYTES: "sparql_max_result_bytes",
  JC_SPARQL_MAX_ENTRIES: "sparql_max_entries",
  JC_SPARQL_MAX_MEMORY_MB: "sparql_max_memory_mb",
  JC_VALIDATE_WORKERS: "validate_workers",
  JC_VALIDATE_TIMEOUT_MS: "validate_timeout_ms",
  JC_VALIDATE_MAX_NODES: "validate_max_nodes",
  JC_VALIDATE_MAX_QUEUED: "validate_max_queued",
  JC_WITNESS_KEY_FILE: "witness_key_file",
  JC_WITNESS_NAME: "witness_name",
  JC_WITNESS_LOGS: "witness_logs",
  JC_WITNESSES: "witnesses",
  JC_RDF_SYNC_ENDPOINT: "rdf_sync_endpoint",
  JC_RDF_SYNC_UPDATE: "rdf_sync_update",
  JC_RDF_SYNC_GRAPH_STORE: "rdf_sync_graph_store",
  JC_RDF_SYNC_USER: "rdf_sync_user",
  JC_RDF_SYNC_PASSWORD: "rdf_sync_password",
  JC_RDF_SYNC_POLICY: "rdf_sync_policy",
  JC_RDF_SYNC_INTERVAL_S: "rdf_sync_interval_s",
  JC_RDF_SYNC_LOG: "rdf_sync_log",
  ...SHARD_ENV_KEYS,
  ...CONN_ENV_KEYS,
};

/**
 * Builds the configuration from an optional parsed config file and the environment (env wins).
 * Throws ConfigError naming the offending key.
 *
 * ```ts
 * const cfg = resolveConfig({ PORT: "9000" });
 * // cfg.port === 9000, cfg.bodyLimit === 65536
 * ```
 */
export function resolveConfig(
  env: Record<string, string | undefined>,
  file?: unknown,
): ServiceConfig {
  const c = defaultConfig();
  if (file !== undefined) {
    if (!file || typeof file !== "object" || Array.isArray(file)) {
      fail("config file", "must hold a JSON object");
    }
    for (const [k, v] of Object.entries(file as Record<string, unknown>)) {
      const set = FILE_KEYS[k];
      if (!set) fail(`config file key "${k}"`, "is unknown (see docs/CONFIG.md)");
      set(c, v);
    }
  }
  for (const [name, key] of Object.entries(ENV_KEYS)) {
    const v = env[name];
    if (v !== undefined && v !== "") FILE_KEYS[key](c, v);
  }
  if (!c.keyFile) c.keyFile = `${c.dataDir.replace(/\/+$/, "")}/log-key.hex`;
  // an explicit pin_file wins for s0 (it may already hold s0's pin); pin_dir places the rest
  if (!c.pinFile) {
    c.pinFile = c.pinDir ? `${c.pinDir.replace(/\/+$/, "")}/s0.pin` : `${c.keyFile}.pin`;
  }
  if (!c.operatorKeyFile) c.operatorKeyFile = `${c.dataDir.replace(/\/+$/, "")}/operator-key.hex`;
  if (c.witness && !c.witness.keyFile) {
    c.witness.keyFile = `${c.dataDir.replace(/\/+$/, "")}/witness-key.hex`;
  }
  if (c.rdfSync) {
    try {
      checkRdfSync(c.rdfSync);
    } catch (e) {
      throw new ConfigError((e as Error).message);
    }
  }
  if (c.appends === "listed" && c.stewards.length === 0) {
    fail("appends", `is "listed" but stewards is empty: nothing could be appended`);
  }
  return c;
}
