// Operations routes (API.md "Operations"): liveness with a storage check, and metrics in the
// Prometheus text format. Exempt from rate limiting so probes and scrapers always get through.
import { ApiError } from "../errors.ts";
import type { RouteGroup } from "../route.ts";
import type { CosignedCheckpoints } from "../witness_collector.ts";

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
        description: '200 {status: "ok", tree_size} when the store answers; 503 otherwise.',
        expects: "owl:Nothing",
        returns: "jc:Health",
        possibleStatus: [
          { status: 200, description: "Healthy." },
          { status: 503, description: "The store does not answer." },
        ],
        toolId: "jouleclaw:healthz",
        mutating: false,
      },
      handler: async (c) => {
        const { log } = c.get("deps");
        let size: number;
        try {
          await log.check();
          size = (await log.latestHead()).size;
        } catch (e) {
          throw new ApiError("storage-unavailable", "Cannot read the store: it does not answer", {
            cause: e,
          });
        }
        c.header("cache-control", "no-store");
        // docs/WITNESS.md: per witness of our checkpoints, its cosigned size, lag, failures and
        // any alarm (a 422: the witness holds a history of this log that this log does not).
        const collector = c.get("deps").extra?.collector as CosignedCheckpoints | undefined;
        if (collector) {
          const witnesses = await collector.status();
          const alarm = witnesses.some((w) => w.alarm !== undefined);
          return c.json({ status: "ok", tree_size: size, witness_alarm: alarm, witnesses });
        }
        return c.json({ status: "ok", tree_size: size });
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
          metrics.set("jc_tree_size", (await log.latestHead()).size);
        } catch { /* the gauge keeps its last value; /healthz reports the store */ }
        c.header("cache-control", "no-store");
        c.header("content-type", "text/plain; version=0.0.4; charset=utf-8");
        return c.body(metrics.render());
      },
    },
  ],
};
