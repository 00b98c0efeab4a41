// JCP §5.2, §5.3 over real HTTP on the Deno service (issue 30): tests/e2e/_outcomes_scenario.ts
// (intercept/1 and efficiency/1 accepted with verdicts; unresolved, mis-added and above-the-floor
// outcomes refused; an activity bound twice refused — single, bulk, after a restart); and a log
// with stream checks off refuses outcomes rather than log them unchecked (outcomes-unchecked).
import assert from "node:assert/strict";
import { startService } from "../../fixtures/service.ts";
import { steward } from "../../fixtures/app.ts";
import { contentIdOf, efficiencyCore, interceptCore, seal } from "../../fixtures/outcomes.ts";
import { exerciseOutcomes, post } from "./_outcomes_scenario.ts";

Deno.test({
  name:
    "e2e outcomes: activities resolved at append, an activity bound twice refused, across a restart",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-outcomes-" });
    const env = { DATA_DIR: dir, JC_BATCH_AGE_MS: "2" };
    let svc = await startService(env);
    try {
      await exerciseOutcomes(svc.url, async () => {
        await svc.stop();
        svc = await startService(env);
        return svc.url;
      });
      await svc.stop();
      // a log without stream checks cannot bind: it refuses outcomes rather than log them unchecked
      svc = await startService({ ...env, JC_STREAM_CHECKS: "off" });
      const s = steward(61);
      const a1 = seal(interceptCore(s.did, 1), s);
      const o5 = seal(efficiencyCore(s.did, [{ cid: contentIdOf(a1), uj: 1001 }], 11), s);
      const r5 = await post(svc.url, o5);
      assert.equal(r5.status, 422);
      assert.equal(r5.body.code, "outcomes-unchecked");
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
