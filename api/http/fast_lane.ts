// The fast lane (RouteDef.fast; docs/PERFORMANCE.md "Serving tiles"): a front stage
// (api/http/front_door.ts) answering a hot GET before the router, under the same rate limit, CORS,
// Link header and metrics; anything but its 200 (a refusal, a fault, a query, a malformed Host)
// is left to the router, which answers it as it answers every request (tests/api/
// fast_lane_test.ts: lane ≡ router). Platform-neutral.
import type { AppDeps, AppEnv, FastAnswer, RouteDef } from "./route.ts";
import type { TokenBuckets } from "./rate_limit.ts";
import { rawPath } from "./raw_path.ts";
import { validHost } from "./public_url.ts";
import { NOSNIFF } from "./security_headers.ts";
import { type AppFetch, CORS, type FrontStage, LINK } from "./front_door.ts";

/** What a fast lane adds to its answer's own headers, built once (no per-request strings). */
const LANE_TAIL: [string, string][] = [LINK, NOSNIFF];
const LANE_TAIL_CORS: [string, string][] = [LINK, NOSNIFF, ...CORS];

/** What the lane shares with the app's router (api/http/app.ts createApp). */
export interface FastLaneOptions {
  /** The GET routes with a `fast` answer. */
  lanes: RouteDef[];
  deps: AppDeps;
  /** The router's own token buckets: a lane's request takes its token there. */
  buckets: { read: TokenBuckets; write: TokenBuckets };
  now: () => number;
  /** Requests a lane took the token of and left to the router (which then takes none). */
  admitted: WeakSet<Request>;
  /** Counts an answer's status in the app's metrics. */
  countStatus: (status: number) => void;
}

/** The fast lane as a front stage. */
export function fastLaneStage(o: FastLaneOptions): FrontStage {
  const { lanes, deps, buckets, now, admitted, countStatus } = o;
  const lane = async (
    r: RouteDef,
    req: Request,
    path: string,
    env: AppEnv["Bindings"] | undefined,
    ctx: Parameters<AppFetch>[2],
    routerFetch: AppFetch,
  ): Promise<Response> => {
    const rateClass = r.rate ?? "read";
    const key = String(env?.clientAddr ?? "unknown");
    if (rateClass !== "none" && !buckets[rateClass].take(key, now()).ok) {
      return await routerFetch(req, env, ctx); // the router refuses it (429) and counts it
    }
    let a: FastAnswer | undefined;
    try {
      a = await r.fast!.answer(deps, path);
    } catch {
      a = undefined; // a fault: the router answers it (and logs it) as any other
    }
    if (a === undefined) {
      admitted.add(req);
      return await routerFetch(req, env, ctx);
    }
    countStatus(200);
    const headers = [...a.headers, ...(r.cors ? LANE_TAIL_CORS : LANE_TAIL)];
    return new Response(a.body as Uint8Array<ArrayBuffer>, { status: 200, headers });
  };
  return (req, env, ctx, next) => {
    // a request with a query goes to the router, which checks it (no lane takes one)
    if (req.method === "GET" && !req.url.includes("?")) {
      // a malformed Host: the router refuses it (400), as it refuses it on every route
      const host = req.headers.get("host");
      if (host !== null && !validHost(host)) return next(req, env, ctx);
      const path = rawPath(req.url);
      for (const r of lanes) {
        if (path.startsWith(r.fast!.prefix)) return lane(r, req, path, env, ctx, next);
      }
    }
    return next(req, env, ctx);
  };
}
