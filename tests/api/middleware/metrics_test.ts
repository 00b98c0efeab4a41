// The answer-count middleware (api/http/middleware/metrics.ts): every answer that passes through it
// is counted once by its final status, an error handler's and a 404 too.
import assert from "node:assert/strict";
import { Hono } from "hono";
import { countAnswers, statusCounter } from "../../../api/http/middleware/mod.ts";
import { Metrics } from "../../../api/mod.ts";
import type { AppEnv } from "../../../api/mod.ts";

Deno.test("metrics: each answer counted once, by its final status", async () => {
  const metrics = new Metrics();
  const a = new Hono<AppEnv>();
  a.use("*", countAnswers(statusCounter(metrics)));
  a.use("*", async (c, next) => {
    await next();
    if (c.req.path === "/rewritten") c.res = new Response(null, { status: 204 });
  });
  a.get("/ok", (c) => c.text("ok"));
  a.get("/rewritten", (c) => c.text("ok"));
  a.get("/throws", () => {
    throw new Error("boom");
  });
  a.onError((_e, c) => c.text("handled", 503));
  for (const p of ["/ok", "/ok", "/throws", "/none", "/rewritten"]) await a.request(p);
  const n = (status: number) => metrics.counter("jc_http_responses_total", { status: `${status}` });
  assert.deepEqual([n(200), n(503), n(404), n(204), n(500)], [2, 1, 1, 1, 0]);
});
