// Serving shards below their prefixes (docs/SHARDS.md "A shard is a base URL"): a request for
// `/shards/<id>/<path>` goes to that shard's app as `/<path>`; every other request goes to the
// service's own app unchanged (the first shard's URLs are the root, forever). The test is one
// string comparison at the path's start, so unprefixed requests pay nothing measurable.
// Platform-neutral.
import { pathStart } from "./raw_path.ts";
import { validHost } from "./public_url.ts";
import type { FrontStage } from "./front_door.ts";

/** The shard a request URL addresses and the path below its prefix (with the query), if any. */
export function shardTarget(url: string): { id: string; path: string; at: number } | undefined {
  const at = pathStart(url);
  if (at < 0 || !url.startsWith("/shards/", at)) return undefined;
  const slash = url.indexOf("/", at + 8);
  if (slash < 0) return undefined;
  return { id: url.slice(at + 8, slash), path: url.slice(slash), at };
}

/**
 * Answers `req` with the app of the shard it addresses, or undefined when it addresses none
 * (`appOf` returns undefined for an unknown id: the service's app answers 404 then). A relative
 * Location in the answer gets the shard's prefix.
 */
export async function dispatchToShard(
  req: Request,
  appOf: (id: string) => ((req: Request) => Response | Promise<Response>) | undefined,
): Promise<Response | undefined> {
  const t = shardTarget(req.url);
  if (!t) return undefined;
  // a malformed Host makes no URL: the service's app refuses it (400 bad-host, issue 27)
  const host = req.headers.get("host");
  if (host !== null && !validHost(host)) return undefined;
  const app = appOf(t.id);
  if (!app) return undefined;
  const inner = new Request(req.url.slice(0, t.at) + t.path, req);
  const res = await app(inner);
  const loc = res.headers.get("location");
  if (!loc?.startsWith("/")) return res;
  const headers = new Headers(res.headers);
  headers.set("location", `/shards/${t.id}${loc}`);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

/**
 * The shard dispatch as a front stage (api/http/front_door.ts), ahead of the service's own app:
 * `appOf(id, clientAddr)` is shard `id`'s app for that client; anything it does not take, the
 * service's app answers.
 */
export function shardDispatchStage(
  appOf: (
    id: string,
    clientAddr: string,
  ) => ((req: Request) => Response | Promise<Response>) | undefined,
): FrontStage {
  return (req, env, ctx, next) => {
    if (!shardTarget(req.url)) return next(req, env, ctx);
    const clientAddr = String(env?.clientAddr ?? "unknown");
    return dispatchToShard(req, (id) => appOf(id, clientAddr)).then((r) =>
      r ?? next(req, env, ctx)
    );
  };
}
