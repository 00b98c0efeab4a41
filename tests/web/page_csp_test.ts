/// <reference lib="dom" />
// Issue 27 in Chromium: every HTML page the service serves works under the Content-Security-Policy
// it is served with — the page verifies a receipt and its place in the log, the vocabulary index
// is styled by its hashed inline style, the served offline verifier runs its hashed inline script
// — with not one CSP violation (reported by `securitypolicyviolation` events and the console); and
// no page can be framed (frame-ancestors 'none', X-Frame-Options: DENY).
import assert from "node:assert/strict";
import { launchChromium } from "../../fixtures/browser.ts";
import { startService } from "../../fixtures/service.ts";
import { defaultValidPositives } from "./_vectors.ts";
import { append, verifyOnPage } from "./_log_panel.ts";

/** Records CSP violations of every document the page opens (before any of its scripts run). */
const WATCH = `
  window.__cspViolations = [];
  document.addEventListener("securitypolicyviolation", (e) =>
    window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI));
`;

Deno.test("pages under their CSP in Chromium: the page verifies, nothing is blocked, no framing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-page-csp-" });
  const svc = await startService({ DATA_DIR: dir });
  const browser = await launchChromium();
  try {
    const [r0, r1] = await defaultValidPositives();
    await append(svc.url, r0);
    await append(svc.url, r1);
    const ctx = await browser.newContext();
    await ctx.addInitScript(WATCH);
    const page = await ctx.newPage();
    const console: string[] = [];
    page.on("console", (m) => {
      // (the browser's own /favicon.ico request, which no page makes, is a 404 of no concern)
      if (m.location().url.endsWith("/favicon.ico")) return;
      if (m.type() === "error" || /Content Security Policy/i.test(m.text())) console.push(m.text());
    });
    page.on("response", (r) => {
      if (r.status() >= 400) console.push(`${r.status()} ${r.url()}`);
    });
    const violations = async () =>
      await page.evaluate(() =>
        (window as unknown as { __cspViolations: string[] }).__cspViolations
      );

    // The page: it loads its script and style and verifies a logged receipt end to end.
    const res = await page.goto(svc.url + "/");
    assert.match(res!.headers()["content-security-policy"], /frame-ancestors 'none'/);
    await page.waitForSelector("html[data-ready=true]", { state: "attached" });
    const s = await verifyOnPage(page, r1, []);
    assert.equal(s.verdict, "valid");
    assert.equal(s.inclusion, "verified");
    assert.deepEqual(await violations(), [], "the page");

    // The vocabulary index: its one inline style applies (allowed by hash).
    await page.goto(svc.url + "/vocab/v1");
    const width = await page.evaluate(() => getComputedStyle(document.body).maxWidth);
    assert.equal(width, "1120px", "the hashed inline style applied");
    assert.deepEqual(await violations(), [], "/vocab/v1");

    // The offline verifier, served: its hashed inline script runs.
    await page.goto(svc.url + "/verifier.html");
    await page.waitForSelector("html[data-ready=true]", { state: "attached" });
    assert.deepEqual(await violations(), [], "/verifier.html");
    assert.deepEqual(console, [], "no CSP message nor error in the console");

    // None of them can be framed: a page that frames each gets Chromium's error page instead.
    for (const path of ["/", "/vocab/v1", "/verifier.html"]) {
      const framer = await ctx.newPage();
      await framer.setContent(`<iframe id="f" src="${svc.url}${path}"></iframe>`);
      const frame = await (await framer.waitForSelector("#f"))!.contentFrame();
      await framer.waitForTimeout(300);
      const title = await frame!.evaluate(() => document.title).catch(() => "");
      assert.ok(!frame!.url().startsWith(svc.url) || title === "", `${path} was framed: ${title}`);
      await framer.close();
    }
  } finally {
    await browser.close();
    await svc.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
