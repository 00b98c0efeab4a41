// `deno task rdf:sync --log <log URL or mirror dir> --endpoint <query URL> [options]`: the
// verified sync of rdfsync/sync.ts. Options and --help come from cli/args.ts (usage errors exit 2).
// Exit statuses as the client's (docs/CLIENTS.md): 0 done (with --once) / stopped by a signal; 1 a
// failure (retried in the loop); 2 a usage error; 3 an alarm (the log does not extend what was
// synced: both checkpoints are kept in the store's sync-state graph) or a checkpoint or tile that
// does not verify; 4 (--once) a transport failure (net/ NetError); 5 below the policy quorum.
import { pathToFileURL } from "node:url";
import { VerificationFailure } from "../client/mod.ts";
import { isNetError } from "../net/mod.ts";
import { BelowQuorum, loadPolicy } from "../client/mod.ts";
import {
  type CommandSpec,
  flag,
  num,
  type ParsedArgs,
  resolveFromCaller,
  runCommand,
  str,
  UsageError,
} from "../cli/mod.ts";
import { fileFetch } from "./file_fetch.ts";
import { SparqlHttp } from "./sparql_http.ts";
import { SyncAlarm, syncOnce } from "./sync.ts";
import { syncTargets } from "./targets.ts";

const SPEC: CommandSpec = {
  name: "deno task rdf:sync",
  summary: 'Syncs the log into an external SPARQL store (docs/RDF.md "Sync into an external ' +
    'store"): every checkpoint and tile is verified before its entries are written, one named ' +
    "graph per entry; resumable (the sync state is kept in the store).",
  options: [
    {
      name: "log",
      value: "URL|DIR",
      help: "the log's service URL, or a mirror directory (required)",
    },
    { name: "endpoint", value: "URL", help: "the store's SPARQL query endpoint (required)" },
    { name: "update", value: "URL", help: "its SPARQL update endpoint (default: --endpoint)" },
    { name: "graph-store", value: "URL", help: "its Graph Store Protocol endpoint" },
    { name: "user", value: "U", help: "HTTP user of the store" },
    { name: "password", value: "P", help: "HTTP password of the store" },
    {
      name: "log-key",
      value: "VKEY",
      help: "the log's vkey (or $JC_LOG_KEY): syncs that one log, not the directory's shards",
    },
    {
      name: "operator-key",
      value: "VKEY",
      help: "pin the shard directory's operator key (or $JC_OPERATOR_VKEY; default: trusted " +
        "on first use); every shard of GET /v1/logs is synced",
    },
    { name: "policy", value: "FILE", help: "a C2SP tlog-policy checkpoints must meet (exit 5)" },
    { name: "graph-base", value: "URL", help: "entry graph names' base (default: --log URL)" },
    { name: "batch", value: "N", help: "entries written per update" },
    { name: "interval", value: "SECONDS", help: "between syncs (default 10)" },
    { name: "once", help: "sync once and exit" },
  ],
  footer: "Exit status: 0 done (--once) or stopped by SIGINT/SIGTERM, 1 a failure, 2 usage, " +
    "3 an alarm (the log does not extend what was synced) or a checkpoint or tile that does not " +
    "verify, 4 (--once) a transport failure, 5 a checkpoint below the --policy quorum.",
};

/** Runs the CLI; answers its exit code. */
export function main(
  args: string[],
  env: Record<string, string | undefined> = Deno.env.toObject(),
  cwd = Deno.cwd(),
): Promise<number> {
  return runCommand(args, SPEC, (p) => run(p, env, cwd));
}

async function run(
  p: ParsedArgs,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<number> {
  const s = (k: string) => str(p, k);
  const logArg = s("log"), endpoint = s("endpoint");
  if (!logArg || !endpoint) throw new UsageError("--log and --endpoint are required");
  const isUrl = /^https?:\/\//.test(logArg);
  const log = isUrl ? logArg : resolveFromCaller(logArg, env, cwd);
  const base = isUrl ? log : pathToFileURL(log).href;
  const graphBase = s("graph-base") ?? (isUrl ? log : undefined);
  if (!graphBase) {
    throw new UsageError("--graph-base URL is needed with a mirror directory (the log's URL)");
  }
  const batch = s("batch") !== undefined ? num(p, "batch", 0, 1) : undefined;
  const interval = num(p, "interval", 10, 0) * 1000;
  const policyFile = s("policy");
  const net = { fetch: isUrl ? undefined : fileFetch };
  const store = new SparqlHttp({
    endpoint,
    update: s("update"),
    graphStore: s("graph-store"),
    user: s("user"),
    password: s("password"),
  });
  let stop = false;
  const onSignal = () => stop = true;
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  try {
    const policy = policyFile
      ? await loadPolicy(resolveFromCaller(policyFile, env, cwd))
      : undefined;
    for (;;) {
      try {
        // docs/SHARDS.md: every shard of the directory, s0 first (re-read each pass: a rotation
        // adds one), each into its own graphs and sync state
        const targets = await syncTargets({
          log: base,
          graphBase,
          flags: p.options as Record<string, string | true>,
          env: (k) => env[k],
          operatorKey: s("operator-key"),
          policy,
          net,
        });
        for (const t of targets) {
          const r = await syncOnce({ ...t, store, batch });
          console.log(JSON.stringify({
            ...(t.shard ? { shard: t.shard } : {}),
            synced: r.to,
            from: r.from,
            root: r.root,
            ms: Math.round(r.ms),
          }));
        }
        if (flag(p, "once")) return 0;
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
          console.error(`CHECK FAILED: ${e.message}`);
          return 3;
        }
        console.error(`Cannot sync now: ${(e as Error).message}`);
        if (flag(p, "once")) return isNetError(e) ? 4 : 1;
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
