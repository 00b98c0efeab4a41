// The Worker's front stages (issue 22 "One front door"; docs/EDGE.md "The front door"): the same
// pipeline as the Deno host's (api/http/front_door.ts), composed by ServiceApp.host ahead of the
// app's own fast lane and router. The root app's: the shard directory (`/v1/logs`,
// `/v1/logs/rotate`), the shard dispatch (`/shards/sN/<log route>` to shard n's app, below its
// prefix) and the edge cache; each shard app's: the edge cache, keyed below the shard's prefix.
// A directory or dispatch answer is the Worker's own, made outside the app as it always was (no
// Link, no CORS: the wire is unchanged); its errors are answered by edgeErrorAnswer, the app's one
// error handler with the Worker's `edge-config` for a configuration fault. Platform-neutral.
import type { FrontStage } from "../../api/mod.ts";
import { type EdgeCache, serveCached } from "./http_cache.ts";
import { edgeErrorAnswer } from "./errors.ts";
import type { ShardFront } from "./shard_front.ts";

/** `GET /v1/logs` and `POST /v1/logs/rotate` (docs/SHARDS.md), answered by `shards`. */
export function shardDirectoryStage(shards: ShardFront): FrontStage {
  return async (req, env, ctx, next) => {
    const path = new URL(req.url).pathname;
    if (path !== "/v1/logs" && path !== "/v1/logs/rotate") {
      return await next(req, env, ctx);
    }
    try {
      return (await shards.directory(req, path))!;
    } catch (e) {
      return edgeErrorAnswer(e, req);
    }
  };
}

/**
 * `/shards/<id>/<rest>` to the listed shard's app as `<rest>` (the query kept); a shard not
 * listed is 404 `not-found`. Any other path goes on to the root app.
 */
export function edgeShardDispatchStage(shards: ShardFront): FrontStage {
  return async (req, env, ctx, next) => {
    const url = new URL(req.url);
    if (!url.pathname.startsWith("/shards/")) return await next(req, env, ctx);
    let t;
    try {
      t = await shards.target(url.pathname);
    } catch (e) {
      return edgeErrorAnswer(e, req);
    }
    if (!t) return await next(req, env, ctx);
    url.pathname = t.rest;
    return await t.app(new Request(url, req), env, ctx);
  };
}

/** What the edge cache stage is given. */
export interface EdgeCacheStageOptions {
  /** The colocation's cache, when the platform has one and the settings use it. */
  cache: () => EdgeCache | undefined;
  /** `max-age` of the latest head's answer, seconds (http_cache.ts). */
  headMaxAgeS: number;
  /** The prefix the app's requests were found below (a shard's), part of the cache key. */
  prefix?: string;
}

/**
 * The edge cache (http_cache.ts) around the rest of the pipeline: an immutable answer is kept in
 * the colocation's cache and answered from it; the latest head is short-cached.
 */
export function edgeCacheStage(o: EdgeCacheStageOptions): FrontStage {
  return (req, env, ctx, next) =>
    serveCached(req, async () => await next(req, env, ctx), {
      cache: o.cache(),
      waitUntil: (p) => ctx ? ctx.waitUntil(p) : void p,
      headMaxAgeS: o.headMaxAgeS,
      prefix: o.prefix,
    });
}
