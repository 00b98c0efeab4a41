// The CORS middleware (api/http/middleware/cors.ts): a public route's answers (and a 404/405 on a
// public route's path) carry Access-Control-Allow-Origin and the exposed headers, the others do
// not; the preflight names the path's methods, and a path that is no resource is 404.
import assert from "node:assert/strict";
import { Hono } from "hono";
import { CORS, corsHeaders, CorsRoutes, preflight } from "../../../api/http/middleware/mod.ts";
import type { AppEnv } from "../../../api/mod.ts";

const route = (method: "GET" | "POST", path: string, cors: boolean) => ({ method, path, cors });
const ROUTES = [
  route("GET", "/public/:id", true),
  route("POST", "/public/:id", true),
  route("GET", "/private", false),
];

function app() {
  const routes = new CorsRoutes(ROUTES);
  const a = new Hono<AppEnv>();
  a.use("*", corsHeaders(routes));
  a.options("*", preflight(routes));
  for (const r of ROUTES) {
    a.on(r.method, r.path, (c) => {
      c.set("cors", r.cors);
      return c.text("ok");
    });
  }
  a.onError((e, c) => c.text(e.message, 404));
  return a;
}

Deno.test("cors: public routes' answers carry it, private ones' do not", async () => {
  const a = app();
  const pub = await a.request("/public/7");
  for (const [k, v] of CORS) assert.equal(pub.headers.get(k), v);
  assert.equal(pub.headers.get("access-control-expose-headers")?.includes("Retry-After"), true);
  const priv = await a.request("/private");
  assert.equal(priv.status, 200);
  assert.equal(priv.headers.get("access-control-allow-origin"), null);
  // no route matched: the path decides (a DELETE on a public path is still public)
  assert.equal(
    (await a.request("/public/7", { method: "DELETE" })).headers
      .get("access-control-allow-origin"),
    "*",
  );
  assert.equal((await a.request("/nowhere")).headers.get("access-control-allow-origin"), null);
});

Deno.test("cors: the preflight names the methods; no resource is 404", async () => {
  const a = app();
  const pre = await a.request("/public/7", { method: "OPTIONS" });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get("allow"), "GET, HEAD, POST, OPTIONS");
  assert.equal(pre.headers.get("access-control-allow-methods"), "GET, HEAD, POST, OPTIONS");
  assert.equal(pre.headers.get("access-control-allow-headers"), "Content-Type, Accept");
  assert.equal(pre.headers.get("access-control-max-age"), "86400");
  const priv = await a.request("/private", { method: "OPTIONS" });
  assert.equal(priv.status, 204);
  assert.equal(priv.headers.get("allow"), "GET, HEAD, OPTIONS");
  assert.equal(priv.headers.get("access-control-allow-methods"), null);
  const none = await a.request("/nowhere", { method: "OPTIONS" });
  assert.equal(none.status, 404);
  assert.match(await none.text(), /no such resource/);
});
