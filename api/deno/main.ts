// The Deno entry, embedded default (ARCHITECTURE "Storage and sequencing"):
// `deno task start` serves the app on HOST:PORT (default 127.0.0.1:8080) with a SQLite log in DATA_DIR
// (default ./data) and a log key generated on first start. SIGINT/SIGTERM shut down
// gracefully: stop accepting, finish the requests in flight, drain the sequencer (nothing
// accepted is dropped), close the store. Configuration: docs/CONFIG.md.
import type { AppServices } from "../services/services.ts";
import type { Log } from "../../log/mod.ts";
import { createApp, Metrics, verifierOptions } from "../mod.ts";
import { ConfigError, type ServiceConfig } from "../services/config.ts";
import { loadConfig } from "./config_load.ts";
import { VerifierPool } from "../services/verify_pool.ts";
import { ValidatePool } from "../services/validate_pool.ts";
import { EmbeddedSparqlProvider } from "../services/sparql_worker.ts";
import { openWitnessing, type Witnessing } from "./witnessing.ts";
import { RdfSyncJob } from "../services/rdf_sync_job.ts";
import { ShardSet } from "../services/shard_set.ts";
import { openShardServing, type ShardServing } from "./shard_serve.ts";
import { shardDispatchStage } from "../http/shard_dispatch.ts";
import { defaultPublicUrl } from "../http/public_url.ts";
import { type ConnServer, listenService } from "./conn_server.ts";
import { bodyLeftUnread } from "../http/limits.ts";
import { parseOrExit } from "../../cli/mod.ts";
import { START_COMMAND } from "./start_cli.ts";
import { launcherChain, watchLaunchers } from "./launcher_watch.ts";
import { type DataDirLock, lockDataDir } from "./data_dir_lock.ts";
import {
  defaultRules,
  entryLink,
  type PreparedConfig,
  prepareVerifierConfig,
  VerifierConfigLedger,
  VerifierConfigs,
} from "../services/verifier_config_log.ts";

/** The verifier pool size `config.verifyWorkers` asks for on this machine (0: none). */
export function verifyWorkerCount(config: ServiceConfig): number {
  if (config.verifyWorkers !== "auto") return config.verifyWorkers;
  return Math.max(1, Math.min(4, (navigator.hardwareConcurrency ?? 2) - 1));
}

type Handler = (req: Request, clientAddr: string) => Response | Promise<Response>;

/** The start-up error for a port that cannot be bound: names the address and what to change. */
export function listenFailure(host: string, port: number, e: unknown): string {
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  if (e instanceof Deno.errors.AddrInUse) {
    return `Cannot listen on ${where}: address in use; set PORT`;
  }
  if (e instanceof Deno.errors.PermissionDenied) {
    return `Cannot listen on ${where}: permission denied; set PORT (above 1023) or HOST`;
  }
  if (e instanceof Deno.errors.AddrNotAvailable) {
    return `Cannot listen on ${where}: no such local address; set HOST`;
  }
  return `Cannot listen on ${where}: ${(e as Error).message}; set PORT or HOST`;
}

/** A running service: its address and how to stop it. */
export interface RunningService {
  url: string;
  signer: string;
  shutdown(): Promise<void>;
}

/** Starts the service with the configuration of `env` and `args`. */
export async function startService(
  env: Record<string, string | undefined>,
  args: string[] = [],
): Promise<RunningService> {
  const config = await loadConfig(env, args);
  const verifier = verifierOptions(config);
  // The port first (nothing is created on disk when it is taken); requests that arrive before
  // the log is open wait for it.
  let resolveReady!: (a: Handler) => void;
  const appReady = new Promise<Handler>((r) => resolveReady = r);
  // once ready, requests go straight to the handler (no await per request)
  let ready: Handler | undefined;
  const resolveApp = (h: Handler) => resolveReady(ready = h);
  // Our own listener (api/deno/conn_server.ts): a connection cap below the descriptor limit, header,
  // idle and request timeouts, accept errors survived (issue 27).
  let server: ConnServer;
  try {
    server = listenService(
      config,
      (req, addr) => ready ? ready(req, addr) : appReady.then((h) => h(req, addr)),
      bodyLeftUnread,
    );
  } catch (e) {
    throw new ConfigError(listenFailure(config.host, config.port, e));
  }
  const addr = server.addr;
  // Every published IRI's base (issue 27): the configured public URL, else the bound address.
  config.publicUrl ??= defaultPublicUrl(addr.hostname, addr.port);
  let log: Log;
  let pool: VerifierPool | undefined;
  const metrics = new Metrics();
  const onReplaced = (why: Error) => {
    metrics.inc("jc_verify_worker_replaced_total");
    console.error(`verifier worker replaced: ${why.message}`);
  };
  let witnessing: Witnessing;
  let shards!: ShardSet;
  let serving!: ShardServing;
  const cpuClock = threadCpuClock();
  let dirLock: DataDirLock | undefined;
  let prepared!: PreparedConfig;
  try {
    // One service per data directory (api/deno/data_dir_lock.ts), before any store is opened.
    if (config.store === "sqlite") dirLock = await lockDataDir(config.dataDir);
    const sequencer = {
      batchMax: config.batchMax,
      searchKeyLag: config.searchKeyLag,
      batchAgeMs: config.batchAgeMs,
      pendingMax: config.pendingMax,
      closedSkewMs: config.closedSkewMs,
      // issue 24: "off" logs no stream state (the bench's "before" figure)
      ...(config.streamChecks === "off" ? { streamFacts: null } : {}),
      logName: config.logName,
      cpuClock: cpuClock?.read,
    };
    // The shards (docs/SHARDS.md): s0 is the data directory's store exactly as before shards.
    serving = await openShardServing(config, sequencer, metrics);
    shards = serving.shards;
    log = shards.shards[0].gate.log;
    try {
      // issue 23: the configuration in force, sealed and checked to fit before anything is served
      prepared = prepareVerifierConfig(
        config,
        verifier,
        <T>(f: (secret: Uint8Array) => T) => shards.withOperatorKey(f),
      );
      witnessing = await openWitnessing(config, log, metrics);
    } catch (e) {
      await shards.close();
      throw e;
    }
    const workers = verifyWorkerCount(config);
    try {
      pool = workers > 0 ? await VerifierPool.start(config, workers, { onReplaced }) : undefined;
    } catch (e) {
      await witnessing.close();
      await shards.close();
      throw e;
    }
  } catch (e) {
    resolveApp(() => new Response(null, { status: 503, headers: { "retry-after": "5" } }));
    await server.shutdown();
    cpuClock?.close();
    dirLock?.release();
    throw e;
  }
  // SPARQL and validation off the event loop, under time limits (issue 15).
  const sparql = new EmbeddedSparqlProvider();
  const validator = config.validateWorkers > 0 ? new ValidatePool(config) : undefined;
  // Issue 23: logged in the shard taking appends when it changed, off the start (reading its chain
  // head may wait for the fold of a store older than chain heads, below); every answer that names
  // it, and so every append, waits for it.
  const active = shards.active().gate.log;
  const ledger = VerifierConfigLedger.open(active, prepared);
  ledger.catch((e) =>
    console.error(`Cannot log the verifier configuration: ${(e as Error).message}`)
  );
  const verifierConfig = new VerifierConfigs({
    shards: () => shards.listed(),
    defaults: defaultRules(prepared.rules.operator),
    seed: { log: active, ledger },
  });
  const services: AppServices = {
    ...witnessing.services,
    sparql,
    shards,
    shardLogs: () => shards.listed(), // read paths over every shard (api/services/shard_logs.ts)
    activeLog: shards.activeLog,
    verifierConfig,
  };
  const deps = {
    log,
    config,
    verifier,
    verify: pool?.verify,
    verifyForAppend: pool?.verifyForAppend,
    validate: validator?.validate,
    metrics,
    services,
  };
  // `/shards/<id>/…` to that shard's app (the log routes only), everything else to the root's:
  // the first stage of the root app's front door (api/http/front_door.ts).
  const app = createApp(deps).host([shardDispatchStage(serving.apps(deps))]);
  resolveApp((req, clientAddr) => app.fetch(req, { clientAddr }));
  // A store written before agents' chain heads were kept is folded once, in the background from
  // the start (chunked: other requests are served meanwhile; readings wait for it).
  log.agentHead?.("", entryLink).catch((e) =>
    console.error(`Cannot backfill agents' chain heads: ${(e as Error).message}`)
  );
  const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  // The RDF sync into an external store (config `rdf_sync`, docs/RDF.md), off the append path:
  // it reads this service's tiles over HTTP (a wildcard address is read on loopback).
  let rdfSync: RdfSyncJob | undefined;
  if (config.rdfSync) {
    const self = ["0.0.0.0", "::"].includes(addr.hostname) ? "127.0.0.1" : host;
    rdfSync = new RdfSyncJob({
      setting: config.rdfSync,
      selfUrl: `http://${self}:${addr.port}`,
      metrics,
    });
    services.rdfSync = rdfSync;
    rdfSync.start();
  }
  let stopping: Promise<void> | undefined;
  return {
    url: `http://${host}:${addr.port}`,
    signer: log.signer(),
    shutdown: () =>
      stopping ??= (async () => {
        await rdfSync?.stop(); // ends a round between two batches (it reads over HTTP)
        await server.shutdown(); // stops accepting; waits for the requests in flight
        await ledger.catch(() => {}); // the configuration's append, if still under way
        await witnessing.close(); // stops the collector, closes the witness state
        await shards.close(); // drains every shard's sequencer, then closes its store
        pool?.close(); // nothing is in flight once the server has drained
        sparql.close();
        validator?.close();
        cpuClock?.close();
        dirLock?.release(); // after every store is closed
      })(),
  };
}

if (import.meta.main) {
  // --help or a usage error exits here, before anything is created.
  const args = parseOrExit(Deno.args, START_COMMAND);
  if ("exit" in args) Deno.exit(args.exit);
  const launchers = launcherChain(); // read before the start: one may die during it
  let svc: RunningService;
  try {
    svc = await startService(Deno.env.toObject(), Deno.args);
  } catch (e) {
    console.error((e as Error).message);
    Deno.exit(1);
  }
  // One JSON line on stdout: scripts and tests read the address from it (PORT=0 picks a port).
  console.log(JSON.stringify({ listening: svc.url, signer: svc.signer, pid: Deno.pid }));
  const stop = async (why: string) => {
    console.error(`${why}: draining and shutting down`);
    await svc.shutdown();
    console.error("Shut down cleanly");
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => stop("Received SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("Received SIGTERM"));
  // A SIGTERM to `npx` never reaches this process (api/deno/launcher_watch.ts): stop with the launcher.
  watchLaunchers(
    (l) => stop(`Launcher ${l.argv.join(" ")} (pid ${l.pid}) is gone`),
    500,
    launchers,
  );
}

/**
 * This thread's CPU time in ms from /proc/thread-self/schedstat (Linux: its first field, ns on
 * CPU), for the sequencer's per-phase CPU figures on /metrics; undefined where it cannot be read.
 * `close` releases the descriptor (the service's shutdown).
 */
function threadCpuClock(): { read: () => number; close: () => void } | undefined {
  // One descriptor, opened on this (the main) thread and re-read from offset 0: several reads per
  // batch, so an open/read/close each cost the append path about 3 µs of CPU (docs/PERFORMANCE.md).
  let file: Deno.FsFile;
  try {
    file = Deno.openSync("/proc/thread-self/schedstat");
  } catch {
    return undefined;
  }
  const buf = new Uint8Array(64);
  let open = true;
  const read = () => {
    if (!open) return NaN; // after shutdown
    file.seekSync(0, Deno.SeekMode.Start);
    const n = file.readSync(buf) ?? 0;
    let ns = 0;
    for (let i = 0; i < n && buf[i] >= 0x30 && buf[i] <= 0x39; i++) ns = ns * 10 + buf[i] - 0x30;
    return n > 0 ? ns / 1e6 : NaN;
  };
  const close = () => {
    if (open) file.close();
    open = false;
  };
  try {
    if (Number.isFinite(read())) return { read, close };
  } catch { /* unreadable: no per-phase figures */ }
  close();
  return undefined;
}
