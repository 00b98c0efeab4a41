// Every `deno task bench` suite, run end to end in its short mode (JC_BENCH_SHORT=1,
// bench/suites/_short.ts): a suite that crashes (as `bench http` once did on a machine faster
// than its fixed pool of pre-signed envelopes) fails CI instead of a later benchmark run.
// The HTTP and witness suites get pools of 200 and 100 envelopes (JC_BENCH_HTTP_POOL,
// JC_BENCH_WITNESS_POOL), far below what they append (what a machine faster than the calibration
// would see), so the run only finishes if envelopes are signed ahead while it goes on
// (bench/suites/_pool.ts; tests/bench/pool_test.ts drives the pool against an instant service).
import assert from "node:assert/strict";
import { type CpuProfile, perFunction } from "../../bench/cpuprof.ts";

const root = new URL("../../", import.meta.url);

/**
 * Suites that a test of their own runs in short mode, with assertions on their figures: not run a
 * second time here (`bench edge` alone took a minute of this test on a loaded machine).
 */
const OWN_TEST: Record<string, string> = { edge: "tests/edge/bench_edge_test.ts" };

Deno.test("deno task bench: every suite completes in short mode, none reports an error", async () => {
  const suites: string[] = [];
  for await (const e of Deno.readDir(new URL("bench/suites/", root))) {
    // helper modules, not suites (bench/main.ts runs only modules with a default export)
    if (!e.isFile || !e.name.endsWith(".ts")) continue;
    const text = await Deno.readTextFile(new URL(`bench/suites/${e.name}`, root));
    if (/^export default /m.test(text)) suites.push(e.name.slice(0, -3));
  }
  for (const [suite, test] of Object.entries(OWN_TEST)) {
    assert.ok(suites.includes(suite), `no suite ${suite}`);
    const text = await Deno.readTextFile(new URL(test, root));
    assert.match(text, new RegExp(`bench/suites/${suite}\\.ts`), `${test} runs ${suite}`);
    assert.match(text, /JC_BENCH_SHORT/, `${test} runs ${suite} in short mode`);
  }
  const run = suites.filter((s) => !(s in OWN_TEST)).sort();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "bench", ...run],
    cwd: root,
    env: {
      JC_BENCH_SHORT: "1",
      JC_BENCH_HTTP_POOL: "200",
      JC_BENCH_WITNESS_POOL: "100",
      NO_COLOR: "1",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, err);
  const report = JSON.parse(new TextDecoder().decode(out.stdout));
  for (const s of run) {
    assert.ok(report[s], `suite ${s} did not run\n${err}`);
    assert.equal(report[s].error, undefined, `suite ${s} crashed: ${report[s].error}`);
  }
  // the HTTP suite appended more than its pool held: it signed ahead instead of crashing
  assert.ok(report.http.signed_during_run > 0, JSON.stringify(report.http));
  assert.ok(report.http.closed_loop.appends > 200, JSON.stringify(report.http.closed_loop));
  assert.equal(Object.keys(report.http.open_loop.failed_by_status).length, 0);
  // bulk appends (issue 29) in the same run, with their ratio beside the closed loop's
  assert.ok(report.http.bulk.appends > 0, JSON.stringify(report.http.bulk));
  for (const m of [report.http.bulk, report.http.closed_loop]) {
    assert.equal(typeof m.ratio_to_raw_verifies, "number");
    assert.equal(typeof m.cpu_bound_ratio, "number");
  }
  // stream checks on and off (issue 24) in the same run, with their ratio
  const sc = report.http.stream_checks;
  assert.ok(sc.on.appends > 0 && sc.off.appends > 0, JSON.stringify(sc));
  assert.equal(typeof sc.ratio_on_to_off, "number");
  // the witness suite too (it crashed "out of envelopes" on a faster machine)
  const w = report.witness.appends_with_witnesses;
  assert.ok(w.signed_during_run > 0, JSON.stringify(w));
  assert.equal(w.presigned, 100, JSON.stringify(w));
});

Deno.test("bench/profile.ts: both profiles run and bench/cpuprof.ts attributes them (docs/PERFORMANCE.md)", async () => {
  for (const [mode, n, c] of [["verify", "2000", "8"], ["http", "600", "8"]]) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "bench/profile.ts", mode, n, c],
      cwd: root,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const files = text.split("\n").filter((l) => l.endsWith(".cpuprofile"));
    assert.ok(files.length >= 1, text);
    // bench/cpuprof.ts attributed the main thread's profile (the top list printed)
    assert.match(text, /µs {2}\S/, text);
    if (mode === "verify") {
      // The verify path is what the main thread's profile holds: verifyEnvelope with its callees
      // is a large share of the busy samples (40-58 % here, quiet or loaded). Its *self* time is
      // not asserted: it depends on what V8 has inlined into it when sampled (6-12 µs per receipt
      // on a quiet machine, below the top 25 on a loaded one, where the tiering thread lags).
      const p = JSON.parse(await Deno.readTextFile(files[0])) as CpuProfile;
      const self = [...perFunction(p)].filter(([k]) => k !== "(idle) ");
      const busy = self.reduce((a, [, t]) => a + t, 0);
      const inclusive = [...perFunction(p, true)]
        .filter(([k]) => k.startsWith("verifyEnvelope report.ts:"))
        .reduce((a, [, t]) => a + t, 0);
      assert.ok(inclusive >= 0.2 * busy, `verifyEnvelope ${inclusive} of ${busy} µs busy\n${text}`);
    }
    if (mode === "http") {
      const j = JSON.parse(text.split("\n").find((l) => l.startsWith("{"))!);
      assert.ok(j.server_cpu_us_per_append > 0, text);
    }
    for (const f of files) {
      await Deno.remove(f.replace(/\/[^/]+$/, ""), { recursive: true }).catch(() => {});
    }
  }
});
