// The log the service-level routes that append (`/v1/readings`, `GET /v1/agents/{did}`) use on a
// sharded deployment (docs/SHARDS.md: they append to the active shard; agents' chain heads carry
// across rotations), shared by the embedded shard set and the Worker: every call goes to the
// active shard's log, an agent's chain head is the newest shard's that has one, and an append
// that meets a rotation (409 `shard-frozen`) is made once more on the new active shard.
// Platform-neutral.
import type { AgentHead, AgentLink, AppendResult, Log } from "../log/mod.ts";
import { ApiError } from "./errors.ts";

/** Where the active shard's log and every shard's log (oldest first, the active last) come from. */
export interface ShardLogs {
  /** The active shard's log (`fresh`: after a 409, re-read whatever says which one is active). */
  active(fresh?: boolean): Log | Promise<Log>;
  /** Every shard's log, oldest first. */
  all(): Log[] | Promise<Log[]>;
}

/** An agent's chain head: the newest shard's that has one (one indexed read per older shard). */
export async function agentHeadAcross(
  logs: Log[],
  did: string,
  linkOf?: (e: Uint8Array) => AgentLink | undefined,
): Promise<AgentHead | undefined> {
  for (let i = logs.length - 1; i >= 0; i--) {
    const h = await logs[i].agentHead?.(did, linkOf);
    if (h) return h;
  }
  return undefined;
}

/** Appends on the active shard; a rotation that froze it meanwhile: once more, on the new one. */
export async function appendToActive(
  s: ShardLogs,
  entry: Uint8Array,
  link?: AgentLink,
): Promise<AppendResult> {
  try {
    return await (await s.active()).append(entry, link);
  } catch (e) {
    if (e instanceof ApiError && e.code === "shard-frozen") {
      return await (await s.active(true)).append(entry, link);
    }
    throw e;
  }
}

/**
 * A Log whose `append` and `agentHead` follow the shards as above and whose other methods are the
 * active shard's (`sync: true`: `active()` answers synchronously, so synchronous methods stay so;
 * otherwise every other method is called on the awaited active log and answers a promise).
 */
export function activeShardLog(s: ShardLogs, sync: boolean): Log {
  const agentHead = async (did: string, linkOf?: (e: Uint8Array) => AgentLink | undefined) =>
    agentHeadAcross(await s.all(), did, linkOf);
  const append = (entry: Uint8Array, link?: AgentLink) => appendToActive(s, entry, link);
  return new Proxy({} as Log, {
    get: (_t, k) => {
      if (k === "agentHead") return agentHead;
      if (k === "append") return append;
      if (k === "then") return undefined; // never a thenable
      if (sync) {
        const log = s.active() as unknown as Record<string | symbol, unknown>;
        const v = log[k];
        return typeof v === "function" ? v.bind(log) : v;
      }
      return async (...args: unknown[]) => {
        const log = (await s.active()) as unknown as Record<string | symbol, unknown>;
        return (log[k] as (...a: unknown[]) => unknown).apply(log, args);
      };
    },
  });
}
