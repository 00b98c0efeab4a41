// The rate-limit middleware (API.md "Limits"): every request of a rate class (RouteDef.rate; GET
// `read`, the others `write`, `none` exempt) takes a token of its client's bucket
// (token_buckets.ts) or is refused, 429 `rate-limited` with Retry-After (RFC 6585 §4), counted in
// `jc_rate_limited_total{class}`. A fast lane (api/http/fast_lane.ts) takes its request's token
// here too; a request it took the token of and left to the router takes none a second time.
// Platform-neutral.
import type { Context } from "hono";
import { ApiError, retryAfterSeconds } from "../errors.ts";
import type { Metrics } from "../metrics.ts";
import type { AppEnv, RateClass } from "../route.ts";
import type { RateSpec } from "../../services/config.ts";
import { TokenBuckets } from "./token_buckets.ts";

/** The client a request counts against (AppDeps.clientKey). */
export type ClientKey = (c: Context<AppEnv>) => string;

/** The default client key: the connection's peer address the platform entry passes. */
export const peerAddress: ClientKey = (c) => String(c.env?.clientAddr ?? "unknown");

/** One token bucket per client and rate class, shared by the router and the fast lanes. */
export class RateLimiter {
  readonly #buckets: Record<"read" | "write", TokenBuckets>;
  readonly #metrics: Metrics;
  readonly #now: () => number;
  /** Requests a fast lane took the token of and left to the router. */
  readonly #admitted = new WeakSet<Request>();

  constructor(rate: { read: RateSpec; write: RateSpec }, metrics: Metrics, now: () => number) {
    this.#buckets = { read: new TokenBuckets(rate.read), write: new TokenBuckets(rate.write) };
    this.#metrics = metrics;
    this.#now = now;
  }

  /**
   * Takes a token of `rateClass` for `key`, or refuses with 429 `rate-limited` (counted). A
   * request a fast lane admitted (`req`) takes none.
   */
  admit(rateClass: RateClass, key: string, req: Request): void {
    if (rateClass === "none" || this.#admitted.has(req)) return;
    const t = this.#buckets[rateClass].take(key, this.#now());
    if (!t.ok) {
      this.#metrics.inc("jc_rate_limited_total", { class: rateClass });
      throw new ApiError(
        "rate-limited",
        `Cannot answer now: this client is over its ${rateClass} rate limit`,
        { headers: { "retry-after": retryAfterSeconds(t.retryAfterMs) } },
      );
    }
  }

  /**
   * A fast lane's take: whether `key` had a token of `rateClass` (taken). A refused request is
   * left to the router, which refuses it again (429) and counts it.
   */
  take(rateClass: RateClass, key: string): boolean {
    return rateClass === "none" || this.#buckets[rateClass].take(key, this.#now()).ok;
  }

  /** Marks `req` as admitted by a fast lane (its token taken) before the lane leaves it. */
  admitted(req: Request): void {
    this.#admitted.add(req);
  }
}
