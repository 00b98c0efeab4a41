// Runs a command as a real subprocess and measures it: exit code, stdout, stderr, wall time, and
// peak RSS (VmHWM in /proc/<pid>/status, polled every 20 ms until the process exits). A watchdog
// kills it past `watchdogMs`, so a client that hangs fails the test instead of hanging it.

/** What a measured run saw. */
export interface Measured {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
  /** Peak resident set size, KiB (the highest VmHWM read). */
  peakKiB: number;
  killed: boolean;
}

function vmHwmKiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0; // gone
  }
}

/** Output so far of a running child. */
export interface Live {
  stdout: string;
  stderr: string;
}

/**
 * Runs `cmd args` with `env`; `onStarted` may act on the running child (signals), watching its
 * output so far in `live`.
 */
export async function measure(
  cmd: string,
  args: string[],
  opts: { env?: Record<string, string>; watchdogMs?: number; cwd?: string } = {},
  onStarted?: (child: Deno.ChildProcess, live: Live) => Promise<void> | void,
): Promise<Measured> {
  const t0 = performance.now();
  const child = new Deno.Command(cmd, {
    args,
    env: { NO_COLOR: "1", ...opts.env },
    cwd: opts.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let peakKiB = 0;
  let killed = false;
  let done = false;
  const poller = (async () => {
    while (!done) {
      peakKiB = Math.max(peakKiB, vmHwmKiB(child.pid));
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const watchdog = setTimeout(() => {
    killed = true;
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
  }, opts.watchdogMs ?? 30_000);
  const live: Live = { stdout: "", stderr: "" };
  const drain = async (s: ReadableStream<Uint8Array>, k: keyof Live) => {
    const dec = new TextDecoder();
    for await (const c of s) live[k] += dec.decode(c, { stream: true });
  };
  const drained = Promise.all([drain(child.stdout, "stdout"), drain(child.stderr, "stderr")]);
  const started = onStarted?.(child, live);
  const status = await child.status;
  done = true;
  clearTimeout(watchdog);
  await Promise.all([poller, drained, started]);
  return {
    code: status.code,
    stdout: live.stdout,
    stderr: live.stderr,
    ms: performance.now() - t0,
    peakKiB,
    killed,
  };
}

/** Runs `tasks` at most `n` at a time. */
export async function pool<T>(n: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < tasks.length) {
        const i = next++;
        out[i] = await tasks[i]();
      }
    }),
  );
  return out;
}
