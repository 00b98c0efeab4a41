// The metrics middleware (docs/OPERATIONS.md "Metrics"): every answer of the app, whoever made it
// (a route, a refusal, the error handler, a fast lane), is counted once in
// `jc_http_responses_total{status}`. The label objects are built once per status, not per request.
// Platform-neutral.
import type { MiddlewareHandler } from "hono";
import type { Metrics } from "../metrics.ts";
import type { AppEnv } from "../route.ts";

/** Counts one answer of `status` in `metrics`. */
export type StatusCounter = (status: number) => void;

/** A counter of answers by status over `metrics`. */
export function statusCounter(metrics: Metrics): StatusCounter {
  const labels = new Map<number, { status: string }>();
  return (status) => {
    let l = labels.get(status);
    if (!l) labels.set(status, l = { status: String(status) });
    metrics.inc("jc_http_responses_total", l);
  };
}

/** Counts every answer that passes through it, by its final status. */
export function countAnswers(count: StatusCounter): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    count(c.res.status);
  };
}
