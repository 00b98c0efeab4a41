// The log's shared storage-contract suite run INSIDE real local workerd against the Durable
// Object backend (log/durable/) on a SQLite-backed Durable Object (issue 7): the test Worker
// tests/edge/contract_worker.ts runs every case there and reports each outcome, which becomes one
// step here. A case that fails in workerd fails this test with its message and stack.
import assert from "node:assert/strict";
import { bundleWorker, startEdge } from "../../edge/mod.ts";

Deno.test({
  name: "edge: storage contract suite inside workerd against the Durable Object backend",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    await Deno.mkdir(new URL("../../edge/dist/", import.meta.url), { recursive: true });
    const script = `edge/dist/contract-test-${Deno.pid}.js`;
    await bundleWorker("tests/edge/contract_worker.ts", script, { allowDeno: true });
    const rt = await startEdge({
      script,
      durableObjects: { HARNESS: { className: "ContractHarness", useSQLite: true } },
    });
    try {
      const res = await fetch(new URL("/run", rt.url));
      const text = await res.text();
      assert.equal(res.status, 200, `${text}\n${rt.logTail()}`);
      const results = JSON.parse(text) as {
        name: string;
        ok: boolean;
        ms: number;
        error?: string;
      }[];
      assert.ok(results.length >= 8, `only ${results.length} cases ran`);
      assert.ok(results.some((r) => r.name.startsWith("storage contract [durable-object]")));
      for (const r of results) {
        await t.step(`${r.name} (${r.ms.toFixed(0)} ms in workerd)`, () => {
          assert.ok(r.ok, r.error);
        });
      }
    } finally {
      await rt.stop();
      await Deno.remove(new URL(`../../${script}`, import.meta.url)).catch(() => {});
    }
  },
});
