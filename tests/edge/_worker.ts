// Test helper: the real Worker build (edge/worker/worker.ts with the test-only `/__edge/` routes,
// tests/edge/worker_test_entry.ts, bundled like `deno task edge:build`) under
// local workerd with wrangler.toml's bindings, a fixed log key, rate limits off and durable state
// in a temporary folder. One runtime per test file, reused across its steps (docs/EDGE.md).
import { bundleWorker, type EdgeRuntime, freeLocalPort, startEdge } from "../../edge/mod.ts";

/** The log key every edge test runs with (hex of 32 bytes 0x2a). */
export const TEST_LOG_KEY = "2a".repeat(32);
/** The operator key (signs GET /v1/logs) every edge test runs with. */
export const TEST_OPERATOR_KEY = "3b".repeat(32);

let bundled: Promise<string> | undefined;

/** Bundles the test entry once per test process (into edge/dist/, kept apart from the task's). */
export function workerBundle(): Promise<string> {
  bundled ??= (async () => {
    await Deno.mkdir(new URL("../../edge/dist/", import.meta.url), {
      recursive: true,
    });
    const name = `edge/dist/worker-test-${Deno.pid}.js`;
    await bundleWorker("tests/edge/worker_test_entry.ts", name);
    return name;
  })();
  return bundled;
}

/**
 * Starts the Worker; `persistTo` keeps its state across restarts. Its public URL (JC_PUBLIC_URL,
 * required at the edge) is the address it listens on unless `bindings` names another.
 */
export async function startWorker(
  persistTo: string,
  bindings: Record<string, string> = {},
): Promise<EdgeRuntime> {
  const port = freeLocalPort();
  return await startEdge({
    script: await workerBundle(),
    config: "wrangler.toml",
    persistTo,
    port,
    bindings: {
      JC_PUBLIC_URL: `http://127.0.0.1:${port}`,
      JC_LOG_KEY: TEST_LOG_KEY,
      JC_OPERATOR_KEY: TEST_OPERATOR_KEY,
      JC_RATE_READ: "0",
      JC_RATE_WRITE: "0",
      // Checkpoints with every round (local R2 has no 1 write/s limit): deterministic heads for
      // the checks that follow each append; tests/edge/r2_test.ts checks the throttle itself.
      JC_EDGE_CHECKPOINT_MS: "0",
      JC_EDGE_TEST_HOOKS: "on",
      ...bindings,
    },
  });
}

/** Removes this process's bundle (call once at the end of a file). */
export async function removeBundle(): Promise<void> {
  if (!bundled) return;
  const name = await bundled;
  bundled = undefined;
  await Deno.remove(new URL(`../../${name}`, import.meta.url)).catch(() => {});
}

/** A test hook of the Worker (`/__edge/…`, JC_EDGE_TEST_HOOKS): GET, or POST of `body` as JSON. */
export async function hook(
  base: URL,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(new URL(path, base), {
    method: body === undefined ? "GET" : "POST",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const j = await res.json();
  if (res.status !== 200) {
    throw new Error(`${path}: ${res.status} ${JSON.stringify(j)}`);
  }
  return j;
}

/** An answer of the append route: its status and JSON body. */
export interface AppendAnswer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** POSTs a COSE envelope to the append route of the shard at `prefix` (default the root, s0). */
export async function postEntry(
  base: URL,
  bytes: Uint8Array,
  prefix = "/",
): Promise<AppendAnswer> {
  const p = prefix === "/" ? "" : prefix;
  const res = await fetch(new URL(`${p}/v1/log/entries`, base), {
    method: "POST",
    headers: { "content-type": "application/cose", accept: "application/json" },
    body: bytes.slice(),
  });
  return { status: res.status, body: await res.json() };
}
