// What the RDF sync syncs (docs/RDF.md "Sync into an external store", docs/SHARDS.md): the log at
// a service URL or, for a sharded service, every shard of its signed directory (`GET /v1/logs`,
// opened under the operator key given or trusted on first use), s0 first. Each shard is its own
// log with its own key (from the directory), its own sync-state graph (keyed by its origin) and
// its own entry IRIs: `<graph base><shard prefix>/v1/log/entries/<i>` (docs/RDF.md "Entry IRIs").
// A pinned log key (`--log-key`, JC_LOG_KEY) names one log, as before shards.
import { type c2sp, integrationTimes } from "../log/mod.ts";
import { TileClient, type TileNet } from "../client/mod.ts";
import { resolveLogKey } from "../client/mod.ts";
import { allShards } from "../client/mod.ts";
import { policyForShard } from "../client/mod.ts";

/** One log to sync. */
export interface SyncTarget {
  /** The shard's id (absent: a service without a directory, or a pinned log). */
  shard?: string;
  client: TileClient;
  graphBase: string;
  policy?: c2sp.TlogPolicy;
  /** Issue 30: an entry's integration time (ms), from the log's service; absent for a mirror. */
  integrated?: (index: number) => Promise<number | undefined>;
}

/** Options of `syncTargets`. */
export interface SyncTargetOptions {
  /** The log's service URL (or a mirror's file: URL). */
  log: string;
  /** The entry IRIs' base for s0 (a shard's adds its prefix). */
  graphBase: string;
  /** `--log-key` and friends (resolveLogKey's flags). */
  flags: Record<string, string | true>;
  env: (k: string) => string | undefined;
  /** The operator key to open the directory with (else trusted on first use). */
  operatorKey?: string;
  policy?: c2sp.TlogPolicy;
  net: TileNet;
}

/** The logs to sync, s0 first. */
export async function syncTargets(o: SyncTargetOptions): Promise<SyncTarget[]> {
  const pinned = typeof o.flags["log-key"] === "string" || !!o.env("JC_LOG_KEY");
  const one = async (): Promise<SyncTarget[]> => {
    const vkey = await resolveLogKey(o.log, o.flags, o.env, o.net);
    return [{
      client: new TileClient(o.log, vkey, o.net),
      graphBase: o.graphBase,
      policy: o.policy,
      ...integratedFrom(o.log, o.net),
    }];
  };
  if (pinned || !/^https?:\/\//.test(o.log)) return await one();
  const shards = await allShards({
    url: o.log,
    operatorKey: o.operatorKey ?? (o.env("JC_OPERATOR_VKEY") || undefined),
    net: o.net,
    fetch: o.net.fetch,
  });
  if (shards.length === 1 && !shards[0].shard) return await one();
  const base = o.graphBase.replace(/\/+$/, "");
  return shards.reverse().map((t) => {
    const s = t.shard!;
    return {
      shard: s.id,
      client: new TileClient(t.base, s.vkeys.blake3, o.net),
      graphBase: base + (s.prefix === "/" ? "" : s.prefix),
      policy: o.policy && policyForShard(o.policy, s.vkeys.sha256),
      ...integratedFrom(t.base, o.net),
    };
  });
}

/**
 * Issue 30 (docs/ACCOUNTING.md): the integration times of a log served over HTTP, read from its
 * entries' `GET /v1/log/entries/{i}/findings` (`integrated_in`, JCP §11: the first signed head
 * covering the entry), one request per head crossed (log/'s integrationTimes). A log that keeps
 * none (404: no stream state) or a mirror directory gives none: the graphs then carry no
 * jc:integratedAt.
 */
function integratedFrom(
  log: string,
  net: TileNet,
): { integrated?: (index: number) => Promise<number | undefined> } {
  if (!/^https?:\/\//.test(log)) return {};
  const base = log.replace(/\/+$/, "");
  const get = net.fetch ?? fetch;
  return {
    integrated: integrationTimes({
      integratedIn: async (i) => {
        const r = await get(`${base}/v1/log/entries/${i}/findings`, {
          headers: { accept: "application/json" },
        });
        if (r.status === 404) {
          await r.body?.cancel();
          return undefined;
        }
        if (!r.ok) throw new Error(`Cannot read entry ${i}'s integration: HTTP ${r.status}`);
        const at = ((await r.json()) as { integrated_in?: { size?: unknown; timestamp?: unknown } })
          .integrated_in;
        return at && Number.isSafeInteger(at.size) && Number.isSafeInteger(at.timestamp)
          ? { size: at.size as number, timestamp: at.timestamp as number }
          : undefined;
      },
    }),
  };
}
