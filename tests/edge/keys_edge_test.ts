// Identities that rotate at the edge (issue 25; docs/KEYS.md), in real local workerd: the same
// Python-built scenarios as the Deno service (tests/e2e/_keys_scenarios.ts). Appends go front
// Worker → batchers → the sequencer object, whose sequencer judges key events and receipts under
// identities in log order and whose SQLite keeps the key state in the round's own transaction (the
// one SQL store's); GET /v1/keys and the receipts' re-judgement ask the sequencer object.
import { removeBundle, startWorker } from "../../fixtures/worker.ts";
import { exerciseKeyLifecycle, exerciseRotationUnderLoad } from "../e2e/_keys_scenarios.ts";

Deno.test({
  name: "edge: a Python-built key lifecycle and a rotation under load in workerd",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-keys-" });
    const rt = await startWorker(state, { JC_EDGE_BATCHERS: "4" });
    try {
      const u = rt.url.href.replace(/\/$/, "");
      await exerciseKeyLifecycle(u);
      await exerciseRotationUnderLoad(u, 100);
    } finally {
      await rt.stop();
      await removeBundle();
      await Deno.remove(state, { recursive: true });
    }
  },
});
