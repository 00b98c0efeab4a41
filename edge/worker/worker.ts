// The Cloudflare Worker entry (docs/CONTRACTS.md "api/", docs/EDGE.md): the same Hono app and route
// table as the embedded default (api/deno/main.ts), with the log held by the sequencer Durable Object
// (edge/worker/durable_object.ts, SQLite storage) and configuration from Worker vars through the same
// reader (api/services/config.ts). The log key is the JC_LOG_KEY Worker secret. Immutable answers are kept
// in the edge cache; the latest head is short-cached. Built by `deno task edge:build` into one
// module (edge/dist/worker.js) that wrangler.toml names.
import {
  createApp,
  type FrontStage,
  Metrics,
  problemResponse,
  type ServiceApp,
  verifierOptions,
} from "../../api/mod.ts";
import {
  type EdgeCache,
  edgeConfig,
  EdgeConfigError,
  edgeErrorAnswer,
  type EdgeSettings,
  edgeSettings,
  logKeyFromEnv,
} from "./mod.ts";
import { edgeCacheStage, edgeShardDispatchStage, shardDirectoryStage } from "./stages.ts";
import {
  type BatcherStub,
  LOG_OBJECT_NAME,
  type Namespace,
  sequencerOf,
  type SequencerStub,
} from "./object_state.ts";
import { ADMIN_TOKEN_SECRET, operatorKeyFromEnv, ShardFront } from "./shard_front.ts";
import { edgeVerifierConfigs, r2ConfigHead } from "./verifier_config.ts";
import { prefixedBucket, shardKeyPrefix } from "../../log/r2/mod.ts";
import { allRoutes, SHARD_ROUTE_GROUPS } from "../../api/mod.ts";
import { R2Log } from "./r2_log.ts";
import type { Log } from "../../log/mod.ts";
import type { R2BucketLike } from "../../log/r2/mod.ts";
import { bytesEqual, ed25519PublicKey, fromHex } from "../../verify/mod.ts";
import { AsyncActiveShardLog } from "../../api/mod.ts";
import { createWitness } from "../../log/c2sp/mod.ts";
import {
  rpcCollector,
  rpcWitnessState,
  witnessKeyFromEnv,
  type WitnessRpc,
} from "./witness_rpc.ts";
import { defaultWitnessName } from "../../api/mod.ts";
import { defaultLogName } from "../../log/mod.ts";
import { shardId, shardPrefix } from "../../log/shards/mod.ts";
import type { ShardLogs } from "../../api/mod.ts";
import { badHost, validHost } from "../../api/mod.ts";
import { secured } from "../../api/mod.ts";
import type { ExecutionContext } from "hono";

export { LogBatcher, LogSequencer, LogShardSequencer } from "./durable_object.ts";

/** The Worker's bindings (wrangler.toml): the objects, the bucket, the log key, the vars. */
interface WorkerEnv {
  /** The sequencer's stub answers its own RPC surface and the witness state's. */
  LOG_SEQUENCER: Namespace<SequencerStub & WitnessRpc>;
  LOG_BATCHER?: Namespace<BatcherStub>;
  LOG_BUCKET: R2BucketLike;
  JC_LOG_KEY?: string;
  [name: string]: unknown;
}

/** What one isolate builds from its bindings (once; kept while the isolate lives). */
export interface Built {
  app: ServiceApp;
  settings: EdgeSettings;
  log: R2Log;
  sequencer: () => SequencerStub & WitnessRpc;
  batcher: (k: number) => BatcherStub;
  shards: ShardFront;
  /** Shard n's sequencer (s0's is `sequencer()`). */
  shardSequencer: (n: number) => SequencerStub;
}

// One app per isolate: the bindings of a deployment do not change while an isolate lives, and
// the per-isolate immutable-read cache lives in the R2Log it holds.
let built: Built | undefined;

function build(env: WorkerEnv, before: WorkerStage | undefined): Built {
  if (built) return built;
  const settings = edgeSettings(env);
  const secret = logKeyFromEnv(env);
  const config = edgeConfig(env);
  // issue 27: a Worker has no listen address, and the Host never decides a published IRI
  if (!config.publicUrl) {
    throw new EdgeConfigError(
      "Cannot serve: JC_PUBLIC_URL is not set (the base of every published IRI, e.g. " +
        "https://log.example.org; wrangler.toml [vars] or `wrangler deploy --var`)",
    );
  }
  const ns = env.LOG_SEQUENCER;
  if (!ns || typeof ns.idFromName !== "function") {
    throw new EdgeConfigError(
      "Cannot open the log: the LOG_SEQUENCER Durable Object binding is missing (wrangler.toml)",
    );
  }
  const bucket = env.LOG_BUCKET;
  if (!bucket || typeof bucket.get !== "function") {
    throw new EdgeConfigError(
      "Cannot open the log: the LOG_BUCKET R2 binding is missing (wrangler.toml [[r2_buckets]])",
    );
  }
  const batchers = env.LOG_BATCHER;
  if (
    settings.batchers > 0 &&
    (!batchers || typeof batchers.idFromName !== "function")
  ) {
    throw new EdgeConfigError(
      "Cannot open the log: JC_EDGE_BATCHERS > 0 needs the LOG_BATCHER binding (wrangler.toml)",
    );
  }
  const id = ns.idFromName(LOG_OBJECT_NAME);
  const sequencer = () => ns.get(id);
  const shardSequencer = (n: number) => n === 0 ? sequencer() : sequencerOf<SequencerStub>(env, n);
  const batcher = (k: number) => batchers!.get(batchers!.idFromName(`batcher-${k}`));
  const pub = ed25519PublicKey(secret);
  const logName = config.logName ?? defaultLogName(pub);
  const metrics = new Metrics();
  let shards: ShardFront | undefined = undefined;
  // Appends of shard n: front Worker → one of B batchers (at random) → shard n's sequencer; or
  // straight to it. A shard the directory lists frozen answers 409 without either.
  const shardLog = (n: number, publicKey: Uint8Array, name: string) =>
    new R2Log({
      bucket: prefixedBucket(bucket, shardKeyPrefix(n)),
      append: settings.batchers > 0
        ? (e, link) =>
          batcher(Math.floor(Math.random() * settings.batchers)).append(
            e,
            link,
            n || undefined,
          )
        : (e, link) => shardSequencer(n).append(e, link),
      // issue 29: a bulk append is its own batch, straight to the shard's sequencer
      appendMany: (entries) => shardSequencer(n).appendMany(entries),
      bootstrap: () => shardSequencer(n).latestHead(),
      // A chain head moves with every reading: asked of the sequencer, never read from R2.
      agentHead: (did) => shardSequencer(n).agentHead(did),
      // Streams (issue 24): the sequencer's SQLite keeps their state.
      streamQuery: (q) => shardSequencer(n).streamQuery(q),
      publicKey,
      logName: name,
      cacheBytes: settings.cacheBytes,
      latestMs: settings.headMaxAgeS * 1000,
      frozen: (fresh) => shards!.frozenError(n, fresh),
      health: () => shardSequencer(n).check(),
    });
  const log = shardLog(0, pub, logName);
  // each shard's log → its bucket (issue 23: its configuration chain's head is read there)
  const bucketOfLog = new Map<Log, R2BucketLike>([[
    log,
    prefixedBucket(bucket, shardKeyPrefix(0)),
  ]]);
  // One R2Log per shard (its caches shared by the shard's app and the service-level routes).
  const shardLogs = new Map<number, R2Log>([[0, log]]);
  const logOfShard = (n: number, publicKey: Uint8Array, name: string) => {
    let l = shardLogs.get(n);
    if (!l) {
      shardLogs.set(n, l = shardLog(n, publicKey, name));
      bucketOfLog.set(l, prefixedBucket(bucket, shardKeyPrefix(n)));
    }
    return l;
  };
  // docs/SHARDS.md: /v1/readings and agents' chain heads follow the active shard (the directory
  // state in R2, re-read after a 409 shard-frozen), heads falling back to older shards.
  const logsOf = async (fresh = false) =>
    (await shards!.state(fresh)).shards.map((r, n) =>
      logOfShard(n, fromHex(r.public_key), r.log_name)
    );
  // read paths over every listed shard (api/services/shard_logs.ts): the policy, healthz, metrics
  const listed: ShardLogs = async () =>
    (await logsOf()).map((log, n) => ({
      id: shardId(n),
      prefix: shardPrefix(n),
      log,
    }));
  const activeLog = new AsyncActiveShardLog({
    active: async (fresh) => (await logsOf(fresh)).at(-1)!,
    all: () => logsOf(),
  });
  const operatorSecret = operatorKeyFromEnv(env);
  // issue 23: the configuration in force, as the shards' sequencers logged it
  const headOf = r2ConfigHead((l) => bucketOfLog.get(l));
  const verifierConfig = edgeVerifierConfigs(env, listed, headOf);
  const shardApps = new Map<number, ServiceApp>();
  // The edge cache (http_cache.ts), a front stage of the root app and of every shard app.
  const cache = (prefix?: string) =>
    edgeCacheStage({
      cache: () => settings.httpCache ? defaultCache() : undefined,
      headMaxAgeS: settings.headMaxAgeS,
      prefix,
    });
  shards = new ShardFront({
    bucket,
    logName,
    logPublicKey: pub,
    operatorSecret,
    adminToken: typeof env[ADMIN_TOKEN_SECRET] === "string"
      ? env[ADMIN_TOKEN_SECRET] as string
      : undefined,
    rotate: (n) => shardSequencer(n).rotate(),
    shardApp: (n, publicKey, name) => {
      let a = shardApps.get(n);
      if (!a) {
        a = createApp({
          log: logOfShard(n, publicKey, name),
          config,
          verifier: verifierOptions(config),
          metrics,
          services: {
            operatorVkey: shards!.operatorVkey(),
            shardLogs: listed,
            verifierConfig,
            // its published URLs (policy, entry IRIs) are below its prefix (docs/SHARDS.md)
            shardPrefix: shardPrefix(n),
            // docs/WITNESS.md: the shard's own collector runs in its own sequencer object; its
            // SHA-256 checkpoint is served with the cosignatures collected (a frozen one's final).
            ...(config.witnesses.length
              ? {
                collector: rpcCollector(() => sequencerOf<WitnessRpc>(env, n)),
              }
              : {}),
          },
        }, allRoutes(SHARD_ROUTE_GROUPS)).host([cache(shardPrefix(n))]);
        shardApps.set(n, a);
      }
      return a.fetch;
    },
  });
  const app = createApp({
    log,
    config,
    verifier: verifierOptions(config),
    metrics,
    // SPARQL is refused at the edge (501 sparql-unavailable, docs/EDGE.md): its in-memory store
    // holds the whole log's RDF, which neither fits a Worker's 128 MB nor can be kept per isolate.
    services: {
      sparql: null,
      witness: edgeWitness(env, config, log, () => ns.get(id)),
      ...(config.witnesses.length ? { collector: rpcCollector(() => ns.get(id)) } : {}),
      operatorVkey: shards.operatorVkey(),
      activeLog,
      shardLogs: listed,
      verifierConfig,
    },
  });
  built = { app, settings, log, sequencer, batcher, shards, shardSequencer };
  // The Worker's front door (edge/worker/stages.ts), as the Deno host's (api/deno/main.ts): its
  // stages ahead of the app's own fast lane and router; a test entry's hooks first.
  const hooks: FrontStage[] = before ? [hookStage(before, built, env)] : [];
  app.host([
    ...hooks,
    shardDirectoryStage(shards),
    edgeShardDispatchStage(shards),
    cache(),
  ]);
  return built;
}

/** The witness role on the Worker (docs/WITNESS.md), when JC_WITNESS_LOGS configures it. */
function edgeWitness(
  env: WorkerEnv,
  config: ReturnType<typeof edgeConfig>,
  log: R2Log,
  rpc: () => WitnessRpc,
) {
  if (!config.witness) return undefined;
  const secret = witnessKeyFromEnv(env);
  if (bytesEqual(ed25519PublicKey(secret), log.publicKey())) {
    throw new EdgeConfigError(
      "Cannot start the witness: JC_WITNESS_KEY is the log key",
    );
  }
  return createWitness({
    name: config.witness.name || defaultWitnessName(log.logName()),
    secret,
    logs: config.witness.logs,
    state: rpcWitnessState(rpc),
  });
}

function clientAddrOf(req: Request): string {
  return req.headers.get("cf-connecting-ip") ?? "unknown";
}

/** Cloudflare's Cache API where the runtime has one (workerd does; other hosts may not). */
function defaultCache() {
  const c = (globalThis as { caches?: { default?: unknown } }).caches?.default;
  return c as EdgeCache | undefined;
}

/**
 * A stage a Worker entry may put before the service's own (the test-only entry's `/__edge/`
 * hooks, fixtures/worker_test_entry.ts); undefined: not its request.
 */
export type WorkerStage = (
  req: Request,
  b: Built,
  env: Record<string, unknown>,
) => Promise<Response | undefined>;

/** `before` as the first front stage of the root app (`env`: the isolate's bindings). */
function hookStage(before: WorkerStage, b: Built, env: WorkerEnv): FrontStage {
  return async (req, e, ctx, next) => await before(req, b, env) ?? await next(req, e, ctx);
}

/**
 * The Worker's fetch handler, with `before` ahead of the service's stages. The production entry
 * (the default export) has none: test hooks and fault injection ship only in the test entry.
 */
export function workerEntry(before?: WorkerStage) {
  return {
    async fetch(
      req: Request,
      env: WorkerEnv,
      ctx: ExecutionContext,
    ): Promise<Response> {
      // Every answer carries the security headers, the ones made outside the app too (issue 27).
      return secured(await answer(req, env, ctx, before));
    },
  };
}

export default workerEntry();

async function answer(
  req: Request,
  env: WorkerEnv,
  ctx: ExecutionContext,
  before: WorkerStage | undefined,
): Promise<Response> {
  // A malformed Host is refused before anything reads the URL it makes (issue 27).
  const host = req.headers.get("host");
  if (host !== null && !validHost(host)) return problemResponse(badHost());
  let b: Built;
  try {
    b = build(env, before);
  } catch (err) {
    return edgeErrorAnswer(err, req); // a configuration fault: 500 edge-config, naming it
  }
  return await b.app.fetch(req, { clientAddr: clientAddrOf(req) }, ctx);
}
