// The Cloudflare Worker entry (docs/CONTRACTS.md "api/", docs/EDGE.md): the same Hono app and route
// table as the embedded default (api/main.ts), with the log held by the sequencer Durable Object
// (api/edge/durable_object.ts, SQLite storage) and configuration from Worker vars through the same
// reader (api/config.ts). The log key is the JC_LOG_KEY Worker secret. Immutable answers are kept
// in the edge cache; the latest head is short-cached. Built by `deno task edge:build` into one
// module (edge/dist/worker.js) that wrangler.toml names.
import { ConfigError, createApp, Metrics, problem, verifierOptions } from "./mod.ts";
import type { AppEnv } from "./mod.ts";
import {
  type EdgeCache,
  edgeConfig,
  EdgeConfigError,
  EdgeLog,
  type EdgeSettings,
  edgeSettings,
  logKeyFromEnv,
  type SequencerRpc,
  serveCached,
} from "./edge/mod.ts";
import { LOG_OBJECT_NAME } from "./edge/durable_object.ts";
import { bytesEqual, ed25519PublicKey } from "../verify/mod.ts";
import { createWitness } from "../log/c2sp/witness_role.ts";
import {
  rpcCollector,
  rpcWitnessState,
  witnessKeyFromEnv,
  type WitnessRpc,
} from "./edge/witness_rpc.ts";
import { defaultWitnessName } from "./witness_name.ts";
import { defaultLogName } from "../log/mod.ts";
import type { Hono } from "hono";

export { LogSequencer } from "./edge/durable_object.ts";

/** The Durable Object namespace binding (the slice used here). */
interface SequencerNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): SequencerRpc & WitnessRpc;
}

/** The Worker's bindings (wrangler.toml): the sequencer namespace, the log key, the vars. */
interface WorkerEnv {
  LOG_SEQUENCER: SequencerNamespace;
  JC_LOG_KEY?: string;
  [name: string]: unknown;
}

interface ExecutionContext {
  waitUntil(p: Promise<unknown>): void;
}

interface Built {
  app: Hono<AppEnv>;
  settings: EdgeSettings;
}

// One app per isolate: the bindings of a deployment do not change while an isolate lives, and
// the per-isolate immutable-read cache lives in the EdgeLog it holds.
let built: Built | undefined;

function build(env: WorkerEnv): Built {
  if (built) return built;
  const settings = edgeSettings(env);
  const secret = logKeyFromEnv(env);
  const config = edgeConfig(env);
  const ns = env.LOG_SEQUENCER;
  if (!ns || typeof ns.idFromName !== "function") {
    throw new EdgeConfigError(
      "Cannot open the log: the LOG_SEQUENCER Durable Object binding is missing (wrangler.toml)",
    );
  }
  const id = ns.idFromName(LOG_OBJECT_NAME);
  const pub = ed25519PublicKey(secret);
  const log = new EdgeLog(
    () => ns.get(id),
    pub,
    settings.cacheBytes,
    config.logName ?? defaultLogName(pub),
  );
  const app = createApp({
    log,
    config,
    verifier: verifierOptions(config),
    metrics: new Metrics(),
    // SPARQL is refused at the edge (501 sparql-unavailable, docs/EDGE.md): its in-memory store
    // holds the whole log's RDF, which neither fits a Worker's 128 MB nor can be kept per isolate.
    extra: {
      sparql: null,
      witness: edgeWitness(env, config, log, () => ns.get(id)),
      ...(config.witnesses.length ? { collector: rpcCollector(() => ns.get(id)) } : {}),
    },
  });
  built = { app, settings };
  return built;
}

/** The witness role on the Worker (docs/WITNESS.md), when JC_WITNESS_LOGS configures it. */
function edgeWitness(
  env: WorkerEnv,
  config: ReturnType<typeof edgeConfig>,
  log: EdgeLog,
  rpc: () => WitnessRpc,
) {
  if (!config.witness) return undefined;
  const secret = witnessKeyFromEnv(env);
  if (bytesEqual(ed25519PublicKey(secret), log.publicKey())) {
    throw new EdgeConfigError("Cannot start the witness: JC_WITNESS_KEY is the log key");
  }
  return createWitness({
    name: config.witness.name || defaultWitnessName(log.logName()),
    secret,
    logs: config.witness.logs,
    state: rpcWitnessState(rpc),
  });
}

/** Cloudflare's Cache API where the runtime has one (workerd does; other hosts may not). */
function defaultCache() {
  const c = (globalThis as { caches?: { default?: unknown } }).caches?.default;
  return c as EdgeCache | undefined;
}

export default {
  async fetch(req: Request, env: WorkerEnv, ctx: ExecutionContext): Promise<Response> {
    let b: Built;
    try {
      b = build(env);
    } catch (err) {
      if (err instanceof EdgeConfigError || err instanceof ConfigError) {
        console.error(err.message);
        return problem(500, "edge-config", err.message);
      }
      throw err;
    }
    const clientAddr = req.headers.get("cf-connecting-ip") ?? "unknown";
    return await serveCached(req, async () => await b.app.fetch(req, { clientAddr }), {
      cache: b.settings.httpCache ? defaultCache() : undefined,
      waitUntil: (p) => ctx.waitUntil(p),
      headMaxAgeS: b.settings.headMaxAgeS,
    });
  },
};
