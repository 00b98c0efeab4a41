// The test-only Worker entry (docs/EDGE.md "Faults"): the production Worker (edge/worker/worker.ts)
// with the `/__edge/` routes as its first front stage (stats of the objects and the isolate, fault
// injection, a forced checkpoint, an append straight to a shard's sequencer) and its Durable
// Objects subclassed with the hooks those reach (_test_objects.ts). Bundled only by the tests' and
// the bench's tooling (tests/edge/_worker.ts); `deno task edge:build` bundles
// edge/worker/worker.ts, which has none of them (tests/edge/production_bundle_test.ts checks it).
import { type Built, workerEntry } from "../../edge/worker/worker.ts";
import { readTextLimited } from "../../api/http/limits.ts";
import { unwrap } from "../../edge/worker/mod.ts";
import { type Namespace, sequencerOf } from "../../edge/worker/object_state.ts";
import type { EdgeFaults, TestBatcherStub, TestSequencerStub } from "./_test_objects.ts";

export { LogBatcher, LogSequencer, LogShardSequencer } from "./_test_objects.ts";

/**
 * Test-only routes (JC_EDGE_TEST_HOOKS=on, docs/EDGE.md "Faults"): stats of the objects and the
 * isolate, fault injection, a forced checkpoint. Undefined: not a hook path (or hooks off).
 */
export async function testHook(
  req: Request,
  b: Built,
  env: Record<string, unknown>,
): Promise<Response | undefined> {
  const path = new URL(req.url).pathname;
  if (!b.settings.testHooks || !path.startsWith("/__edge/")) return undefined;
  const sequencer = (n: number) => sequencerOf<TestSequencerStub>(env, n);
  const batchers = env.LOG_BATCHER as Namespace<TestBatcherStub>;
  const batcher = (k: number) => batchers.get(batchers.idFromName(`batcher-${k}`));
  const json = (v: unknown) =>
    new Response(JSON.stringify(v), { headers: { "content-type": "application/json" } });
  if (path === "/__edge/stats") {
    const batchers = [];
    for (let k = 0; k < b.settings.batchers; k++) batchers.push(unwrap(await batcher(k).stats()));
    // Every listed shard's sequencer after the first (docs/SHARDS.md).
    const shards = [];
    const listed = (await b.shards.state(true)).shards.length;
    for (let n = 1; n < listed; n++) shards.push(unwrap(await sequencer(n).stats()));
    return json({
      sequencer: unwrap(await sequencer(0).stats()),
      shards,
      batchers,
      isolate: { r2Gets: b.log.r2Gets },
    });
  }
  if (path === "/__edge/faults" && req.method === "POST") {
    const f = JSON.parse(await readTextLimited(req, 64 * 1024)) as EdgeFaults & {
      target?: string;
      shard?: number;
    };
    if (f.target === "batchers") {
      for (let k = 0; k < b.settings.batchers; k++) unwrap(await batcher(k).injectFaults(f));
    } else unwrap(await sequencer(f.shard ?? 0).injectFaults(f));
    return json({ ok: true });
  }
  if (path === "/__edge/append" && req.method === "POST") {
    // Straight to shard n's sequencer, past the Worker's directory check (issue 27: a frozen or
    // pinned shard's object refuses on its own).
    const n = Number(new URL(req.url).searchParams.get("shard") ?? 0);
    const o = await b.shardSequencer(n).append(new Uint8Array(await req.arrayBuffer()));
    return json(o.ok ? { ok: true, index: o.value.index } : o);
  }
  if (path === "/__edge/flush" && req.method === "POST") {
    unwrap(await sequencer(0).flushCheckpoint());
    return json({ ok: true });
  }
  return undefined;
}

export default workerEntry(testHook);
