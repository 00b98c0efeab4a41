/// <reference lib="dom" />
// Issue 28, the page after a real rotation (docs/SHARDS.md), in Chromium against the real service
// (`deno task start`, SQLite, rotated by `POST /v1/logs/rotate`), no witnesses configured: a
// receipt of s1 meets the operator's default policy (it names every shard's log: no false
// "Witness quorum NOT met"); `/?leaf=` of an s1 entry is verified in s1; `/?index=N&shard=s1`
// opens it; the explorer lists the shards and the newest entries of both.
import assert from "node:assert/strict";
import { launchChromium } from "../../fixtures/browser.ts";
import { startService } from "../../fixtures/service.ts";
import { defaultValidPositives } from "./_vectors.ts";
import { append, verifyOnPage } from "./_log_panel.ts";

const TOKEN = "test-admin-token-0123456789";

Deno.test({
  name: "page: after a rotation, s1 receipts meet the default policy, /?leaf= and the explorer",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-page-rot-" });
    const svc = await startService({ DATA_DIR: dataDir, JC_ADMIN_TOKEN: TOKEN });
    const browser = await launchChromium();
    const [r0, r1, r2] = await defaultValidPositives();
    try {
      assert.equal(await append(svc.url, r0), 0);
      const rot = await fetch(`${svc.url}/v1/logs/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(rot.status, 200, await rot.text());
      const s1 = `${svc.url}/shards/s1`;
      assert.equal(await append(s1, r1), 0);
      assert.equal(await append(s1, r2), 1);
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto(svc.url + "/");
      await page.waitForSelector("html[data-ready=true]", { state: "attached" });

      // No false quorum warning: the default policy names s1's log, quorum none.
      let s = await verifyOnPage(page, r1, ["shard", "quorum"]);
      assert.deepEqual(s, {
        verdict: "valid",
        inclusion: "verified",
        shard: "s1",
        quorum: "met",
        warning: null,
      });
      assert.doesNotMatch(await page.textContent("[data-field=quorum]") ?? "", /NOT met/);
      s = await verifyOnPage(page, r0, ["shard", "quorum"]);
      assert.deepEqual([s.inclusion, s.shard, s.quorum], ["verified", "s0", "met"]);

      // /?leaf= of an s1 entry: found in s1, verified there.
      const leaf = (await (await fetch(`${s1}/v1/log/entries/1`)).json()).leaf_hash;
      assert.match(leaf, /^[0-9a-f]{64}$/);
      for (const link of [`/?leaf=${leaf}`, "/?index=1&shard=s1"]) {
        await page.goto(svc.url + link);
        await page.waitForSelector("#log-panel[data-inclusion]", { state: "attached" });
        const got = await page.evaluate(() => ({
          verdict: document.getElementById("result")!.getAttribute("data-verdict"),
          inclusion: document.getElementById("log-panel")!.getAttribute("data-inclusion"),
          shard: document.getElementById("log-panel")!.getAttribute("data-shard"),
        }));
        assert.deepEqual(got, { verdict: "valid", inclusion: "verified", shard: "s1" }, link);
      }

      // The explorer: both shards, the newest entries of s1 and then s0, s1's checkpoints.
      await page.goto(svc.url + "/?view=explore");
      await page.waitForSelector("[data-field=newest]", { state: "attached" });
      const rows = await page.$$eval(
        "[data-field=newest] tbody tr",
        (trs) => trs.map((tr) => [tr.getAttribute("data-shard"), tr.querySelector("a")!.href]),
      );
      assert.deepEqual(rows.map(([sh, href]) => [sh, new URL(href!).search]), [
        ["s1", "?index=1&shard=s1"],
        ["s1", "?index=0&shard=s1"],
        ["s0", "?index=0"],
      ]);
      assert.match(await page.textContent("#explore") ?? "", /3 entries in the log \(2 shards\)/);
      const shards = await page.$$eval(
        "[data-field=shards] tbody tr",
        (trs) =>
          trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 3).map((t) => t.textContent)),
      );
      assert.deepEqual(shards, [["s1", "active", "2"], ["s0", "frozen", "1"]]);
      assert.match(
        await page.textContent("[data-field=checkpoint-sha256]") ?? "",
        /\/s1\/sha256\n2\n/,
      );
      await ctx.close();
    } finally {
      await browser.close();
      await svc.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
