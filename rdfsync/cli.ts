// `deno task rdf:sync --log <log URL or mirror dir> --endpoint <query URL> [--update <update URL>]
// [--graph-store <GSP URL>] [--user U --password P] [--log-key VKEY] [--policy FILE]
// [--graph-base URL] [--batch N] [--interval S] [--once]`: the verified sync of rdfsync/sync.ts.
// Exit 0 done (with --once) / stopped by a signal; 1 a failure (retried in the loop); 2 a usage
// error; 3 an alarm (the log does not extend what was synced: both checkpoints are kept in the
// store's sync-state graph); 4 a checkpoint or tile that does not verify; 5 below the policy quorum.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { VerificationFailure } from "../api/client/client.ts";
import { BelowQuorum, loadPolicy } from "../api/client/policy.ts";
import { TileClient } from "../api/client/tiles.ts";
import { resolveLogKey } from "../api/client/tile_commands.ts";
import { fileFetch } from "./file_fetch.ts";
import { SparqlHttp } from "./sparql_http.ts";
import { SyncAlarm, syncOnce } from "./sync.ts";

const USAGE =
  `usage: deno task rdf:sync --log URL|DIR --endpoint URL [--update URL] [--graph-store URL]
  [--user U --password P] [--log-key VKEY] [--policy FILE] [--graph-base URL] [--batch N]
  [--interval SECONDS] [--once]`;

function parse(args: string[]): Record<string, string | true> {
  const out: Record<string, string | true> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith("--")) throw new Error(`unexpected argument ${a}`);
    const k = a.slice(2);
    if (k === "once" || k === "help") out[k] = true;
    else if (i + 1 < args.length) out[k] = args[++i];
    else throw new Error(`--${k} needs a value`);
  }
  return out;
}

/** Runs the CLI; answers its exit code. */
export async function main(args: string[]): Promise<number> {
  let f: Record<string, string | true>;
  try {
    f = parse(args);
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const s = (k: string) => typeof f[k] === "string" ? f[k] as string : undefined;
  const log = s("log"), endpoint = s("endpoint");
  if (f.help || !log || !endpoint) {
    console.error(USAGE);
    return f.help ? 0 : 2;
  }
  const isUrl = /^https?:\/\//.test(log);
  const base = isUrl ? log : pathToFileURL(resolve(log)).href;
  const graphBase = s("graph-base") ?? (isUrl ? log : undefined);
  if (!graphBase) {
    console.error(`--graph-base URL is needed with a mirror directory (the log's service URL)`);
    return 2;
  }
  const net = { fetch: isUrl ? undefined : fileFetch };
  const store = new SparqlHttp({
    endpoint,
    update: s("update"),
    graphStore: s("graph-store"),
    user: s("user"),
    password: s("password"),
  });
  const interval = Number(s("interval") ?? "10") * 1000;
  let stop = false;
  const onSignal = () => stop = true;
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  try {
    const vkey = await resolveLogKey(log, f, (k) => Deno.env.get(k), net);
    const client = new TileClient(base, vkey, net);
    const policy = s("policy") ? await loadPolicy(s("policy")!) : undefined;
    for (;;) {
      try {
        const r = await syncOnce({
          client,
          store,
          graphBase,
          policy,
          batch: s("batch") ? Number(s("batch")) : undefined,
        });
        console.log(
          JSON.stringify({ synced: r.to, from: r.from, root: r.root, ms: Math.round(r.ms) }),
        );
        if (f.once) return 0;
      } catch (e) {
        if (e instanceof SyncAlarm) {
          console.error(`ALARM: ${e.message}`);
          return 3;
        }
        if (e instanceof BelowQuorum) {
          console.error(e.message);
          return 5;
        }
        if (e instanceof VerificationFailure) {
          console.error(e.message);
          return 4;
        }
        console.error(`Cannot sync now: ${(e as Error).message}`);
        if (f.once) return 1;
      }
      for (let t = 0; t < interval && !stop; t += 200) await new Promise((r) => setTimeout(r, 200));
      if (stop) return 0;
    }
  } catch (e) {
    console.error((e as Error).message);
    return 1;
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
