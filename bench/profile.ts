// `deno run -A bench/profile.ts verify|http|tiles [N] [CONCURRENCY]`: CPU profiles of the two
// paths of issue 16 and of serving tiles (issue 10), for bench/cpuprof.ts (docs/PERFORMANCE.md).
//   verify: verifyEnvelope over the positive conformance mix, N receipts (default 200,000),
//           CONCURRENCY in flight (default 32), profiled in this process (`--cpu-prof` is
//           passed to a child run of this script).
//   http:   the real service (api/deno/main.ts, SQLite) under `--cpu-prof`, N verified durable appends
//           (default 30,000) from this process over CONCURRENCY keep-alive connections (default
//           64); prints the server's CPU µs per append (all threads, main thread, from /proc).
//   bulk:   the same with N envelopes in bulks of 256 (issue 29) over CONCURRENCY connections
//           (default 8); its figures are per bulk (µs per envelope: divide by 256).
//   tiles:  the real service over a log of N entries (default 10^6, filled first through the log),
//           100,000 random full tiles of both views from this process over CONCURRENCY keep-alive
//           connections (default 64); prints the server's CPU µs per tile.
// Prints the profile files (main thread first) and the top entries of the main thread's.
import { appendRequest, Conn, fillTileLog, randomTileGets } from "./suites/http.ts";
import { presign } from "./suites/_pool.ts";
import { bulkRequest } from "./suites/_bulk_http.ts";
import { positives } from "./suites/verify.ts";
import { verifyEnvelope } from "../verify/mod.ts";
import { type CpuProfile, perFunction } from "./cpuprof.ts";

const [mode, nArg, cArg] = Deno.args;

/** CPU seconds of a process (or one of its threads) from /proc. */
function cpuSeconds(pid: number, tid?: number): number {
  const path = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
  const f = Deno.readTextFileSync(path).split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function verifyChild(n: number, c: number): Promise<void> {
  const { envs, opts } = await positives();
  for (let k = 0; k < n; k += c) {
    const batch = [];
    for (let i = 0; i < c; i++) batch.push(verifyEnvelope(envs[(k + i) % envs.length], opts));
    for (const r of await Promise.all(batch)) {
      if (!r.valid) throw new Error("Cannot profile: a positive vector did not verify");
    }
  }
}

async function top(dir: string, ops: number): Promise<void> {
  const files = [...Deno.readDirSync(dir)].map((e) => `${dir}/${e.name}`)
    .filter((f) => f.endsWith(".cpuprofile")).sort((a, b) =>
      Number(a.includes("worker")) - Number(b.includes("worker"))
    );
  console.log(files.join("\n"));
  const p = JSON.parse(await Deno.readTextFile(files[0])) as CpuProfile;
  const m = perFunction(p);
  for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`${(t / ops).toFixed(2).padStart(8)} µs  ${k}`);
  }
}

/**
 * The real service (api/deno/main.ts, SQLite in `data`, a fresh one by default) under `--cpu-prof`:
 * `reqs` sent over `c` keep-alive connections, the first `warm` before the clock, each answered
 * `status`; prints the rate and the server's CPU per request, then the profile's top entries.
 */
async function profileService(
  c: number,
  reqs: Uint8Array[],
  warm: number,
  status: number,
  what: string,
  data?: string,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: `jc-prof-${what}-` });
  data ??= await Deno.makeTempDir({ prefix: "jc-prof-data-" });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      "--cpu-prof",
      `--cpu-prof-dir=${dir}`,
      new URL("../api/deno/main.ts", import.meta.url).pathname,
    ],
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      JC_RATE_READ: "0",
      JC_RATE_WRITE: "0",
      NO_COLOR: "1",
      DATA_DIR: data,
      // JC_STREAM_CHECKS=off: the stream checks' "before" (issue 24)
      JC_STREAM_CHECKS: Deno.env.get("JC_STREAM_CHECKS") ?? "on",
    },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.getReader();
  let line = "";
  while (!line.includes("\n")) {
    const r = await reader.read();
    if (r.done) throw new Error("Cannot profile: the service exited before listening");
    line += new TextDecoder().decode(r.value);
  }
  const hello = JSON.parse(line.slice(0, line.indexOf("\n")));
  (async () => {
    for (;;) if ((await reader.read()).done) break;
  })();
  const conns = await Promise.all(
    Array.from({ length: c }, () => Conn.open(Number(new URL(hello.listening).port))),
  );
  let next = 0;
  for (let i = 0; i < warm; i++) await conns[0].send(reqs[next++]); // warm-up
  const n = reqs.length - warm;
  const pid = hello.pid as number;
  const all0 = cpuSeconds(pid), main0 = cpuSeconds(pid, pid);
  const t0 = performance.now();
  await Promise.all(conns.map(async (conn) => {
    while (next < reqs.length) {
      const r = await conn.send(reqs[next++]);
      if (r.status !== status) throw new Error(`Cannot profile: a ${what} answered ${r.status}`);
    }
  }));
  const s = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({
    [`${what}s`]: n,
    [`${what}s_per_s`]: Math.round(n / s),
    [`server_cpu_us_per_${what}`]: Math.round((cpuSeconds(pid) - all0) * 1e6 / n),
    [`server_main_thread_cpu_us_per_${what}`]: Math.round(
      (cpuSeconds(pid, pid) - main0) * 1e6 / n,
    ),
    load_average_1m: Deno.loadavg()[0],
  }));
  for (const conn of conns) conn.close();
  Deno.kill(pid, "SIGTERM");
  await child.status;
  await Deno.remove(data, { recursive: true });
  await top(dir, n);
}

if (mode === "verify-child") {
  await verifyChild(Number(nArg), Number(cArg));
} else if (mode === "verify") {
  const n = Number(nArg ?? 200_000), c = Number(cArg ?? 32);
  const dir = await Deno.makeTempDir({ prefix: "jc-prof-verify-" });
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--cpu-prof",
      `--cpu-prof-dir=${dir}`,
      new URL(import.meta.url).pathname,
      "verify-child",
      String(n),
      String(c),
    ],
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  await top(dir, n);
} else if (mode === "http") {
  const n = Number(nArg ?? 30_000), c = Number(cArg ?? 64);
  const reqs = (await presign(n + 200)).map(appendRequest);
  await profileService(c, reqs, 200, 201, "append");
} else if (mode === "bulk") {
  // issue 29: N envelopes in bulks of 256 (application/cbor-seq) over CONCURRENCY connections
  // (default 8); the figures and the profile are per bulk: divide by 256 for an envelope
  const n = Number(nArg ?? 30_000), c = Number(cArg ?? 8);
  const envs = await presign(n + 2 * 256);
  const reqs: Uint8Array[] = [];
  for (let k = 0; k + 256 <= envs.length; k += 256) reqs.push(bulkRequest(envs.slice(k, k + 256)));
  await profileService(c, reqs, 2, 200, "bulk");
} else if (mode === "tiles") {
  const n = Number(nArg ?? 1_000_000), c = Number(cArg ?? 64);
  const data = await Deno.makeTempDir({ prefix: "jc-prof-data-" });
  await fillTileLog(data, n);
  await profileService(c, randomTileGets(n, 100_000 + 2_000), 2_000, 200, "tile", data);
} else {
  console.error("usage: bench/profile.ts verify|http|bulk|tiles [N] [CONCURRENCY]");
  Deno.exit(2);
}
