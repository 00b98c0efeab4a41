/// <reference lib="dom" />
// The verification page follows the shard directory (docs/SHARDS.md, web/app/shards.ts), in
// Chromium, against real embedded services as shards behind the sharded front of
// tests/e2e/_sharded.ts: a receipt logged in the active shard and one in the frozen shard are each
// proven in their own shard (`data-shard`), with that shard's key from the signed directory; a
// receipt never logged is absent; an operator key other than the one pinned is a security warning
// and nothing is checked against it.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Page } from "playwright-core";
import { c2sp } from "../../log/mod.ts";
import { launchChromium } from "./_browser.ts";
import { startSharded } from "../e2e/_sharded.ts";
import { defaultValidPositives } from "./_vectors.ts";

async function append(url: string, env: Uint8Array): Promise<number> {
  const r = await fetch(`${url}/v1/log/entries`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: env as Uint8Array<ArrayBuffer>,
  });
  const j = await r.json();
  assert.ok(r.status === 201 || r.status === 200, `append ${r.status} ${JSON.stringify(j)}`);
  return j.index;
}

async function verifyOnPage(page: Page, env: Uint8Array): Promise<Record<string, string | null>> {
  await page.evaluate(() => {
    document.getElementById("result")!.removeAttribute("data-verdict");
    for (const a of ["data-inclusion", "data-consistency", "data-quorum", "data-shard"]) {
      document.getElementById("log-panel")!.removeAttribute(a);
    }
  });
  await page.setInputFiles("#file", {
    name: "r.cose",
    mimeType: "application/cose",
    buffer: Buffer.from(env),
  });
  await page.waitForSelector("#log-panel[data-inclusion]", { state: "attached" });
  return await page.evaluate(() => {
    const p = document.getElementById("log-panel")!;
    return {
      verdict: document.getElementById("result")!.getAttribute("data-verdict"),
      inclusion: p.getAttribute("data-inclusion"),
      shard: p.getAttribute("data-shard"),
      warning: p.querySelector("[data-warning]") ? "shown" : null,
    };
  });
}

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

      let s = await verifyOnPage(page, r1);
      assert.deepEqual(s, { verdict: "valid", inclusion: "verified", shard: "s1", warning: null });
      assert.match(await page.textContent("[data-field=shard]") ?? "", /pinned on first use/);
      s = await verifyOnPage(page, r0);
      assert.deepEqual(s, { verdict: "valid", inclusion: "verified", shard: "s0", warning: null });
      assert.match(await page.textContent("[data-field=shard]") ?? "", /Shard s0 \(frozen\) of 2/);
      s = await verifyOnPage(page, r2);
      assert.deepEqual([s.inclusion, s.shard], ["absent", "s1"]);

      // The service now names another operator key: a warning, and nothing is proven.
      fx.hooks.announce = c2sp.ed25519Vkey(fx.base, new Uint8Array(32).fill(5));
      s = await verifyOnPage(page, r1);
      assert.deepEqual([s.inclusion, s.warning], ["failed", "shown"]);
      const before = await page.textContent("[data-evidence=before]");
      assert.equal(before, fx.operatorVkey);
      fx.hooks.announce = undefined;
      s = await verifyOnPage(page, r1);
      assert.deepEqual([s.inclusion, s.warning], ["verified", null]);
      await ctx.close();
    } finally {
      await browser.close();
      await fx.close();
    }
  },
});
