// Starts the real service as `deno task start` in a subprocess on a free port on 127.0.0.1,
// reads its one-line JSON announcement ({listening, signer, pid}), and stops it with a signal
// sent to the server process itself (SIGTERM: graceful drain; SIGKILL: a crash).
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A running service subprocess. */
export interface Service {
  url: string;
  signer: string;
  pid: number;
  /** Sends `signal` to the server and waits for the task to exit. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
  /** What the service wrote to stderr so far. */
  stderr(): string;
  /** What the service wrote to stdout so far (its first line included). */
  stdout(): string;
}

/**
 * Starts `deno task start` with `env` (rate limits off, PORT=0, HOST=127.0.0.1 by default);
 * `prefix` runs it under a wrapper (`["prlimit", "--nofile=256:256", "--"]`).
 */
export async function startService(
  env: Record<string, string>,
  prefix: string[] = [],
): Promise<Service> {
  const argv = [...prefix, Deno.execPath(), "task", "-q", "start"];
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: ROOT,
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      JC_RATE_READ: "0",
      JC_RATE_WRITE: "0",
      NO_COLOR: "1",
      ...env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let err = "";
  const errDone = (async () => {
    const dec = new TextDecoder();
    for await (const c of child.stderr) err += dec.decode(c, { stream: true });
  })();
  const reader = child.stdout.getReader();
  let buf = "";
  const dec = new TextDecoder();
  const deadline = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
  }, 60_000);
  while (!buf.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) {
      clearTimeout(deadline);
      await errDone;
      throw new Error(`Cannot start the service: it exited before listening:\n${err}`);
    }
    buf += dec.decode(value, { stream: true });
  }
  clearTimeout(deadline);
  const hello = JSON.parse(buf.slice(0, buf.indexOf("\n")));
  // keep draining stdout so the pipe never blocks the server
  let out = buf;
  const outDone = (async () => {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      out += dec.decode(r.value, { stream: true });
    }
  })();
  return {
    url: hello.listening,
    signer: hello.signer,
    pid: hello.pid,
    stderr: () => err,
    stdout: () => out,
    async stop(signal: Deno.Signal = "SIGTERM") {
      try {
        Deno.kill(hello.pid, signal);
      } catch { /* already gone */ }
      const status = await child.status;
      await Promise.all([outDone, errDone]);
      return status;
    },
  };
}

/**
 * Runs the client CLI (`deno task client ...`); returns its exit code and output. Each run has its
 * own empty state directory (XDG_STATE_HOME): the operator keys the client remembers per service
 * URL (docs/CLIENTS.md "Shards") never leak between tests, whose ports are reused.
 */
export async function runClient(args: string[]) {
  const state = await Deno.makeTempDir({ prefix: "jc-client-state-" });
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "client", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", XDG_STATE_HOME: state },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output().finally(() => Deno.remove(state, { recursive: true }).catch(() => {}));
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/**
 * The size the monitor CLI reports: `size` when it read the /v1 API, the BLAKE3 view's when it
 * checked the published tiles (`sizes: {blake3, sha256}`; while appends run, the two
 * checkpoints it fetched one after the other may be at different sizes).
 */
export function monitoredSize(stdout: string): number {
  const o = JSON.parse(stdout);
  const size = o.size ?? o.sizes?.blake3;
  if (typeof size !== "number") throw new Error(`Cannot read the monitor's size: ${stdout}`);
  return size;
}
