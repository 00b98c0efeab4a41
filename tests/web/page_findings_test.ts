// The page shows an entry's stream findings (issue 24; docs/STREAMS.md): `/?index=N` of an entry
// that forked its steward's stream lists the `stream-fork` finding and the signed head that
// integrated it; a clean entry says "No findings.". Real service, real Chromium.
import assert from "node:assert/strict";
import { launchChromium } from "../../fixtures/browser.ts";
import { startService } from "../../fixtures/service.ts";
import { chain, cidOf, jcpEnvelope } from "../_streams.ts";

async function post(url: string, e: Uint8Array<ArrayBuffer>): Promise<number> {
  const r = await fetch(`${url}/v1/log/entries`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: e,
  });
  return (await r.json()).index;
}

Deno.test({
  name: "page: an entry's stream findings and integration are shown",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-page-findings-" });
    const svc = await startService({ DATA_DIR: dataDir });
    const browser = await launchChromium();
    try {
      const c = chain(2);
      const first = await post(svc.url, c[0]);
      await post(svc.url, c[1]);
      const fork = await post(svc.url, jcpEnvelope(50, { seq: 1, prev: cidOf(c[0]) }));
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${svc.url}/?index=${fork}`);
      await page.waitForSelector("[data-field=findings]", { state: "attached" });
      const codes = await page.$$eval(
        "[data-field=findings] li",
        (ls) => ls.map((l) => l.getAttribute("data-code")),
      );
      assert.deepEqual(codes, ["stream-fork"]);
      assert.match(
        await page.textContent("[data-field=integrated-in]") ?? "",
        /signed head of size \d+/,
      );
      await page.goto(`${svc.url}/?index=${first}`);
      await page.waitForSelector("[data-field=findings]", { state: "attached" });
      assert.equal(await page.textContent("[data-field=findings]"), "No findings.");
    } finally {
      await browser.close();
      await svc.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
