/// <reference lib="dom" />
// Issue 13: verifier.html is one self-contained file: saved to disk and opened from file:// with
// every network request blocked, it verifies a receipt and its c2sp.org/tlog-proof@v1 against the
// pasted log key; a wrong key or a proof for another entry is refused.
import assert from "node:assert/strict";
import { toHex } from "../../verify/mod.ts";
import { launchChromium } from "../../fixtures/browser.ts";
import { startService } from "../../fixtures/service.ts";
import { defaultValidPositives } from "./_vectors.ts";

Deno.test("verifier.html from file:// verifies a receipt and its tlog-proof with no network", async () => {
  const svc = await startService({ JC_STORE: "memory", JC_LOG_NAME: "offline.test/log" });
  const browser = await launchChromium();
  const dir = await Deno.makeTempDir({ prefix: "jc-offline-" });
  try {
    const envs = (await defaultValidPositives()).slice(0, 3);
    for (const e of envs) {
      const r = await fetch(`${svc.url}/v1/log/entries`, {
        method: "POST",
        headers: { "content-type": "application/cose" },
        body: e as Uint8Array<ArrayBuffer>,
      });
      assert.ok(r.ok, `append ${r.status}`);
      await r.body?.cancel();
    }
    const key = await (await fetch(`${svc.url}/v1/log/key`)).json();
    const vkey: string = key.vkeys.blake3;
    const proofRes = await fetch(`${svc.url}/v1/log/proof/tlog-proof?index=1&view=blake3`);
    assert.equal(proofRes.status, 200);
    const proof = await proofRes.text();
    const html = await (await fetch(`${svc.url}/verifier.html`)).text();
    const file = `${dir}/verifier.html`;
    await Deno.writeTextFile(file, html);

    const ctx = await browser.newContext();
    const requests: string[] = [];
    await ctx.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith("file:")) return route.continue();
      requests.push(url);
      return route.abort();
    });
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await page.goto(`file://${file}`);
    await page.waitForSelector("html[data-ready=true]", { state: "attached" });

    const run = async (envHex: string, proofText: string, trust: string) => {
      await page.evaluate(() => {
        document.getElementById("result")!.removeAttribute("data-verdict");
        document.getElementById("log-panel")!.removeAttribute("data-inclusion");
      });
      await page.fill("#hex", envHex);
      await page.fill("#proof", proofText);
      await page.fill("#trust", trust);
      await page.click("#run");
      await page.waitForSelector("#log-panel[data-inclusion]", { state: "attached" });
      const why = await page.textContent("#log-body");
      return {
        verdict: await page.getAttribute("#result", "data-verdict"),
        inclusion: `${await page.getAttribute("#log-panel", "data-inclusion")}`,
        why,
      };
    };
    const ok = await run(toHex(envs[1]), proof, vkey);
    assert.deepEqual([ok.verdict, ok.inclusion], ["valid", "verified"], ok.why ?? "");
    // The proof of entry 1 does not prove entry 0.
    assert.equal((await run(toHex(envs[0]), proof, vkey)).inclusion, "failed");
    // Another key does not verify the checkpoint.
    const other = vkey.replace(/\+[0-9a-f]{8}\+/, "+00000000+");
    assert.equal((await run(toHex(envs[1]), proof, other)).inclusion, "failed");
    assert.deepEqual(requests, [], "verifier.html made network requests");
    assert.deepEqual(errors, []);
    await ctx.close();
  } finally {
    await browser.close();
    await svc.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
