// The `rdf_sync` setting of the service configuration (docs/CONFIG.md, docs/RDF.md "As a job of
// the service"): the verified sync of rdfsync/ run by the service itself into an external SPARQL
// store, with the fields of `deno task rdf:sync`'s flags. Shape checks only, pure; the policy file
// is read and the log key fetched where the job starts (api/services/rdf_sync_job.ts).

/** The background sync into an external store. */
export interface RdfSyncSetting {
  /** The store's SPARQL query endpoint (required: it turns the job on). */
  endpoint: string;
  /** Its SPARQL update endpoint (default: `endpoint`). */
  update?: string;
  /** Its Graph Store Protocol endpoint (`{graph}` templated or `?graph=` appended). */
  graphStore?: string;
  user?: string;
  password?: string;
  /** A C2SP tlog-policy file every synced checkpoint must meet. */
  policyFile?: string;
  /** Seconds between rounds (default 10). */
  intervalS: number;
  /** The log's URL (default: this service's own URL); also the entry graphs' base. */
  log?: string;
}

function fail(key: string, why: string): never {
  throw new Error(`Cannot load config: ${key} ${why}`);
}

function url(key: string, v: unknown): string {
  if (typeof v !== "string" || !/^https?:\/\/\S+$/.test(v)) fail(key, "must be an http(s) URL");
  return v;
}

function text(key: string, v: unknown): string {
  if (typeof v !== "string" || v.length === 0) fail(key, "must be a non-empty string");
  return v;
}

function seconds(key: string, v: unknown): number {
  const n = typeof v === "string" && /^\d+$/.test(v.trim()) ? Number(v.trim()) : v;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1 || n > 86_400) {
    fail(key, `must be an integer in [1, 86400], got ${JSON.stringify(v)}`);
  }
  return n;
}

/** One field of `rdf_sync` (file key `rdf_sync.<field>`, flat `rdf_sync_<field>`) → its setter. */
export const RDF_SYNC_FIELDS: Record<string, (s: RdfSyncSetting, v: unknown, key: string) => void> =
  {
    endpoint: (s, v, k) => s.endpoint = url(k, v),
    update: (s, v, k) => s.update = url(k, v),
    graph_store: (s, v, k) => s.graphStore = url(k, v),
    user: (s, v, k) => s.user = text(k, v),
    password: (s, v, k) => s.password = text(k, v),
    policy: (s, v, k) => s.policyFile = text(k, v),
    interval_s: (s, v, k) => s.intervalS = seconds(k, v),
    log: (s, v, k) => s.log = url(k, v),
  };

/** A blank setting (no endpoint yet: `checkRdfSync` refuses it). */
export function blankRdfSync(): RdfSyncSetting {
  return { endpoint: "", intervalS: 10 };
}

/** Parses the `rdf_sync` object of a config file. */
export function parseRdfSync(v: unknown): RdfSyncSetting {
  if (!v || typeof v !== "object" || Array.isArray(v)) fail("rdf_sync", "must be an object");
  const s = blankRdfSync();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const set = RDF_SYNC_FIELDS[k];
    if (!set) fail(`rdf_sync.${k}`, "is unknown (see docs/CONFIG.md)");
    set(s, x, `rdf_sync.${k}`);
  }
  return s;
}

/** The setting once every source is read: an endpoint is required. */
export function checkRdfSync(s: RdfSyncSetting): RdfSyncSetting {
  if (!s.endpoint) fail("rdf_sync.endpoint", "is required when rdf_sync is set");
  return s;
}
