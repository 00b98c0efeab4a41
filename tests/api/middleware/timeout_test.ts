// The timeout middleware (api/http/middleware/timeout.ts): a handler slower than its route's time
// limit (its own, else `request_timeout_ms`) is answered 503 `timeout`; a quicker one is answered
// as it answers; the deadline also stops a body's read (408 `body-too-slow` for a slow body).
import assert from "node:assert/strict";
import { routeDeadline, timeoutOf } from "../../../api/http/middleware/mod.ts";
import { ApiError, problemResponse, readBodyLimited } from "../../../api/mod.ts";

const config = { requestTimeoutMs: 80, bodyMinRate: 0 };
const route = (timeoutMs?: number) => ({ timeoutMs });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("timeout: the route's own limit, else the service's", () => {
  assert.equal(timeoutOf(route(), config), 80);
  assert.equal(timeoutOf(route(5), config), 5);
});

Deno.test("timeout: a slow handler is 503 timeout, a quick one answers", async () => {
  const d = routeDeadline(route(), config);
  assert.equal(await d(new Request("http://x/"), () => Promise.resolve("done")), "done");
  const started = performance.now();
  const e = await d(new Request("http://x/"), async () => {
    await sleep(400);
    return "late";
  }).then(() => undefined, (e) => e);
  assert.ok(e instanceof ApiError, String(e));
  assert.equal(problemResponse(e).status, 503);
  assert.equal(e.code, "timeout");
  assert.ok(performance.now() - started < 350, "answered at the deadline, not the handler's end");
  const own = routeDeadline(route(20), config);
  await assert.rejects(own(new Request("http://x/"), () => sleep(200)), /time/i);
});

Deno.test("timeout: the deadline stops the body's read", async () => {
  const d = routeDeadline(route(60), config);
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      await sleep(20);
      c.enqueue(new Uint8Array(1));
    },
  });
  const req = new Request("http://x/", { method: "POST", body });
  const e = await d(req, () => readBodyLimited(req, 1 << 20)).then(() => undefined, (e) => e);
  assert.ok(e instanceof ApiError, String(e));
  assert.equal(e.code, "timeout");
});
