// The security-headers middleware (api/http/middleware/security_headers.ts, issue 27): nosniff on
// every answer; on HTML, framing refused and a CSP (the route's own kept, else one that allows
// nothing); an answer with immutable headers is copied, not failed.
import assert from "node:assert/strict";
import { Hono } from "hono";
import { HTML_FALLBACK_CSP, secured, securityHeaders } from "../../../api/http/middleware/mod.ts";
import type { AppEnv } from "../../../api/mod.ts";

Deno.test("security headers: nosniff everywhere, framing and CSP on HTML", async () => {
  const a = new Hono<AppEnv>();
  a.use("*", securityHeaders());
  a.get("/json", (c) => c.json({}));
  a.get("/html", (c) => c.html("<p>hi</p>"));
  a.get(
    "/own",
    (c) => c.html("<p>hi</p>", 200, { "content-security-policy": "default-src 'self'" }),
  );
  const json = await a.request("/json");
  assert.equal(json.headers.get("x-content-type-options"), "nosniff");
  assert.equal(json.headers.get("x-frame-options"), null);
  assert.equal(json.headers.get("content-security-policy"), null);
  const html = await a.request("/html");
  assert.equal(html.headers.get("x-content-type-options"), "nosniff");
  assert.equal(html.headers.get("x-frame-options"), "DENY");
  assert.equal(html.headers.get("content-security-policy"), HTML_FALLBACK_CSP);
  assert.equal(
    (await a.request("/own")).headers.get("content-security-policy"),
    "default-src 'self'",
  );
  assert.equal((await a.request("/none")).headers.get("x-content-type-options"), "nosniff");
});

Deno.test("security headers: an answer whose headers are immutable is copied", () => {
  const res = secured(Response.redirect("http://x/elsewhere", 302));
  assert.equal(res.status, 302);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  assert.equal(res.headers.get("location"), "http://x/elsewhere");
});
