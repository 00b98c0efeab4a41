// Issue 13, "Safe by construction": the committed bundle is exactly what web/build.ts makes from
// the sources (reproducible); the page has no inline script or style and loads nothing external;
// every page and asset carries the strict Content-Security-Policy; the operator's default policy
// parses as a C2SP tlog-policy.
import assert from "node:assert/strict";
import { buildAssets } from "../../web/build.ts";
import { PAGE_CSP, pageHtml, VERIFIER_CSP, VERIFIER_HTML } from "../../web/mod.ts";
import { defaultPolicy } from "../../api/http/routes/log_policy.ts";
import { c2sp } from "../../log/mod.ts";
import { testApp } from "../../fixtures/app.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("web: web/assets_gen.ts is what `deno task web:build` makes from the sources", async () => {
  const built = await buildAssets();
  const committed = await Deno.readTextFile(`${ROOT}web/assets_gen.ts`);
  assert.ok(built === committed, "web/assets_gen.ts is stale: run `deno task web:build`");
});

Deno.test("web: no inline script or style, nothing external, strict CSP on page and verifier", () => {
  const html = pageHtml("0");
  for (const m of html.matchAll(/<script\b[^>]*>/g)) assert.match(m[0], /\bsrc="\/assets\//);
  assert.doesNotMatch(html, /<style\b|\sstyle=|\son[a-z]+=/i);
  assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//);
  assert.match(PAGE_CSP, /default-src 'none'/);
  assert.match(PAGE_CSP, /script-src 'self'(;|$)/);
  // verifier.html: everything inline, allowed by hash only, no network at all.
  assert.doesNotMatch(VERIFIER_HTML, /<script\b[^>]*\bsrc=|<link\b/);
  assert.match(VERIFIER_CSP, /connect-src 'none'/);
  assert.match(VERIFIER_CSP, /script-src 'sha256-[A-Za-z0-9+/]+=*'/);
  assert.ok(VERIFIER_HTML.includes(`content="${VERIFIER_CSP}"`));
});

Deno.test("web: the page and its assets are served with the CSP and nosniff", async () => {
  const { app, log } = await testApp();
  for (const path of ["/", "/assets/app.js", "/assets/page.css", "/verifier.html"]) {
    const r = await app.request(path, { headers: { accept: "text/html" } });
    assert.equal(r.status, 200, path);
    assert.ok(r.headers.get("content-security-policy"), `${path} has a CSP`);
    assert.equal(r.headers.get("x-content-type-options"), "nosniff");
    await r.body?.cancel();
  }
  await log.close();
});

Deno.test("web: the operator's default policy is a C2SP tlog-policy", () => {
  const vkey = c2sp.ed25519Vkey("log.example/x/sha256", new Uint8Array(32).fill(1));
  const none = c2sp.parsePolicy(
    new TextEncoder().encode(defaultPolicy([{ vkey, url: "http://l" }], [])),
  );
  assert.equal(none.quorum, "none");
  assert.equal(none.logs[0].vkey, vkey);
  const w1 = c2sp.cosignatureVkey("w.example/one", new Uint8Array(32).fill(2));
  const w2 = c2sp.cosignatureVkey("w.example/two", new Uint8Array(32).fill(3));
  const p = c2sp.parsePolicy(new TextEncoder().encode(defaultPolicy([{ vkey, url: "http://l" }], [
    { url: "http://w1", vkey: w1 },
    { url: "http://w2", vkey: w2 },
  ])));
  assert.equal(p.witnesses.length, 2);
  assert.equal(p.quorum, "operator-witnesses");
  assert.equal(c2sp.quorumMet(p, new Set([p.witnesses[0].name])), false);
  assert.equal(c2sp.quorumMet(p, new Set(p.witnesses.map((w) => w.name))), true);
});
