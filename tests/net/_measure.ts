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

/** Runs `cmd args` with `env`; `onStarted` may act on the running child (signals). */
export async function measure(
  cmd: string,
  args: string[],
  opts: { env?: Record<string, string>; watchdogMs?: number; cwd?: string } = {},
  onStarted?: (child: Deno.ChildProcess) => Promise<void> | void,
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
  const started = onStarted?.(child);
  const out = await child.output();
  done = true;
  clearTimeout(watchdog);
  await poller;
  await started;
  const dec = new TextDecoder();
  return {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
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
