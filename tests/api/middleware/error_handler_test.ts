// The one error handler (api/http/errors.ts errorAnswer; issue 22): every error answer of the app
// goes through it, a front stage's exception (thrown or rejected) as a route's, with the same
// status, code, Link, security headers and count; errors are classified by their kind
// (net/error.ts), never by a class name (a look-alike by name is an internal fault).
import assert from "node:assert/strict";
import { ApiError, ConfigError, Metrics, problemResponse } from "../../../api/mod.ts";
import type { AppDeps } from "../../../api/mod.ts";
import { type FrontStage, ServiceApp } from "../../../api/http/front_door.ts";
import { LogStorageError, PushbackError, STORE_BEHIND_SIGNED_HEAD } from "../../../log/mod.ts";
import { testApp } from "../../../fixtures/app.ts";

async function answer(e: unknown): Promise<[number, string, string | null]> {
  const r = problemResponse(e);
  return [r.status, (await r.json()).code, r.headers.get("retry-after")];
}

Deno.test("error handler: kinds busy, pinned, unavailable, config; names decide nothing", async () => {
  assert.deepEqual(await answer(new PushbackError("full", 2500)), [503, "sequencer-busy", "3"]);
  assert.deepEqual(await answer(new LogStorageError(STORE_BEHIND_SIGNED_HEAD, "x")), [
    503,
    STORE_BEHIND_SIGNED_HEAD,
    null,
  ]);
  assert.deepEqual(await answer(new LogStorageError("io", "x")), [503, "storage-unavailable", "1"]);
  assert.deepEqual(await answer(new ConfigError("bad")), [500, "internal", null]);
  assert.deepEqual(await answer(new ApiError("rate-limited", "x")), [429, "rate-limited", null]);
  // look-alikes by name and fields: internal faults
  const push = Object.assign(new Error("x"), { name: "PushbackError", retryAfterMs: 5 });
  assert.deepEqual(await answer(push), [500, "internal", null]);
  const pin = Object.assign(new Error("x"), {
    name: "LogStorageError",
    code: STORE_BEHIND_SIGNED_HEAD,
  });
  assert.deepEqual(await answer(pin), [500, "internal", null]);
});

/** The app of the tests' fixtures with `stage` as its host's front stage. */
async function withStage(stage: FrontStage) {
  const { app, deps } = await testApp();
  return { app: (app as ServiceApp).host([stage]), deps: deps as AppDeps };
}

Deno.test("error handler: a stage's exception is answered as a route's, decorated and counted", async () => {
  const route = await (await testApp()).app.request("/v1/log/entries/99");
  const thrown: FrontStage = () => {
    throw new LogStorageError("io", "the disk is gone");
  };
  const rejected: FrontStage = () => Promise.reject(new Error("the stage's own fault"));
  for (
    const [stage, status, code] of [[thrown, 503, "storage-unavailable"], [
      rejected,
      500,
      "internal",
    ]] as const
  ) {
    const { app, deps } = await withStage(stage);
    const res = await app.request("/v1/log/tree-head");
    assert.equal(res.status, status);
    const p = await res.json();
    assert.equal(p.code, code);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    assert.equal(res.headers.get("link"), route.headers.get("link"));
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(res.headers.get("access-control-allow-origin"), "*", "a public route's path");
    assert.ok(!JSON.stringify(p).includes("the stage's own fault"), "the cause is never echoed");
    const m = deps.metrics as Metrics;
    assert.equal(m.counter("jc_http_responses_total", { status: String(status) }), 1);
  }
});

Deno.test("error handler: a stage that passes on is untouched; the next request is not failed", async () => {
  let n = 0;
  const { app } = await withStage((req, env, ctx, next) => {
    if (n++ === 0) throw new ApiError("bad-request", "first only");
    return next(req, env, ctx);
  });
  const first = await app.request("/v1/log/tree-head");
  assert.equal(first.status, 400);
  assert.equal((await first.json()).detail, "first only");
  assert.equal((await app.request("/v1/log/tree-head")).status, 200);
});
