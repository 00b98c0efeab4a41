// The Hono app, built from the one route table (docs/CONTRACTS.md "api/"). Cross-cutting
// behaviour lives here and only here: the Hydra Link header on every response (API.md), CORS
// for the public read and verify routes, per-client rate limiting (429 + Retry-After), request
// time limits, 404 vs 405, a malformed Host refused (400 `bad-host`), one canonical path per
// resource (a percent-encoded unreserved character is 404, as tiles refuse it), the security
// headers of every answer (api/http/security_headers.ts), and the one error handler deciding every
// error's status (app.onError, as in Hono's src/hono-base.ts). Platform-neutral: the Deno entry
// (api/deno/main.ts) and the Worker entry (edge/worker/worker.ts) both call createApp.
import type { Context } from "hono";
import { ApiError, problemResponse, retryAfterSeconds } from "./errors.ts";
import { withDeadline } from "./limits.ts";
import { TokenBuckets } from "./rate_limit.ts";
import type { AppDeps, AppEnv, RateClass, RouteDef } from "./route.ts";
import { pathRegExp } from "./route.ts";
import { rawPath } from "./raw_path.ts";
import { badHost, validHost } from "./public_url.ts";
import { secureHeaders } from "./security_headers.ts";
import { refuseUnknownQuery } from "./params.ts";
import { allRoutes } from "./routes.ts";
import { CORS, LINK, ServiceApp } from "./front_door.ts";
import { fastLaneStage } from "./fast_lane.ts";

/**
 * RFC 3986 §2.3, §6.2.2.2: a percent-encoded unreserved character (ALPHA, DIGIT, - . _ ~) names
 * the same resource as the character itself; such a path is not the resource's canonical one and
 * is refused (404), as the tile paths already are (`%30%30%30` never aliases `000`). Encoded
 * reserved characters (`%3A` in a DID) are left to the routes, which read them as data.
 */
const ENCODED_UNRESERVED = /%(?:3[0-9]|4[1-9a-f]|5[0-9af]|6[1-9a-f]|7[0-9ae]|2[de])/i;

/** The raw path of `url` when it holds a percent-encoded alias of an unreserved character. */
export function aliasedPath(url: string): string | undefined {
  const path = rawPath(url);
  return path.includes("%") && ENCODED_UNRESERVED.test(path) ? path : undefined;
}

function allowedMethods(routes: RouteDef[], matchers: RegExp[], path: string): string[] {
  const methods = new Set<string>();
  routes.forEach((r, i) => {
    if (matchers[i].test(path)) {
      methods.add(r.method);
      if (r.method === "GET") methods.add("HEAD");
    }
  });
  return [...methods].sort();
}

/**
 * Builds the service's Hono app from `deps` and the route table (default: every group of
 * api/http/routes.ts).
 *
 * ```ts
 * const app = createApp({ log, config, verifier: {}, metrics: new Metrics() });
 * const res = await app.request("/v1/log/tree-head");
 * ```
 */
export function createApp(deps: AppDeps, routes: RouteDef[] = allRoutes()): ServiceApp {
  const app = new ServiceApp();
  const now = deps.now ?? Date.now;
  const buckets = {
    read: new TokenBuckets(deps.config.rate.read),
    write: new TokenBuckets(deps.config.rate.write),
  };
  const matchers = routes.map((r) => pathRegExp(r.path));
  // routes that refuse their own non-canonical paths, with their own codes (RouteDef.ownsRawPath)
  const ownRaw = routes.flatMap((r, i) => r.ownsRawPath ? [matchers[i]] : []);
  const corsPath = (path: string) => routes.some((r, i) => r.cors && matchers[i].test(path));
  const statusLabels = new Map<number, { status: string }>();
  const clientKey = deps.clientKey ??
    ((c: Context<AppEnv>) => String(c.env?.clientAddr ?? "unknown"));

  // Requests a fast lane took the rate-limit token of and left to the router (below).
  const admitted = new WeakSet<Request>();
  const countStatus = (status: number) => {
    let labels = statusLabels.get(status);
    if (!labels) statusLabels.set(status, labels = { status: String(status) });
    deps.metrics.inc("jc_http_responses_total", labels);
  };
  /** Takes a token of `rateClass` for the client, or refuses with 429 `rate-limited`. */
  const admit = (rateClass: RateClass, key: string): void => {
    if (rateClass === "none") return;
    const t = buckets[rateClass].take(key, now());
    if (!t.ok) {
      deps.metrics.inc("jc_rate_limited_total", { class: rateClass });
      throw new ApiError(
        "rate-limited",
        `Cannot answer now: this client is over its ${rateClass} rate limit`,
        { headers: { "retry-after": retryAfterSeconds(t.retryAfterMs) } },
      );
    }
  };

  app.use("*", async (c, next) => {
    c.set("deps", deps);
    c.set("routes", routes);
    c.set("startedAt", performance.now());
    await next();
    c.res.headers.append(...LINK);
    secureHeaders(c.res.headers);
    // A matched route said whether it is public; otherwise (404, 405, OPTIONS) match the path.
    if (c.get("cors") ?? corsPath(c.req.path)) {
      for (const h of CORS) c.res.headers.set(...h);
    }
    countStatus(c.res.status);
  });

  // Before any route (issue 27): the Host never decides an answer, so a malformed one is refused
  // rather than half-used; a non-canonical path is no resource.
  app.use("*", async (c, next) => {
    const host = c.req.raw.headers.get("host");
    if (host !== null && !validHost(host)) throw badHost();
    const aliased = aliasedPath(c.req.url);
    if (aliased !== undefined && !ownRaw.some((re) => re.test(aliased))) {
      throw new ApiError(
        "not-found",
        "Cannot find the path: a percent-encoded letter, digit or - . _ ~ is not its " +
          "canonical form (RFC 3986 §6.2.2.2)",
      );
    }
    await next();
  });

  // CORS preflight (Fetch standard §3.2.2) for the public routes.
  app.options("*", (c) => {
    const methods = allowedMethods(routes, matchers, c.req.path);
    if (methods.length === 0) {
      throw new ApiError("not-found", `Cannot find ${c.req.path}: no such resource`);
    }
    const headers: Record<string, string> = { allow: [...methods, "OPTIONS"].join(", ") };
    if (corsPath(c.req.path)) {
      headers["access-control-allow-methods"] = [...methods, "OPTIONS"].join(", ");
      headers["access-control-allow-headers"] = "Content-Type, Accept";
      headers["access-control-max-age"] = "86400";
    }
    return new Response(null, { status: 204, headers });
  });

  for (const r of routes) {
    const rateClass = r.rate ?? (r.method === "GET" ? "read" : "write");
    const timeoutMs = r.timeoutMs ?? deps.config.requestTimeoutMs;
    const cors = r.cors === true;
    const own = r.ownQuery;
    const known = own === "page"
      ? undefined
      : new Set([...(r.query ?? []), ...(own?.refuses ?? [])]);
    app.on(r.method, r.path, async (c) => {
      c.set("cors", cors);
      // a fast lane that took this request's token and left it to the router (below)
      if (!admitted.has(c.req.raw)) admit(rateClass, clientKey(c));
      if (known) refuseUnknownQuery(c.req.url, known);
      // the deadline also bounds the body's read (api/http/limits.ts readBodyLimited)
      const minRate = deps.config.bodyMinRate;
      return await withDeadline(c.req.raw, timeoutMs, minRate, async () => await r.handler(c));
    });
  }

  // Fast lanes (RouteDef.fast; docs/PERFORMANCE.md "Serving tiles"), ahead of the router in
  // the front door (api/http/front_door.ts). Not with a custom clientKey (that reads the router's
  // context).
  const lanes = routes.filter((r) => r.method === "GET" && r.fast);
  if (lanes.length > 0 && deps.clientKey === undefined) {
    app.front([fastLaneStage({ lanes, deps, buckets, now, admitted, countStatus })]);
  }

  app.notFound((c) => {
    const methods = allowedMethods(routes, matchers, c.req.path);
    if (methods.length > 0) {
      return problemResponse(
        new ApiError(
          "method-not-allowed",
          `Cannot ${c.req.method} ${c.req.path}: it allows ${methods.join(", ")}`,
          { headers: { allow: [...methods, "OPTIONS"].join(", ") } },
        ),
      );
    }
    return problemResponse(
      new ApiError("not-found", `Cannot find ${c.req.path}: no such resource`),
    );
  });

  app.onError((err, c) => {
    const res = problemResponse(err);
    if (
      res.status === 500 ||
      (err instanceof ApiError && err.cause !== undefined && res.status >= 500)
    ) {
      // An operational fault: logged with its cause, answered without it.
      console.error(`Cannot answer ${c.req.method} ${c.req.path}:`, err);
    }
    return res;
  });

  return app;
}
