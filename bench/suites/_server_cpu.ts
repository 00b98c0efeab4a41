// The server's CPU over a measured window, for the HTTP suites (bench/suites/http.ts and its bulk
// mode): the whole process and its main thread from /proc/<pid>/stat, its threads grouped by name
// from /proc/<pid>/task, and the sequencer's phases from its own /metrics counter.
import process from "node:process";

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export function cpuSeconds(pid: number, tid?: number): number {
  const stat = Deno.readTextFileSync(tid ? `/proc/${pid}/task/${tid}/stat` : `/proc/${pid}/stat`);
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** CPU seconds so far of a process's threads, grouped by thread name (/proc/<pid>/task/*). */
function threadCpu(pid: number): Record<string, number> {
  const out: Record<string, number> = { main: 0, verify_workers: 0, v8_gc_and_compile: 0, io: 0 };
  for (const t of Deno.readDirSync(`/proc/${pid}/task`)) {
    const tid = Number(t.name);
    let comm: string, cpu: number;
    try {
      comm = Deno.readTextFileSync(`/proc/${pid}/task/${tid}/comm`).trim();
      cpu = cpuSeconds(pid, tid);
    } catch {
      continue; // the thread ended
    }
    const group = tid === pid
      ? "main"
      : comm.startsWith("worker-")
      ? "verify_workers"
      : comm.startsWith("V8")
      ? "v8_gc_and_compile"
      : "io"; // tokio: sockets, file I/O, the WAL fdatasync
    out[group] += cpu;
  }
  return out;
}

/** The server's sequencer CPU seconds by phase (jc_sequencer_cpu_seconds_total on /metrics). */
async function sequencerCpu(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (
    const m of text.matchAll(/^jc_sequencer_cpu_seconds_total\{phase="(\w+)"\} ([\d.e+-]+)$/gm)
  ) {
    out[m[1]] = Number(m[2]);
  }
  return out;
}

/**
 * Server CPU µs per append over a window, split: HTTP (the event loop's thread outside the
 * sequencer: parsing, routing, body, JSON), verify (the verifier workers' threads), sequence,
 * commit (the store's commit call on the event loop) and response (proofs and answers), plus the
 * threads that are neither: V8's GC/compiler threads and tokio's I/O threads (sockets, fdatasync).
 */
export async function appendSplit(url: string, pid: number) {
  const t0 = threadCpu(pid), s0 = await sequencerCpu(url);
  return async (appends: number) => {
    const t1 = threadCpu(pid), s1 = await sequencerCpu(url);
    const us = (s: number) => Math.round((s * 1e6) / appends * 10) / 10;
    const seq = (k: string) => (s1[k] ?? 0) - (s0[k] ?? 0);
    const main = t1.main - t0.main;
    return {
      http: us(main - seq("sequence") - seq("commit") - seq("answer")),
      verify: us(t1.verify_workers - t0.verify_workers),
      sequence: us(seq("sequence")),
      commit: us(seq("commit")),
      response: us(seq("answer")),
      v8_gc_and_compile_threads: us(t1.v8_gc_and_compile - t0.v8_gc_and_compile),
      io_threads_sockets_and_fdatasync: us(t1.io - t0.io),
      note: "µs of server CPU per verified durable append, by thread and sequencer phase; " +
        "main-thread phases from /proc/thread-self/schedstat, threads from /proc/<pid>/task",
    };
  };
}

export const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/**
 * CPU seconds used by the server (all its threads, and its main thread: the event loop, whose
 * saturation bounds the rate) and by this client over a measured window.
 */
export function cpuMeter(pid: number) {
  const s0 = cpuSeconds(pid), m0 = cpuSeconds(pid, pid), c0 = selfCpu();
  return () => ({
    server_cpu_s: Math.round((cpuSeconds(pid) - s0) * 100) / 100,
    server_main_thread_cpu_s: Math.round((cpuSeconds(pid, pid) - m0) * 100) / 100,
    client_cpu_s: Math.round((selfCpu() - c0) * 100) / 100,
  });
}
