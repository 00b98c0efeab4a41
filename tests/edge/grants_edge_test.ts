// Grants and revocations at the edge (issue 25), in real local workerd: the same Python-built
// scenario as the Deno service (conformance/python/jcgrants; tests/e2e/grants_python_test.ts).
// Appends go front Worker → batchers → the sequencer object, whose SQLite keeps the grant state
// and runs the revocation checks in the round's own transaction (the one SQL store's); the
// admission's reads (a logged parent, a revocation's grant) and GET /v1/grants are asked of it.
import assert from "node:assert/strict";
import { removeBundle, startWorker } from "../../fixtures/worker.ts";
import { jcgrants } from "../e2e/_grants_python.ts";

Deno.test({
  name: "edge: Python-built grants, chains, every refusal and a revocation's findings in workerd",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-grants-" });
    const rt = await startWorker(state, { JC_EDGE_BATCHERS: "4" });
    try {
      const url = rt.url.href.replace(/\/$/, "");
      const r = await jcgrants(url);
      assert.equal(r.code, 0, `${r.text}\n${r.stderr}`);
      const summary = JSON.parse(r.text);
      const root = await (await fetch(`${url}/v1/grants/${summary.root}`)).json();
      assert.equal(root.revocation, summary.marker);
    } finally {
      await rt.stop();
      await removeBundle();
      await Deno.remove(state, { recursive: true });
    }
  },
});
