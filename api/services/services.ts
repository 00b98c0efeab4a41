// The services a platform entry gives the routes (issue 22 "Typed composition"): each optional,
// each with its real type, built by the entries (api/deno/main.ts, api/deno/shard_serve.ts, edge/worker/worker.ts)
// and by the tests' fixtures. A route reads `deps.services.<name>`; absent means the deployment
// has no such service (a service without shards, without witnessing, ...). Platform-neutral.
import type { Log } from "../../log/mod.ts";
import type { Witness } from "../../log/c2sp/mod.ts";
import type { ServiceConfig } from "./config.ts";
import type { Metrics } from "../http/metrics.ts";
import type { CosignedCheckpoints } from "./witness_collector.ts";
import type { ShardService } from "./shard_set.ts";
import type { ShardLogs } from "./shard_logs.ts";
import type { RdfSyncStatus } from "./rdf_sync_job.ts";
import type { VerifierConfigSource } from "./verifier_config_log.ts";

/** A store the SPARQL route queries (api/services/sparql_worker.ts's EmbeddedSparql). */
export interface SparqlStoreHandle {
  form(q: string): string;
  /** the answer's bytes and how many log entries it covers; errors are ApiErrors */
  query(q: string, mediaType: string): Promise<{ body: Uint8Array | string; size: number }>;
}

/** What the platform entry provides as `services.sparql`. */
export interface SparqlProvider {
  /** opens the store over a log (once per log) */
  open(
    ctx: {
      log: Log;
      config: ServiceConfig;
      origin: string;
      /** every listed shard's log and the base of its entry IRIs (api/services/shard_logs.ts) */
      sources?: () => Promise<{ log: Log; origin: string }[]>;
      metrics?: Metrics;
      /** JCR-1 §6 step 6: what each entry's verdict class (jc:verificationVerdict) is decided under */
      referenceVectors?: Record<string, { joules_uj: number | bigint }>;
    },
  ): SparqlStoreHandle;
  /** the SPARQL Service Description (Turtle) of the endpoint */
  describe(endpoint: string): string;
  resultTypes: readonly string[];
  graphTypes: readonly string[];
}

/** The optional services of an app (AppDeps.services). */
export interface AppServices {
  /** The witness role (docs/WITNESS.md): `POST /add-checkpoint`; 404 without one. */
  witness?: Witness;
  /** The collector of cosignatures on our own SHA-256 checkpoints (served with them). */
  collector?: CosignedCheckpoints;
  /**
   * The SPARQL store: a provider; `null` refuses the endpoint 501 `sparql-unavailable` (the
   * Worker); absent, the in-thread store built on first use (api/http/routes/sparql.ts).
   */
  sparql?: SparqlProvider | null;
  /** The service's shards (docs/SHARDS.md): directory, rotation, pins. */
  shards?: ShardService;
  /** Every listed shard's log, for the service-level read paths (api/services/shard_logs.ts). */
  shardLogs?: ShardLogs;
  /** The shard appends go to now (readings, `/healthz`); the app's own log when absent. */
  activeLog?: Log;
  /** The RDF sync into an external store (docs/RDF.md), for `/healthz`. */
  rdfSync?: { status(): RdfSyncStatus };
  /** The operator's verifier key (the directory's signer), served in the log's policy. */
  operatorVkey?: string;
  /** The verifier configuration in force and each log's chain of them (issue 23). */
  verifierConfig?: VerifierConfigSource;
  /** A shard app's prefix (`/shards/s1`): its published URLs are below it; `/` or absent: s0. */
  shardPrefix?: string;
}
