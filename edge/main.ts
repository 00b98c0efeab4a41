// `deno task edge`: runs the Worker build of the service locally under real workerd (Miniflare),
// no Cloudflare account needed (docs/EDGE.md). `deno task edge:build` only bundles it for
// `wrangler deploy`.
//
// Environment: PORT (default 8787), EDGE_STATE (durable local state, default .wrangler/state,
// the folder `wrangler dev` uses too), JC_LOG_KEY (the log key; default: generated once and kept
// in <EDGE_STATE>/jc-log-key.hex), JC_OPERATOR_KEY (likewise, jc-operator-key.hex), and any JC_* variable of docs/CONFIG.md or docs/EDGE.md,
// which overrides the [vars] of wrangler.toml.
import { type CommandSpec, parseOrExit } from "../cli/mod.ts";
import { bundleWorker, repoPath } from "./tooling.ts";
import { freeLocalPort, startEdge } from "./runtime.ts";

/**
 * `deno task edge`'s command line: `--help` prints this and exits 0 before anything is built or
 * created; an unknown option is a usage error (exit 2). Issue 28: `--help` once started workerd.
 */
export const EDGE_COMMAND: CommandSpec = {
  name: "deno task edge",
  summary:
    "Bundles the Worker build of the service (edge/worker/worker.ts → edge/dist/worker.js) and " +
    "runs it under local workerd (Miniflare), no Cloudflare account needed. Prints one JSON line " +
    'when it listens ({"listening": URL, "state": DIR}).',
  options: [
    { name: "build-only", help: "bundle edge/dist/worker.js and exit (deno task edge:build)" },
  ],
  footer: `Environment:
  PORT             TCP port (default 8787)
  EDGE_STATE       durable local state (default .wrangler/state)
  JC_LOG_KEY       the log key, 64 hex (default: generated once into EDGE_STATE)
  JC_OPERATOR_KEY  the operator key, likewise
  JC_*             any setting of docs/CONFIG.md or docs/EDGE.md (overrides wrangler.toml)
Deploying, limits and every edge setting: docs/EDGE.md.
Exit status: 0 stopped (or built), 1 could not build or start, 2 usage.`,
};

/** Entry and output of the Worker build. */
export const WORKER_ENTRY = "edge/worker/worker.ts";
export const WORKER_BUNDLE = "edge/dist/worker.js";

/** Bundles edge/worker/worker.ts to edge/dist/worker.js (what wrangler.toml's `main` names). */
export async function buildWorker(): Promise<
  { path: string; bytes: number; ms: number }
> {
  await Deno.mkdir(repoPath("edge/dist"), { recursive: true });
  return await bundleWorker(WORKER_ENTRY, WORKER_BUNDLE);
}

/** The log key for a local run: JC_LOG_KEY, else the one kept in the state folder (created once). */
export function localLogKey(
  stateDir: string,
  env = Deno.env.toObject(),
): Promise<string> {
  return localSecret(stateDir, "JC_LOG_KEY", "jc-log-key.hex", env);
}

/**
 * The operator key for a local run (signs GET /v1/logs, docs/SHARDS.md): JC_OPERATOR_KEY, else
 * the one kept in the state folder (created once).
 */
export function localOperatorKey(
  stateDir: string,
  env = Deno.env.toObject(),
): Promise<string> {
  return localSecret(stateDir, "JC_OPERATOR_KEY", "jc-operator-key.hex", env);
}

async function localSecret(
  stateDir: string,
  name: string,
  fileName: string,
  env: Record<string, string>,
): Promise<string> {
  if (env[name]) return env[name];
  const file = `${stateDir}/${fileName}`;
  try {
    return (await Deno.readTextFile(file)).trim();
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const key = Array.from(
    crypto.getRandomValues(new Uint8Array(32)),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
  await Deno.mkdir(stateDir, { recursive: true });
  await Deno.writeTextFile(file, key + "\n", { mode: 0o600, createNew: true });
  return key;
}

/** JC_* variables of the environment: they override wrangler.toml's vars for a local run. */
export function varOverrides(
  env = Deno.env.toObject(),
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(([k]) =>
      k.startsWith("JC_") && k !== "JC_LOG_KEY" && k !== "JC_OPERATOR_KEY"
    ),
  );
}

if (import.meta.main) {
  const args = parseOrExit(Deno.args, EDGE_COMMAND);
  if ("exit" in args) Deno.exit(args.exit);
  try {
    const b = await buildWorker();
    console.error(
      `Built ${WORKER_BUNDLE} (${(b.bytes / 1024).toFixed(0)} KiB, ${b.ms.toFixed(0)} ms)`,
    );
    if (args.parsed.options["build-only"]) Deno.exit(0);
    const asked = Number(Deno.env.get("PORT") ?? "8787");
    if (!Number.isInteger(asked) || asked < 0 || asked > 65535) {
      throw new Error(`Cannot start the edge build: PORT must be an integer in [0, 65535]`);
    }
    // PORT=0: a port free now, chosen here so that the public URL below can name it
    const port = asked || freeLocalPort();
    const state = Deno.env.get("EDGE_STATE") ?? repoPath(".wrangler/state");
    const rt = await startEdge({
      script: WORKER_BUNDLE,
      config: "wrangler.toml",
      port,
      persistTo: state,
      bindings: {
        // the Worker publishes IRIs under JC_PUBLIC_URL only (docs/EDGE.md): locally, the port
        // it listens on, unless the environment names another
        JC_PUBLIC_URL: `http://127.0.0.1:${port}`,
        ...varOverrides(),
        JC_LOG_KEY: await localLogKey(state),
        JC_OPERATOR_KEY: await localOperatorKey(state),
      },
      verbose: true,
    });
    console.log(
      JSON.stringify({ listening: rt.url.href.replace(/\/$/, ""), state }),
    );
    const stop = async () => {
      await rt.stop();
      Deno.exit(0);
    };
    Deno.addSignalListener("SIGINT", stop);
    Deno.addSignalListener("SIGTERM", stop);
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    Deno.exit(1);
  }
}
