// The Hono app, built from the one route table (docs/CONTRACTS.md "api/", "The front door"). Its
// cross-cutting behaviour is middleware, one named module each (api/http/middleware/), composed
// here and only here around the router: the answer count, CORS for the public read and verify
// routes, the security headers of every answer, the Hydra Link header on every response (API.md),
// per-client rate limiting (429 + Retry-After) and route deadlines; besides them 404 vs 405, a
// malformed Host refused (400 `bad-host`), one canonical path per resource (a percent-encoded
// unreserved character is 404, as tiles refuse it), and the one error handler deciding every
// error's status (api/http/errors.ts errorAnswer, the app's onError, as in Hono's
// src/hono-base.ts), a front stage's exception's too (api/http/front_door.ts). Platform-neutral:
// the Deno entry (api/deno/main.ts) and the Worker entry (edge/worker/worker.ts) both call createApp.
import { ApiError, errorAnswer, problemResponse } from "./errors.ts";
import type { AppDeps, RouteDef } from "./route.ts";
import { allowedMethods, pathRegExp } from "./route.ts";
import { rawPath } from "./raw_path.ts";
import { badHost, validHost } from "./public_url.ts";
import { refuseUnknownQuery } from "./params.ts";
import { allRoutes } from "./routes.ts";
import { ServiceApp, stageFailure } from "./front_door.ts";
import { fastLaneStage } from "./fast_lane.ts";
import {
  corsHeaders,
  CorsRoutes,
  countAnswers,
  linkHeader,
  peerAddress,
  preflight,
  RateLimiter,
  routeDeadline,
  securityHeaders,
  statusCounter,
} from "./middleware/mod.ts";

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
  const limiter = new RateLimiter(deps.config.rate, deps.metrics, deps.now ?? Date.now);
  const matchers = routes.map((r) => pathRegExp(r.path));
  // routes that refuse their own non-canonical paths, with their own codes (RouteDef.ownsRawPath)
  const ownRaw = routes.flatMap((r, i) => r.ownsRawPath ? [matchers[i]] : []);
  const cors = new CorsRoutes(routes, matchers);
  const countStatus = statusCounter(deps.metrics);
  const clientKey = deps.clientKey ?? peerAddress;

  // The middleware, outermost first; each adds to the answer on the way out, whoever made it (a
  // route, a refusal, the one error handler): counted last, after its headers are set.
  app.use("*", countAnswers(countStatus));
  app.use("*", corsHeaders(cors));
  app.use("*", securityHeaders());
  app.use("*", linkHeader());
  app.use("*", async (c, next) => {
    // a front stage's exception (api/http/front_door.ts): answered as a route's
    const failed = stageFailure(c.req.raw);
    if (failed) {
      throw failed.error instanceof Error ? failed.error : new Error(String(failed.error));
    }
    c.set("deps", deps);
    c.set("routes", routes);
    c.set("startedAt", performance.now());
    await next();
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

  // CORS preflight (Fetch standard §3.2.2) for the public routes, Allow for every route.
  app.options("*", preflight(cors));

  for (const r of routes) {
    const rateClass = r.rate ?? (r.method === "GET" ? "read" : "write");
    const deadline = routeDeadline(r, deps.config);
    const isPublic = r.cors === true;
    const own = r.ownQuery;
    const known = own === "page"
      ? undefined
      : new Set([...(r.query ?? []), ...(own?.refuses ?? [])]);
    app.on(r.method, r.path, async (c) => {
      c.set("cors", isPublic);
      // a fast lane that took this request's token and left it to the router takes none here
      limiter.admit(rateClass, clientKey(c), c.req.raw);
      if (known) refuseUnknownQuery(c.req.url, known);
      // the deadline also bounds the body's read (api/http/limits.ts readBodyLimited)
      return await deadline(c.req.raw, async () => await r.handler(c));
    });
  }

  // Fast lanes (RouteDef.fast; docs/PERFORMANCE.md "Serving tiles"), ahead of the router in
  // the front door (api/http/front_door.ts). Not with a custom clientKey (that reads the router's
  // context).
  const lanes = routes.filter((r) => r.method === "GET" && r.fast);
  if (lanes.length > 0 && deps.clientKey === undefined) {
    app.front([fastLaneStage({ lanes, deps, limiter, countStatus })]);
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

  // The one error handler (api/http/errors.ts): every error's status, by its kind.
  app.onError((err, c) => errorAnswer(err, c.req.method, c.req.path));

  return app;
}
