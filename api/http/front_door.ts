// The front door (issue 22 "One front door"; docs/CONTRACTS.md "The front door"): the app's request
// pipeline, named stages ahead of the router composed in one place, the same on both hosts. A
// stage answers a request itself or passes it on to `next` (the following stage, the router
// last). The platform entry's stages come first (the Deno host: the shard dispatch,
// api/http/shard_dispatch.ts; the Worker: the shard directory, the shard dispatch and the edge
// cache, edge/worker/stages.ts), then the app's own (the fast lane, api/http/fast_lane.ts), then
// the router with its middleware (api/http/middleware/). Every error answer goes through the one
// error handler (api/http/errors.ts errorAnswer): a route's or a middleware's by the router's
// onError, a stage's exception too, handed to the router (below), so that it is answered, and
// decorated (Link, CORS, security headers, metrics), exactly as a route's. Platform-neutral.
import { Hono } from "hono";
import type { AppEnv } from "./route.ts";

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

/** What a stage threw, by request, until the router answers it (`stageFailure`). */
const failures = new WeakMap<Request, { error: unknown }>();

/**
 * What a front stage threw while answering `req`, once: the router's first middleware throws it
 * again, so the one error handler answers it (createApp, api/http/app.ts).
 */
export function stageFailure(req: Request): { error: unknown } | undefined {
  const f = failures.get(req);
  failures.delete(req);
  return f;
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
    return this.#compose();
  }

  /**
   * The platform entry's stages, ahead of the app's own (api/deno/main.ts: the shard dispatch,
   * which hands `/shards/<id>/…` to another app before this one's lanes; the Worker's, edge/
   * worker/stages.ts); replaces earlier ones.
   */
  host(stages: readonly FrontStage[]): this {
    this.#host = stages;
    return this.#compose();
  }

  #compose(): this {
    const stages = [...this.#host, ...this.#own].map((s) => this.#guarded(s));
    this.#pipeline = composeStages(stages, this.routerFetch);
    return this;
  }

  /**
   * `stage`, its exception (thrown or rejected) answered by the router's one error handler, never
   * thrown out. A stage that answers synchronously is not made asynchronous (the fast lane's
   * path stays as short as it was).
   */
  #guarded(stage: FrontStage): FrontStage {
    return (req, env, ctx, next) => {
      try {
        const res = stage(req, env, ctx, next);
        return res instanceof Promise ? res.catch((e) => this.#failed(e, req, env, ctx)) : res;
      } catch (e) {
        return this.#failed(e, req, env, ctx);
      }
    };
  }

  #failed(
    error: unknown,
    req: Request,
    env: AppEnv["Bindings"] | undefined,
    ctx: Parameters<AppFetch>[2],
  ): Response | Promise<Response> {
    failures.set(req, { error });
    return this.routerFetch(req, env, ctx);
  }

  override fetch: AppFetch = (req, env, ctx) => this.#pipeline(req, env, ctx);
}
