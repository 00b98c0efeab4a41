// The explorer (`/?view=explore`) says it is loading while its answers are on their way (issue 28:
// it showed nothing while entries loaded), in real Chromium against the real service: the entries
// page and the checkpoints are held back (playwright routes) and the page must show a polite status
// line in each panel, marked aria-busy; once they are let through, the status lines go and the
// checkpoints and the newest-entries table are shown.
import assert from "node:assert/strict";
import { ROOT, startService } from "../../fixtures/service.ts";
import { launchChromium } from "../../fixtures/browser.ts";

Deno.test({
  name: "explorer: a loading state in each panel while checkpoints and entries load, then the data",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const svc = await startService({ JC_STORE: "memory" });
    const browser = await launchChromium();
    try {
      const r = await fetch(`${svc.url}/v1/log/entries`, {
        method: "POST",
        headers: { "content-type": "application/cose" },
        body: await Deno.readFile(`${ROOT}examples/receipt.cose`),
      });
      assert.equal(r.status, 201);
      await r.body?.cancel();
      const page = await (await browser.newContext()).newPage();
      let release!: () => void;
      const held = new Promise<void>((r) => release = r);
      let heldBack = 0;
      await page.route(/\/(v1\/log\/entries\?|log\/[a-z0-9]+\/checkpoint$)/, async (route) => {
        heldBack++;
        await held;
        await route.continue();
      });
      await page.goto(svc.url + "/?view=explore");
      const loading = page.locator('[data-field="loading"]');
      await loading.first().waitFor({ state: "visible", timeout: 10_000 });
      const texts = await loading.allTextContents();
      assert.deepEqual(texts, [
        "Loading the latest checkpoints\u2026",
        "Loading the newest entries\u2026",
      ]);
      assert.equal(await page.locator('section[aria-busy="true"]').count(), 2);
      assert.equal(await page.locator('[data-field="newest"]').count(), 0);
      assert.ok(heldBack >= 2, `${heldBack} requests held back`);
      for (const l of await loading.all()) assert.equal(await l.getAttribute("role"), "status");
      release();
      await page.locator('[data-field="newest"]').waitFor({ state: "visible", timeout: 10_000 });
      await page.locator('[data-field="checkpoint-sha256"]').waitFor({ state: "visible" });
      assert.equal(await loading.count(), 0, "the status lines are gone");
      assert.equal(await page.locator('section[aria-busy="true"]').count(), 0);
      assert.match(await page.locator("main").innerText(), /1 entry in the log\./);
    } finally {
      await browser.close();
      await svc.stop();
    }
  },
});
