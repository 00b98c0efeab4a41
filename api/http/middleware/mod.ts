// The app's middleware (docs/CONTRACTS.md "The front door"), one module per concern, each with its
// own test (tests/api/middleware/): the documentation Link, CORS and its preflight, the security
// headers, the answer count, per-client rate limits and route deadlines. createApp (api/http/app.ts) composes them
// around the router; the fast lane (api/http/fast_lane.ts) answers under the same ones.
export { LINK, linkHeader } from "./link.ts";
export { CORS, corsHeaders, CorsRoutes, preflight } from "./cors.ts";
export { countAnswers, type StatusCounter, statusCounter } from "./metrics.ts";
export { type ClientKey, peerAddress, RateLimiter } from "./rate_limit.ts";
export {
  FRAME_DENY,
  HTML_FALLBACK_CSP,
  NOSNIFF,
  secured,
  secureHeaders,
  securityHeaders,
} from "./security_headers.ts";
export { type TakeResult, TokenBuckets } from "./token_buckets.ts";
export { type RouteDeadline, routeDeadline, type TimeoutConfig, timeoutOf } from "./timeout.ts";
