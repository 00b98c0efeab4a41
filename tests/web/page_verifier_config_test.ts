// The page judges JCR-1 §6 step 6 under the log's published verifier configuration (issue 23's
// gap, issue 24's page): GET /v1/verifier-config's reference vectors and drift bands, so an entry
// the log classes `alert` is an alert on the page too (it was `joule-unverified`: the page had no
// reference vectors), and the status line names the configuration (its log entry and digest). A
// configuration file the person loads still wins. Real service, real Chromium.
import assert from "node:assert/strict";
import { launchChromium } from "../../fixtures/browser.ts";
import { startService } from "../../fixtures/service.ts";
import { classVectors, OPERATOR_CONFIG_PATH, postCose } from "../_verdicts.ts";

Deno.test({
  name: "page: judged under the log's published verifier configuration, as the log classed it",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-page-vconfig-" });
    const svc = await startService({ DATA_DIR: dataDir, JC_OPERATOR_CONFIG: OPERATOR_CONFIG_PATH });
    const browser = await launchChromium();
    try {
      const [valid, unverified, alert] = await classVectors();
      const cfg = await (await fetch(`${svc.url}/v1/verifier-config`)).json();
      const page = await (await browser.newContext()).newPage();
      for (const v of [valid, unverified, alert]) {
        const r = await postCose(svc.url, "/v1/log/entries", v.envelope);
        assert.equal(r.body.verdict, v.verdict, `the log classes ${v.name}`);
        await page.goto(`${svc.url}/?index=${r.body.index}`);
        await page.waitForSelector("#result[data-verdict]", { state: "attached" });
        assert.equal(
          await page.getAttribute("#result", "data-verdict-class"),
          v.verdict,
          `the page classes ${v.name} as the log did`,
        );
        await page.waitForSelector("#config-status[data-config=log]", { state: "attached" });
        const line = await page.textContent("#config-status") ?? "";
        assert.match(line, /published verifier configuration/);
        assert.ok(line.includes(`log entry ${cfg.index}`) && line.includes(cfg.digest), line);
      }
    } finally {
      await browser.close();
      await svc.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
