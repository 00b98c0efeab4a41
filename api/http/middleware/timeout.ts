// The timeout middleware (API.md "Limits"; ARCHITECTURE "Errors"): every route's handler runs
// under a time limit, its own (RouteDef.timeoutMs) or the service's (`request_timeout_ms`), and is
// answered 503 `timeout` when it passes; the same deadline bounds the read of the request's body,
// which must also arrive at `body_min_rate` bytes per second at least (api/http/limits.ts
// readBodyLimited: 408 `body-too-slow`). Platform-neutral.
import { withDeadline } from "../limits.ts";
import type { RouteDef } from "../route.ts";

/** The settings a deadline is made of (ServiceConfig's slice). */
export interface TimeoutConfig {
  requestTimeoutMs: number;
  bodyMinRate: number;
}

/** Runs a request's handler under its route's deadline. */
export type RouteDeadline = <T>(req: Request, work: () => Promise<T>) => Promise<T>;

/** The time limit of route `r`, ms. */
export function timeoutOf(r: Pick<RouteDef, "timeoutMs">, config: TimeoutConfig): number {
  return r.timeoutMs ?? config.requestTimeoutMs;
}

/** Route `r`'s deadline: its handler, and its body's read, end there with 503 `timeout`. */
export function routeDeadline(
  r: Pick<RouteDef, "timeoutMs">,
  config: TimeoutConfig,
): RouteDeadline {
  const ms = timeoutOf(r, config);
  return (req, work) => withDeadline(req, ms, config.bodyMinRate, work);
}
