// Operations routes (API.md "Operations"): liveness with a storage check, and metrics in the
// Prometheus text format. Exempt from rate limiting so probes and scrapers always get through.
import { ApiError } from "../errors.ts";
import type { RouteGroup } from "../route.ts";
import type { Log } from "../../../log/mod.ts";
import type { AppDeps } from "../route.ts";
import { shardsOf } from "./shards.ts";
import { listedShards } from "../../services/shard_logs.ts";

/**
 * Every listed shard's size (docs/SHARDS.md): `/healthz`'s `tree_size` is their sum (the entries
 * the service holds), its `shards` each one's; `/metrics` has both as gauges.
 */
async function shardSizes(deps: AppDeps): Promise<{ id: string; tree_size: number }[]> {
  const listed = await listedShards(deps);
  return await Promise.all(
    listed.map(async (s) => ({ id: s.id, tree_size: (await s.log.latestHead()).size })),
  );
}

/** The logs whose stores this service reads: the root's, the active shard's, every shard's. */
function servedLogs(deps: AppDeps): Log[] {
  const active = deps.services?.activeLog;
  return [...new Set([deps.log, ...(active ? [active] : []), ...(shardsOf(deps)?.logs?.() ?? [])])];
}

/** The operations route group. */
export const opsRoutes: RouteGroup = {
  name: "ops",
  routes: [
    {
      method: "GET",
      path: "/healthz",
      rate: "none",
      class: { id: "jc:Health", title: "Health", description: "Liveness and storage check." },
      operation: {
        title: "Check health",
        description:
          '200 {status: "ok", tree_size (entries over every shard), shards: [{id, tree_size}]} when the store answers reads and accepts writes; 503 ' +
          'storage-unavailable {health: "degraded", failing: "storage-read" | "storage-write" | ' +
          '"log-integrity"} with Retry-After otherwise (a full disk: until writes succeed again).',
        expects: "owl:Nothing",
        returns: "jc:Health",
        possibleStatus: [
          { status: 200, description: "Healthy." },
          {
            status: 503,
            description: "Degraded: the store refuses reads or writes; Retry-After says when.",
          },
        ],
        toolId: "jouleclaw:healthz",
        mutating: false,
      },
      handler: async (c) => {
        const deps = c.get("deps");
        let sizes: { id: string; tree_size: number }[];
        try {
          // with shards (docs/SHARDS.md), every shard's store too: the active one takes the
          // appends, and a read inside any shard's signed size may fail (log/read_faults.ts)
          for (const l of servedLogs(deps)) await l.check();
          sizes = await shardSizes(deps);
        } catch (e) {
          // The failing check: the log's error code (storage-read, storage-write, log-integrity).
          const failing = (e as { code?: unknown })?.code;
          const check = typeof failing === "string" ? failing : "storage-read";
          throw new ApiError(
            "storage-unavailable",
            `Cannot serve: degraded, check ${check} fails (${(e as Error)?.message ?? e})`,
            {
              cause: e,
              headers: { "retry-after": "1", "cache-control": "no-store" },
              extra: { health: "degraded", failing: check },
            },
          );
        }
        c.header("cache-control", "no-store");
        // docs/WITNESS.md: per witness of our checkpoints, its cosigned size, lag, failures and
        // any alarm (a 422: the witness holds a history of this log that this log does not).
        const collector = c.get("deps").services?.collector;
        const size = sizes.reduce((n, s) => n + s.tree_size, 0);
        const body: Record<string, unknown> = { status: "ok", tree_size: size };
        if (deps.services?.shardLogs) body.shards = sizes;
        if (collector) {
          const witnesses = await collector.status();
          body.witness_alarm = witnesses.some((w) => w.alarm !== undefined);
          body.witnesses = witnesses;
        }
        // docs/RDF.md "As a job of the service": the RDF sync job's state, size synced, failures.
        const rdfSync = c.get("deps").services?.rdfSync;
        if (rdfSync) body.rdf_sync = rdfSync.status();
        return c.json(body);
      },
    },
    {
      method: "GET",
      path: "/metrics",
      rate: "none",
      class: { id: "jc:Metrics", title: "Metrics", description: "Prometheus text metrics." },
      operation: {
        title: "Get metrics",
        description: "Appends, verification outcomes by code, batch sizes, ack latency, tree size.",
        expects: "owl:Nothing",
        returns: "jc:Metrics",
        possibleStatus: [{ status: 200, description: "The metrics." }],
        toolId: "jouleclaw:metrics",
        mutating: false,
      },
      handler: async (c) => {
        const { log, metrics } = c.get("deps");
        try {
          const sizes = await shardSizes(c.get("deps"));
          metrics.set("jc_tree_size", sizes.reduce((n, s) => n + s.tree_size, 0));
          for (const s of sizes) {
            metrics.setLabeled(
              "jc_shard_tree_size",
              { shard: s.id },
              s.tree_size,
              "Entries in each shard of the directory (docs/SHARDS.md); jc_tree_size is their sum",
            );
          }
        } catch { /* the gauges keep their last values; /healthz reports the store */ }
        // reads inside a signed size that failed (log/read_faults.ts), over every shard's log
        const faults = servedLogs(c.get("deps")).reduce((n, l) => n + (l.readFaults?.() ?? 0), 0);
        const rf = "jc_storage_read_faults_total";
        if (faults > metrics.counter(rf)) metrics.inc(rf, undefined, faults - metrics.counter(rf));
        const name = "jc_sequencer_cpu_seconds_total";
        for (const [phase, ms] of Object.entries(log.phaseCpuMs?.() ?? {})) {
          const labels = { phase };
          metrics.inc(name, labels, ms / 1000 - metrics.counter(name, labels));
        }
        c.header("cache-control", "no-store");
        c.header("content-type", "text/plain; version=0.0.4; charset=utf-8");
        return c.body(metrics.render());
      },
    },
  ],
};
