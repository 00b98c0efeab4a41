// `deno task test`: every test file of the repository, in two passes (README "Tests").
//
// 1. Parallel: `deno test --parallel` over every test file deno finds (its own discovery and
//    deno.json's "exclude"), minus the serial ones below. Most files wait on subprocesses, sockets
//    and timers (the real service, local workerd, Virtuoso, Chromium, Python), so several files
//    side by side use a 2-core machine far better than one after the other: the suite took
//    17 min 20 s serially. A new test file is in this pass without being named anywhere.
// 2. Serial: the files named in SERIAL, one after the other with nothing else running, after the
//    parallel pass. Each asserts a wall-clock bound (a latency, a deadline plus a slack) or a
//    process-wide fact that a concurrently running file could break; the reason is given per file.
//
// Both passes always run; the exit code is the first non-zero one (a failure in either fails the
// task). DENO_JOBS sets the parallel pass's width (default below). With arguments
// (`deno task test tests/x_test.ts --filter y`), the runner runs `deno test -A --quiet <args>`
// once, serially, as the task did before.

/** Files that never run beside another test file, and why. Paths from the repository root. */
export const SERIAL: Readonly<Record<string, string>> = {
  "tests/e2e/agent_heads_test.ts":
    "GET /v1/agents and /healthz answer within 1 s while the service backfills 10^6 entries",
  "tests/e2e/body_limits_test.ts":
    "trickled bodies cut within 3.5-4 s; the service's RSS growth bounded while sampled",
  "tests/e2e/conn_limits_test.ts": "connections closed inside 0.9-4 s windows",
  "tests/rdf/hostile_test.ts": "/healthz and appends keep their latency (< 1 s) under hostile load",
  "tests/rdf/sparql_bound_test.ts": "a query past its bound answers within 1 s",
  "tests/rdf/units_test.ts": "a fresh validation Worker answers a small document within 100 ms",
  "tests/net/request_test.ts": "each hostile answer ends within its deadline plus 1.5 s",
  "tests/net/browser_test.ts":
    "each hostile answer in Chromium ends within its deadline plus 1.5 s",
  "tests/api/worker_pool_test.ts": "job limits of 100-500 ms and a 500 ms stall detector",
  "tests/edge/task_test.ts":
    "rebuilds edge/dist/worker.js, which tests/e2e/start_stop_test.ts asserts nothing rebuilds",
};

/** Parallel pass width when DENO_JOBS is not set. */
const DEFAULT_JOBS = "3";

const ROOT = new URL("../", import.meta.url);

async function denoTest(args: string[], env: Record<string, string> = {}): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--quiet", ...args],
    cwd: ROOT,
    env,
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  return (await child.status).code;
}

function minutes(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

async function main(args: string[]): Promise<number> {
  if (args.length > 0) return await denoTest(args);
  const serial = Object.keys(SERIAL);
  for (const f of serial) {
    // A renamed or deleted file must not silently leave the suite or the list.
    await Deno.stat(new URL(f, ROOT)).catch(() => {
      throw new Error(`tests/run.ts: SERIAL names ${f}, which does not exist`);
    });
  }
  const jobs = Deno.env.get("DENO_JOBS") || DEFAULT_JOBS;
  console.log(
    `tests/run.ts: pass 1, DENO_JOBS=${jobs} deno test --parallel: every test file but the ` +
      `${serial.length} serial ones (each test line names its file)`,
  );
  const t0 = performance.now();
  const par = await denoTest(["--parallel", `--ignore=${serial.join(",")}`], { DENO_JOBS: jobs });
  const t1 = performance.now();
  console.log(`tests/run.ts: pass 2, serial: ${serial.join(" ")}`);
  const ser = await denoTest(serial);
  const t2 = performance.now();
  console.log(
    `tests/run.ts: parallel pass exit ${par} (${minutes(t1 - t0)}), serial pass exit ${ser} ` +
      `(${minutes(t2 - t1)}), total ${minutes(t2 - t0)}`,
  );
  return par !== 0 ? par : ser;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
