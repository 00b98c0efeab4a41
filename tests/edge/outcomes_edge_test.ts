// JCP §5.2, §5.3 at the edge (issue 30), in real local workerd: the same scenario as the Deno
// service (tests/e2e/_outcomes_scenario.ts). The sequencer object reads an outcome's named
// activities from the envelope, resolves them over its SQLite (the one SQL store) and binds each
// in the outcome's round; a runtime restart keeps the bindings, so a second outcome naming a bound
// activity is still refused activity-bound-twice.
import { removeBundle, startWorker } from "../../fixtures/worker.ts";
import { exerciseOutcomes } from "../e2e/_outcomes_scenario.ts";

Deno.test({
  name: "edge: outcomes resolved at append and an activity bound twice refused, across a restart",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-outcomes-" });
    let rt = await startWorker(state, {});
    try {
      await exerciseOutcomes(rt.url.href.replace(/\/$/, ""), async () => {
        await rt.stop();
        rt = await startWorker(state, {});
        return rt.url.href.replace(/\/$/, "");
      });
    } finally {
      await rt.stop();
      await removeBundle();
      await Deno.remove(state, { recursive: true });
    }
  },
});
