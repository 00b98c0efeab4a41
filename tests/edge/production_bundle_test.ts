// The production Worker carries no test hooks (issue 22): `deno task edge:build` bundles
// edge/worker/worker.ts (WORKER_ENTRY), and the `/__edge/` routes (stats, fault injection, forced
// checkpoints, appends past the directory) and the Durable Objects' test RPCs and faults (stats,
// injectFaults, flushCheckpoint, restarts after a step, failing R2 puts, a batcher's restart)
// live only in the test entry the tests and the bench bundle (fixtures/worker_test_entry.ts,
// its objects fixtures/test_objects.ts). The same check over the test entry's bundle shows
// the check sees them where they are.
import assert from "node:assert/strict";
import { bundleWorker, WORKER_ENTRY } from "../../edge/mod.ts";

/** What marks a test hook in a bundle: its routes. */
const HOOK_MARKS = ["/__edge/stats", "/__edge/faults", "/__edge/append", "/__edge/flush"];

/**
 * What marks the objects' test RPCs and faults in a bundle: the RPC method names no production
 * code has, and the messages of their refusals and injected faults.
 */
const OBJECT_HOOK_MARKS = [
  "injectFaults",
  "Cannot read stats:",
  "Cannot inject:",
  "Cannot flush:",
  "injected restart after",
  "injected R2 put failure",
  "injected batcher restart",
  "r2FailPuts",
  "rotateCrashAt",
];

async function bundled(entry: string, tag: string): Promise<string> {
  await Deno.mkdir(new URL("../../edge/dist/", import.meta.url), { recursive: true });
  const out = `edge/dist/worker-${tag}-${Deno.pid}.js`;
  const b = await bundleWorker(entry, out);
  try {
    return await Deno.readTextFile(b.path);
  } finally {
    await Deno.remove(b.path).catch(() => {});
  }
}

Deno.test("the production Worker bundle has no test hooks; the test entry's has them", async () => {
  assert.equal(WORKER_ENTRY, "edge/worker/worker.ts");
  const prod = await bundled(WORKER_ENTRY, "prod");
  for (const mark of [...HOOK_MARKS, ...OBJECT_HOOK_MARKS]) {
    assert.ok(!prod.includes(mark), `the production bundle contains ${mark}`);
  }
  const test = await bundled("fixtures/worker_test_entry.ts", "hooks");
  for (const mark of [...HOOK_MARKS, ...OBJECT_HOOK_MARKS]) {
    assert.ok(test.includes(mark), `the test entry's bundle lacks ${mark}`);
  }
});
