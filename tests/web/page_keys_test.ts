// The page shows a receipt's identity and key history (issue 25; docs/KEYS.md): `/?index=N` of a
// receipt whose steward has a key-event chain names the identity, its current key and its events,
// each a link to its entry. Real service, real Chromium, chains built by conformance/python/jckeys.
import assert from "node:assert/strict";
import { launchChromium } from "../../fixtures/browser.ts";
import { startService } from "../../fixtures/service.ts";
import { postTo, pyKeys } from "../e2e/_keys_http.ts";

Deno.test({
  name: "page: a receipt's identity and key history are shown",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-page-keys-" });
    const svc = await startService({ DATA_DIR: dataDir });
    const browser = await launchChromium();
    try {
      const doc = await pyKeys(["lifecycle", "5"]) as {
        identity: string;
        keys: string[];
        steps: { name: string; hex: string }[];
      };
      const step = (n: string) => doc.steps.find((s) => s.name === n)!.hex;
      const at: number[] = [];
      for (const n of ["inception", "rotation-1"]) {
        at.push((await postTo(svc.url, "/v1/keys/events", step(n))).body.index as number);
      }
      const r = await postTo(svc.url, "/v1/log/entries", step("receipt-by-new-current"));
      assert.equal(r.status, 201);
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${svc.url}/?index=${r.body.index}`);
      await page.waitForSelector("[data-field=key-history]", { state: "attached" });
      const text = await page.textContent("[data-field=identity]") ?? "";
      assert.ok(text.includes(doc.identity) && text.includes(doc.keys[1]), text);
      const links = await page.$$eval(
        "[data-field=key-history] a",
        (ls) => ls.map((l) => l.getAttribute("href")),
      );
      assert.deepEqual(links, at.map((i) => `/?index=${i}`));
    } finally {
      await browser.close();
      await svc.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
