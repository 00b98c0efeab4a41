// Verdict classes on the edge deployment (JCR-1 §6, SPEC §6): the Worker build under real local
// workerd, judging under the conformance operator configuration (JC_OPERATOR_CONFIG holds the JSON
// itself on a Worker), appends valid, joule-unverified and alert receipts (the alert with its
// DriftAlert figures), refuses an invalid one 422, and every entry view, the export and the metrics
// show each entry's verdict — as the Deno service does (tests/e2e/verdicts_test.ts); a runtime
// restart changes no verdict.
import assert from "node:assert/strict";
import { checkVerdictsOver, getText, operatorConfigText } from "../_verdicts.ts";
import { removeBundle, startWorker } from "../../fixtures/worker.ts";

Deno.test({
  name:
    "edge: each verdict class is appended or refused as on the Deno service, and shown by every view",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-verdicts-" });
    const bindings = { JC_OPERATOR_CONFIG: await operatorConfigText() };
    let rt = await startWorker(state, bindings);
    try {
      // after the configuration entry the edge logs (issue 23): three consecutive entries
      const indexes = await checkVerdictsOver(rt.url);
      assert.deepEqual(indexes, [0, 1, 2].map((k) => indexes[0] + k));
      await rt.stop();
      rt = await startWorker(state, bindings);
      for (const [k, verdict] of ["valid", "joule-unverified", "alert"].entries()) {
        const at = indexes[k];
        const j = JSON.parse(await getText(rt.url, `/v1/log/entries/${at}`, "application/json"));
        assert.equal(j.verdict, verdict);
      }
    } finally {
      await rt.stop();
      await Deno.remove(state, { recursive: true });
      await removeBundle();
    }
  },
});
