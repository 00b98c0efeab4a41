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
  // deno test type-checks a Worker's module when the Worker starts; beside other files that check
  // waits its turn (seen: a first answer past 10 s, where it takes 0.1 s alone).
  "tests/api/worker_messages_test.ts": "a fresh Worker's first answer within 10 s",
  "tests/api/verify_pool_test.ts": "a 3 s stall detector on freshly started verifier Workers",
  "tests/edge/shards_edge_test.ts":
    "zero Durable Object calls over a read-only run; failed once in the parallel pass at load 14",
  "tests/meter/e2e_test.ts":
    "the agent's 0.2 s reading loop against the service; failed once in the parallel pass at load 12",
  "tests/edge/task_test.ts":
    "rebuilds edge/dist/worker.js, which tests/e2e/start_stop_test.ts asserts nothing rebuilds",
};

/**
 * Started first in the parallel pass (longest first), every other file after them in path order:
 * a long file started last is the pass's tail (seen: Virtuoso's 3.4 min begun at minute 10).
 * Only an order; a name here that no longer exists is passed over.
 */
const LONG_FIRST = [
  "tests/rdf/sync_virtuoso_test.ts",
  "tests/edge/pin_edge_test.ts",
  "tests/bench/short_test.ts",
  "tests/edge/streams_edge_test.ts",
  "tests/publication/client_test.ts",
  "tests/edge/bench_edge_test.ts",
  "tests/rdf/sync_kill_test.ts",
  "tests/net/agent_test.ts",
  "tests/e2e/streams_python_test.ts",
  "tests/edge/r2_test.ts",
];

/** Parallel pass width when DENO_JOBS is not set. */
const DEFAULT_JOBS = "3";

const ROOT = new URL("../", import.meta.url);

/** deno test's own test file names: `*_test`, `*.test` or `test`, with a script extension. */
const TEST_FILE = /(^|[_.])test\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

/**
 * Every test file deno test would find run without arguments: the names above, outside .git,
 * node_modules and deno.json's "exclude" (folder entries). Listed here because a `deno test`
 * given both paths and --ignore applies no --ignore, and the list sets the order.
 */
export async function testFiles(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  if (config.test !== undefined) {
    throw new Error('tests/run.ts: deno.json has a "test" section; teach testFiles() to read it');
  }
  const excluded: string[] = config.exclude ?? [];
  for (const e of excluded) {
    if (/[*?[{]/.test(e)) throw new Error(`tests/run.ts: deno.json exclude ${e}: not a folder`);
  }
  const skip = (rel: string) =>
    excluded.some((e) => rel === e.replace(/\/$/, "") || rel.startsWith(e.replace(/\/?$/, "/")));
  const out: string[] = [];
  const walk = async (rel: string) => {
    const names = [];
    for await (const e of Deno.readDir(new URL(rel || ".", ROOT))) names.push(e);
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of names) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.name === ".git" || e.name === "node_modules" || skip(p)) continue;
      if (e.isDirectory) await walk(p);
      else if (e.isFile && TEST_FILE.test(e.name)) out.push(p);
    }
  };
  await walk("");
  return out;
}

/** What a failed pass printed that says why: its ERRORS and FAILURES sections, bounded. */
export class FailureDigest {
  #section: string[] = [];
  #inSection = false;
  #errors: string[] = [];
  #carry = "";
  static readonly MAX_CHARS = 8000;

  push(text: string): void {
    const lines = (this.#carry + text).split("\n");
    this.#carry = lines.pop() ?? "";
    for (const line of lines) this.#line(line);
  }

  #line(raw: string): void {
    // deno test ends a failed run with " ERRORS ", the errors, " FAILURES ", one line per failure.
    // deno-lint-ignore no-control-regex -- ANSI colour codes, on purpose
    const line = raw.replace(/\x1b\[[0-9;]*m/g, "");
    if (/^\s*ERRORS\s*$/.test(line)) {
      this.#inSection = true;
      this.#section = [];
    }
    if (this.#inSection) this.#section.push(line);
    else if (/^error: /.test(line) && this.#errors.length < 20) this.#errors.push(line);
  }

  /** The digest, FAILURES kept whole where the bound cuts the ERRORS before it. */
  text(): string {
    if (this.#carry) this.#line(this.#carry), this.#carry = "";
    let body = this.#section.join("\n");
    if (body.length > FailureDigest.MAX_CHARS) {
      const f = body.lastIndexOf("FAILURES");
      const tail = f >= 0 ? body.slice(f) : "";
      const room = Math.max(0, FailureDigest.MAX_CHARS - tail.length);
      body = body.slice(0, room) + "\n[... cut ...]\n" + tail;
    }
    return [...this.#errors, body].filter((x) => x).join("\n");
  }
}

async function denoTest(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; digest: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--quiet", ...args],
    cwd: ROOT,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const digest = new FailureDigest();
  const pump = async (from: ReadableStream<Uint8Array>, to: typeof Deno.stdout) => {
    const d = new TextDecoder();
    for await (const chunk of from) {
      await writeAll(to, chunk);
      digest.push(d.decode(chunk, { stream: true }));
    }
  };
  await Promise.all([pump(child.stdout, Deno.stdout), pump(child.stderr, Deno.stderr)]);
  const code = (await child.status).code;
  return { code, digest: code === 0 ? "" : digest.text() };
}

async function writeAll(to: typeof Deno.stdout, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await to.write(bytes.subarray(off));
}

function minutes(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

async function main(args: string[]): Promise<number> {
  if (args.length > 0) return (await denoTest(args)).code;
  const serial = Object.keys(SERIAL);
  for (const f of serial) {
    // A renamed or deleted file must not silently leave the suite or the list.
    await Deno.stat(new URL(f, ROOT)).catch(() => {
      throw new Error(`tests/run.ts: SERIAL names ${f}, which does not exist`);
    });
  }
  const jobs = Deno.env.get("DENO_JOBS") || DEFAULT_JOBS;
  const all = await testFiles();
  const rest = all.filter((f) => !serial.includes(f));
  const parallel = [...LONG_FIRST.filter((f) => rest.includes(f)), ...rest]
    .filter((f, i, a) => a.indexOf(f) === i);
  console.log(
    `tests/run.ts: pass 1, DENO_JOBS=${jobs} deno test --parallel, ${parallel.length} files: ` +
      parallel.join(" "),
  );
  const t0 = performance.now();
  const par = await denoTest(["--parallel", ...parallel], { DENO_JOBS: jobs });
  const t1 = performance.now();
  console.log(`tests/run.ts: pass 2, serial: ${serial.join(" ")}`);
  const ser = await denoTest(serial);
  const t2 = performance.now();
  // Each failed pass's reasons again at the very end: CI keeps only the tail of the output.
  for (const [name, pass] of [["parallel", par], ["serial", ser]] as const) {
    if (pass.code !== 0) {
      console.log(`tests/run.ts: ${name} pass failed (exit ${pass.code}); what it said:`);
      console.log(pass.digest || "(no ERRORS section: see the pass's output above)");
    }
  }
  console.log(
    `tests/run.ts: parallel pass exit ${par.code} (${minutes(t1 - t0)}), serial pass exit ` +
      `${ser.code} (${minutes(t2 - t1)}), total ${minutes(t2 - t0)}`,
  );
  return par.code !== 0 ? par.code : ser.code;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
