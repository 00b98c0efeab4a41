/// <reference lib="dom" />
// Issue 13, "For people": axe-core (npm) finds no violation on the verify, result, failure and
// explorer states, in light and dark; the page works with the keyboard alone; at 360 px nothing
// overflows sideways. Screenshots of the main states are taken on every run (set
// JC_WRITE_SCREENSHOTS=1 to write them to docs/screenshots/, where the committed ones live).
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import axe from "axe-core";
import type { Page } from "playwright-core";
import { fromHex } from "../../verify/mod.ts";
import { launchChromium, shot } from "../../fixtures/browser.ts";
import { ROOT, startService } from "../../fixtures/service.ts";

const AXE_SOURCE = (axe as unknown as { source: string }).source;

async function vector(file: string, pick: (name: string) => boolean): Promise<Uint8Array> {
  const doc = JSON.parse(await Deno.readTextFile(`${ROOT}conformance/vectors/${file}.json`));
  const v = doc.vectors.find((x: { name: string }) => pick(x.name));
  return fromHex(v.cose_sign1_hex);
}

async function violations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const res = await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const r = await (globalThis as any).axe.run(document, {
      runOnly: {
        type: "tag",
        values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"],
      },
    });
    // deno-lint-ignore no-explicit-any
    return r.violations.map((v: any) =>
      `${v.id}: ${v.help} (${v.nodes.length}) ${v.nodes[0]?.html ?? ""}`
    );
  });
  return res as string[];
}

Deno.test("page: no axe violation on the verify, result, failure and explorer states, light and dark; keyboard; 360 px", async () => {
  const svc = await startService({ JC_STORE: "memory" });
  const browser = await launchChromium();
  const valid = await vector("jcr1", (n) => n.startsWith("jcr1-01"));
  const invalid = await vector("negative", (n) => n === "neg-bad-signature");
  try {
    // Log the valid receipt so the explorer has an entry.
    const r = await fetch(`${svc.url}/v1/log/entries`, {
      method: "POST",
      headers: { "content-type": "application/cose" },
      body: valid as Uint8Array<ArrayBuffer>,
    });
    assert.ok(r.status === 201 || r.status === 200, `append: ${r.status}`);
    await r.body?.cancel();
    for (const scheme of ["light", "dark"] as const) {
      const ctx = await browser.newContext({
        colorScheme: scheme,
        viewport: { width: 1100, height: 900 },
      });
      const page = await ctx.newPage();
      await page.goto(svc.url + "/");
      await page.waitForSelector("html[data-ready=true]", { state: "attached" });
      assert.deepEqual(await violations(page), [], `verify state, ${scheme}`);
      await shot(page, `verify-${scheme}`);

      await page.setInputFiles("#file", {
        name: "r.cose",
        mimeType: "application/cose",
        buffer: Buffer.from(valid),
      });
      await page.waitForSelector("#result[data-verdict=valid]", { state: "attached" });
      await page.waitForSelector("#log-panel[data-inclusion]", { state: "attached" });
      assert.deepEqual(await violations(page), [], `result state, ${scheme}`);
      await shot(page, `result-valid-${scheme}`);

      await page.setInputFiles("#file", {
        name: "bad.cose",
        mimeType: "application/cose",
        buffer: Buffer.from(invalid),
      });
      await page.waitForSelector("#result[data-verdict=invalid]", { state: "attached" });
      assert.deepEqual(await violations(page), [], `failure state, ${scheme}`);
      await shot(page, `result-invalid-${scheme}`);

      await page.goto(svc.url + "/?view=explore");
      await page.waitForSelector("[data-field=newest]", { state: "attached" });
      assert.deepEqual(await violations(page), [], `explorer state, ${scheme}`);
      await shot(page, `explorer-${scheme}`);
      await ctx.close();
    }

    // Keyboard only: Tab reaches the file input, the drop-zone button and the paste box; Enter on
    // the paste form's button verifies.
    const page = await browser.newPage();
    await page.goto(svc.url + "/");
    await page.waitForSelector("html[data-ready=true]", { state: "attached" });
    const reached = new Set<string>();
    for (let i = 0; i < 15; i++) {
      await page.keyboard.press("Tab");
      reached.add(await page.evaluate(() => document.activeElement?.id ?? ""));
    }
    for (const id of ["file", "drop", "hex", "verify-hex"]) {
      assert.ok(reached.has(id), `Tab reaches #${id}`);
    }
    await page.focus("#hex");
    await page.keyboard.insertText(
      Array.from(valid, (b) => b.toString(16).padStart(2, "0")).join(""),
    );
    await page.focus("#verify-hex");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#result[data-verdict=valid]", { state: "attached" });

    // 360 px: no sideways scrolling of the page itself.
    await page.setViewportSize({ width: 360, height: 800 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.ok(overflow <= 0, `page overflows 360 px by ${overflow} px`);
    await shot(page, "result-360px");
    await page.close();
  } finally {
    await browser.close();
    await svc.stop();
  }
});
