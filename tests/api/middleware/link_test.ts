// The Link middleware (api/http/middleware/link.ts): every answer that passes through it carries
// the API documentation Link (API.md), a route's answer, a 404 and an error handler's alike, and a
// route's own Link is kept beside it.
import assert from "node:assert/strict";
import { Hono } from "hono";
import { LINK, linkHeader } from "../../../api/http/middleware/mod.ts";
import { API_DOC_LINK } from "../../../api/mod.ts";
import type { AppEnv } from "../../../api/mod.ts";

function app() {
  const a = new Hono<AppEnv>();
  a.use("*", linkHeader());
  a.get("/plain", (c) => c.text("ok"));
  a.get("/own", () => new Response("ok", { headers: { link: "</next>; rel=next" } }));
  a.get("/throws", () => {
    throw new Error("boom");
  });
  a.onError((_e, c) => c.text("handled", 500));
  return a;
}

Deno.test("link: every answer carries the documentation Link, a route's own kept", async () => {
  assert.deepEqual(LINK, ["link", API_DOC_LINK]);
  const a = app();
  for (const [path, status] of [["/plain", 200], ["/none", 404], ["/throws", 500]] as const) {
    const res = await a.request(path);
    assert.equal(res.status, status, path);
    assert.equal(res.headers.get("link"), API_DOC_LINK, path);
  }
  const own = await a.request("/own");
  assert.equal(own.headers.get("link"), `</next>; rel=next, ${API_DOC_LINK}`);
});
