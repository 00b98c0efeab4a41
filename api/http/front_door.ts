// The front door (issue 22 "One front door"): the app's request pipeline, named stages ahead of
// the router composed in one place. A stage answers a request itself or passes it on to `next`
// (the following stage, the router last); the router's own middleware (Link, CORS, security
// headers, metrics, Host and alias refusals, rate limit, deadlines) and its one error handler
// (app.onError) answer everything a stage passes on. createApp (api/http/app.ts) puts the fast lane
// (api/http/fast_lane.ts) here. Platform-neutral.
import { Hono } from "hono";
import type { AppEnv } from "./route.ts";
import { API_DOC_LINK } from "./hydra.ts";

/** Headers a cross-origin script may read from our answers. */
const EXPOSED = "Link, Location, Retry-After, Content-Type";
/** API.md: every response carries the ApiDocumentation link. */
export const LINK: [string, string] = ["link", API_DOC_LINK];
/** What a public (CORS) route's answers carry. */
export const CORS: [string, string][] = [
  ["access-control-allow-origin", "*"],
  ["access-control-expose-headers", EXPOSED],
];

/** The app's fetch: Hono's signature (what Deno.serve's handler and the Worker call). */
export type AppFetch = Hono<AppEnv>["fetch"];

/** One stage ahead of the router: answers `req`, or hands it to `next`. */
export type FrontStage = (
  req: Request,
  env: AppEnv["Bindings"] | undefined,
  ctx: Parameters<AppFetch>[2],
  next: AppFetch,
) => Response | Promise<Response>;

/** `stages` ahead of `last`, the first outermost. */
export function composeStages(stages: readonly FrontStage[], last: AppFetch): AppFetch {
  return stages.reduceRight<AppFetch>(
    (next, stage) => (req, env, ctx) =>
      stage(req, env as AppEnv["Bindings"] | undefined, ctx, next),
    last,
  );
}

/**
 * The service's Hono app with its front stages: `fetch` (and so `request`) runs the stages, then
 * Hono's router. Typed composition, not a patched method: the router's own fetch is kept as it
 * was built, and `front` is set once, by createApp.
 */
export class ServiceApp extends Hono<AppEnv> {
  /**
   * Hono's dispatch through the router: the base class's fetch, an own property its constructor
   * set, read here before this class's `fetch` (declared below, initialized after) shadows it.
   */
  readonly routerFetch: AppFetch = (this as Hono<AppEnv>).fetch;
  #pipeline: AppFetch = this.routerFetch;
  #host: readonly FrontStage[] = [];
  #own: readonly FrontStage[] = [];

  /** The app's own stages ahead of the router (createApp: the fast lane); replaces earlier ones. */
  front(stages: readonly FrontStage[]): this {
    this.#own = stages;
    this.#pipeline = composeStages([...this.#host, ...this.#own], this.routerFetch);
    return this;
  }

  /**
   * The platform entry's stages, ahead of the app's own (api/deno/main.ts: the shard dispatch, which
   * hands `/shards/<id>/…` to another app before this one's lanes); replaces earlier ones.
   */
  host(stages: readonly FrontStage[]): this {
    this.#host = stages;
    this.#pipeline = composeStages([...this.#host, ...this.#own], this.routerFetch);
    return this;
  }

  override fetch: AppFetch = (req, env, ctx) => this.#pipeline(req, env, ctx);
}
