// Every listed shard's log, for the read paths that cover the whole service (docs/SHARDS.md
// "Service-level routes follow the directory"): the default witness policy (one `log` line per
// shard), `/healthz` and `/metrics` (every shard's size), SPARQL (one store over every shard,
// graph IRIs shard-qualified). The deployment puts a `ShardLogs` in `deps.services.shardLogs` (the
// embedded ShardSet, the Worker's directory state); without one the service is its one log.
// Platform-neutral.
import type { Log } from "../../log/mod.ts";

/** A listed shard: its id (`s1`), its prefix (`/` for s0, `/shards/s1`) and its log. */
export interface ListedShard {
  id: string;
  prefix: string;
  log: Log;
}

/** The shards the directory lists now, s0 first. */
export type ShardLogs = () => Promise<ListedShard[]>;

/** What a handler knows (AppDeps' slice). */
export interface ShardLogsDeps {
  log: Log;
  services?: { shardLogs?: ShardLogs };
}

/** The listed shards of the app's service (one, `s0` at `/`, on a service without shards). */
export function listedShards(deps: ShardLogsDeps): Promise<ListedShard[]> {
  const f = deps.services?.shardLogs;
  return f ? f() : Promise.resolve([{ id: "s0", prefix: "/", log: deps.log }]);
}

/**
 * A shard's base below the public root (`""` for s0, `/shards/s1`): an entry's IRI is
 * `<public_url><base>/v1/log/entries/<index>` (docs/RDF.md "Entry IRIs").
 */
export function shardBase(prefix: string): string {
  return prefix === "/" ? "" : prefix;
}
