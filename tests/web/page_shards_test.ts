/// <reference lib="dom" />
// The verification page follows the shard directory (docs/SHARDS.md, web/app/shards.ts), in
// Chromium, against real embedded services as shards behind the sharded front of
// tests/e2e/_sharded.ts: a receipt logged in the active shard and one in the frozen shard are each
// proven in their own shard (`data-shard`), with that shard's key from the signed directory; a
// receipt never logged is absent; an operator key other than the one pinned is a security warning
// and nothing is checked against it.
import assert from "node:assert/strict";
import { c2sp } from "../../log/mod.ts";
import { launchChromium } from "../../fixtures/browser.ts";
import { startSharded } from "../e2e/_sharded.ts";
import { defaultValidPositives } from "./_vectors.ts";
import { append, verifyOnPage } from "./_log_panel.ts";

Deno.test({
  name: "page: a receipt is proven in the shard that holds it; another operator key warns",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const fx = await startSharded(2, "page.shards/log");
    const browser = await launchChromium();
    const [r0, r1, r2] = await defaultValidPositives();
    try {
      assert.equal(await append(fx.url, r0), 0);
      await fx.rotate(); // s0 frozen, s1 active
      assert.equal(await append(`${fx.url}/shards/s1`, r1), 0);
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto(fx.url + "/");
      await page.waitForSelector("html[data-ready=true]", { state: "attached" });

      let s = await verifyOnPage(page, r1, ["shard"]);
      assert.deepEqual(s, { verdict: "valid", inclusion: "verified", shard: "s1", warning: null });
      assert.match(await page.textContent("[data-field=shard]") ?? "", /pinned on first use/);
      s = await verifyOnPage(page, r0, ["shard"]);
      assert.deepEqual(s, { verdict: "valid", inclusion: "verified", shard: "s0", warning: null });
      assert.match(await page.textContent("[data-field=shard]") ?? "", /Shard s0 \(frozen\) of 2/);
      s = await verifyOnPage(page, r2, ["shard"]);
      assert.deepEqual([s.inclusion, s.shard], ["absent", "s1"]);

      // The service now names another operator key: a warning, and nothing is proven.
      fx.hooks.announce = c2sp.ed25519Vkey(fx.base, new Uint8Array(32).fill(5));
      s = await verifyOnPage(page, r1, ["shard"]);
      assert.deepEqual([s.inclusion, s.warning], ["failed", "shown"]);
      const before = await page.textContent("[data-evidence=before]");
      assert.equal(before, fx.operatorVkey);
      fx.hooks.announce = undefined;
      s = await verifyOnPage(page, r1, ["shard"]);
      assert.deepEqual([s.inclusion, s.warning], ["verified", null]);
      await ctx.close();
    } finally {
      await browser.close();
      await fx.close();
    }
  },
});
