// Starts and stops a bundled Worker in real local workerd (Miniflare under Node, edge/serve.mjs)
// from Deno: used by `deno task edge`, the edge tests and the edge benchmark. One runtime is one
// Node process owning one workerd; it listens on 127.0.0.1 only (docs/EDGE.md).
import { ensureEdgeTooling, repoPath } from "./tooling.ts";

/** How to start a local Worker runtime. */
export interface EdgeOptions {
  /** Bundled ES module Worker, relative to the repository root (from `bundleWorker`). */
  script: string;
  /** wrangler config to read bindings, Durable Objects and compatibility settings from. */
  config?: string;
  /** Miniflare `durableObjects` option, for Workers without a config (test Workers). */
  durableObjects?: Record<string, { className: string; useSQLite?: boolean }>;
  /** Listen port; 0 (the default) picks a free one. */
  port?: number;
  /** Durable local state (wrangler's `--persist-to` layout); omitted: in-memory, lost on stop. */
  persistTo?: string;
  /** Extra text bindings: secrets (JC_LOG_KEY) and overrides of the config's vars. */
  bindings?: Record<string, string>;
  /** Pass the Worker's console output through to this process's stderr (default: keep a tail). */
  verbose?: boolean;
  /** Longest wait for workerd to answer, ms (default 60 s). */
  startTimeoutMs?: number;
  /** `readWorkerOptions(config)`'s answer: `config` is then not read again (saves loading wrangler). */
  workerOptions?: WorkerOptions;
}

/** Miniflare's options for a wrangler config, as wrangler's reader maps them (plain JSON). */
export type WorkerOptions = Record<string, unknown>;

/** A running local Worker. */
export interface EdgeRuntime {
  /** Base URL, `http://127.0.0.1:<port>/`. */
  url: URL;
  /** The last lines the runtime wrote to stderr (for failure messages). */
  logTail(): string;
  /** Disposes workerd and waits for the Node process to exit. Idempotent. */
  stop(): Promise<void>;
}

const TAIL_MAX = 16_384;

/**
 * A port free now on 127.0.0.1, for a runtime whose public URL (JC_PUBLIC_URL, required at the
 * edge) must name its port before it starts: workerd binds it right after.
 */
export function freeLocalPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/**
 * Reads a wrangler config once into Miniflare's options (edge/serve.mjs `printWorkerOptions`), for
 * callers that start workerd over the same config many times (fixtures/worker.ts).
 */
export async function readWorkerOptions(
  config: string,
): Promise<WorkerOptions> {
  await ensureEdgeTooling();
  const out = await new Deno.Command("node", {
    args: [
      repoPath("edge/serve.mjs"),
      JSON.stringify({
        script: "",
        config: repoPath(config),
        printWorkerOptions: true,
      }),
    ],
    cwd: repoPath("."),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  if (!out.success) {
    throw new Error(
      `Cannot read ${config}: ${dec.decode(out.stderr).slice(-4000)}`,
    );
  }
  return JSON.parse(dec.decode(out.stdout));
}

/**
 * Starts `opts.script` under local workerd and resolves once it answers HTTP. Installs the pinned
 * tooling first when missing. Throws "Cannot start the local Worker runtime: ..." with the
 * runtime's own output when it does not come up.
 *
 * ```ts
 * const rt = await startEdge({ script: "edge/dist/worker.js", config: "wrangler.toml" });
 * try { await fetch(new URL("/healthz", rt.url)); } finally { await rt.stop(); }
 * ```
 */
export async function startEdge(opts: EdgeOptions): Promise<EdgeRuntime> {
  await ensureEdgeTooling();
  const serveOpts = {
    script: repoPath(opts.script),
    config: opts.config ? repoPath(opts.config) : undefined,
    workerOptions: opts.workerOptions,
    durableObjects: opts.durableObjects,
    host: "127.0.0.1",
    port: opts.port ?? 0,
    persistTo: opts.persistTo,
    bindings: opts.bindings ?? {},
  };
  const child = new Deno.Command("node", {
    args: [repoPath("edge/serve.mjs"), JSON.stringify(serveOpts)],
    cwd: repoPath("."),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdin = child.stdin.getWriter();
  let tail = "";
  const keep = (s: string) => {
    if (opts.verbose) Deno.stderr.writeSync(new TextEncoder().encode(s));
    tail = (tail + s).slice(-TAIL_MAX);
  };
  const drain = async (
    stream: ReadableStream<Uint8Array<ArrayBuffer>>,
    onLine?: (l: string) => void,
  ) => {
    let buf = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      if (!onLine) {
        keep(chunk);
        continue;
      }
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        onLine(line);
      }
    }
  };
  let ready!: (u: URL) => void;
  const readyP = new Promise<URL>((r) => ready = r);
  const errDone = drain(child.stderr);
  const outDone = drain(child.stdout, (line) => {
    if (line.startsWith("READY ")) ready(new URL(line.slice(6).trim()));
    else keep(line + "\n");
  });

  let stopped: Promise<void> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      await stdin.close().catch(() => {}); // serve.mjs disposes workerd when stdin closes
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* already gone */ }
      }, 15_000);
      await child.status;
      clearTimeout(timer);
      await Promise.all([errDone, outDone]).catch(() => {});
    })();

  const timeoutMs = opts.startTimeoutMs ?? 60_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    readyP,
    child.status.then((s) => new Error(`runtime exited with code ${s.code} before it was ready`)),
    new Promise<Error>((r) =>
      timer = setTimeout(
        () => r(new Error(`no answer in ${timeoutMs} ms`)),
        timeoutMs,
      )
    ),
  ]);
  clearTimeout(timer);
  if (outcome instanceof Error) {
    await stop();
    throw new Error(
      `Cannot start the local Worker runtime: ${outcome.message}\n${tail.slice(-4000)}`,
    );
  }
  return { url: outcome, logTail: () => tail, stop };
}
