// The CORS middleware (Fetch standard §3.2 "CORS protocol"): the public read and verify routes
// (RouteDef.cors) may be called from any origin's script, the others only from our own pages.
// A public route's answers carry `Access-Control-Allow-Origin: *` and the headers a script may
// read; a 404, a 405 or an OPTIONS, which no route matched, is public when its path is a public
// route's. The preflight (§3.2.2) answers OPTIONS with the path's methods, 404 for no resource.
// Platform-neutral.
import type { Handler, MiddlewareHandler } from "hono";
import { ApiError } from "../errors.ts";
import { allowedMethods, type AppEnv, pathRegExp, type RouteDef } from "../route.ts";

/** Headers a cross-origin script may read from our answers. */
const EXPOSED = "Link, Location, Retry-After, Content-Type";
/** What a public (CORS) route's answers carry. */
export const CORS: [string, string][] = [
  ["access-control-allow-origin", "*"],
  ["access-control-expose-headers", EXPOSED],
];

/** What the middleware reads of a route: its method, path and whether it is public. */
export type CorsRoute = Pick<RouteDef, "method" | "path" | "cors">;

/** The route table's public paths and methods. */
export class CorsRoutes {
  readonly #routes: CorsRoute[];
  readonly #matchers: RegExp[];

  constructor(routes: CorsRoute[], matchers: RegExp[] = routes.map((r) => pathRegExp(r.path))) {
    this.#routes = routes;
    this.#matchers = matchers;
  }

  /** Whether `path` is a public route's (one marked `cors`). */
  isPublic(path: string): boolean {
    return this.#routes.some((r, i) => r.cors && this.#matchers[i].test(path));
  }

  /** The methods `path` allows (HEAD beside GET), sorted. */
  methods(path: string): string[] {
    return allowedMethods(this.#routes, this.#matchers, path);
  }
}

/**
 * Adds the CORS headers to a public route's answers: the matched route said whether it is public
 * (the `cors` variable); otherwise (404, 405, OPTIONS) the path decides.
 */
export function corsHeaders(routes: CorsRoutes): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (c.get("cors") ?? routes.isPublic(c.req.path)) {
      for (const h of CORS) c.res.headers.set(...h);
    }
  };
}

/** The OPTIONS answer (CORS preflight for the public routes, `Allow` for every route). */
export function preflight(routes: CorsRoutes): Handler<AppEnv> {
  return (c) => {
    const methods = routes.methods(c.req.path);
    if (methods.length === 0) {
      throw new ApiError("not-found", `Cannot find ${c.req.path}: no such resource`);
    }
    const headers: Record<string, string> = { allow: [...methods, "OPTIONS"].join(", ") };
    if (routes.isPublic(c.req.path)) {
      headers["access-control-allow-methods"] = [...methods, "OPTIONS"].join(", ");
      headers["access-control-allow-headers"] = "Content-Type, Accept";
      headers["access-control-max-age"] = "86400";
    }
    return new Response(null, { status: 204, headers });
  };
}
