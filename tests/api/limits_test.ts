// withTimeout (api/http/limits.ts): one shared timer serves every request's deadline; each request
// still gets its own answer, in time, with 503 `timeout` on expiry, and no timer outlives the
// requests (Deno.test's sanitizers fail the test on a leaked timer).
import assert from "node:assert/strict";
import { withTimeout } from "../../api/mod.ts";
import { ApiError } from "../../api/http/errors.ts";

const after = <T>(ms: number, v: T) => new Promise<T>((r) => setTimeout(() => r(v), ms));

Deno.test("withTimeout: results, errors and expiries each reach their own request", async () => {
  const t0 = performance.now();
  const out = await Promise.allSettled([
    withTimeout(after(5, "fast"), 200),
    withTimeout(after(300, "slow"), 40), // expires
    withTimeout(Promise.reject(new Error("boom")), 200),
    withTimeout(after(10, "other limit"), 1000),
    withTimeout(new Promise(() => {}), 80), // never settles: expires
    withTimeout(after(60, "x"), 20), // expires before it resolves
  ]);
  assert.deepEqual(out[0], { status: "fulfilled", value: "fast" });
  assert.equal(out[3].status, "fulfilled");
  assert.equal((out[2] as PromiseRejectedResult).reason.message, "boom");
  for (const k of [1, 4, 5]) {
    const e = (out[k] as PromiseRejectedResult).reason;
    assert.ok(e instanceof ApiError, `request ${k}`);
    assert.equal(e.code, "timeout");
    assert.match(e.message, /ran past (40|80|20) ms/);
  }
  assert.ok(performance.now() - t0 < 290, "answered by the expiries, not by the slow work");
  await after(300, 0); // the slow work finishes; nothing else is left pending
});

Deno.test("withTimeout: deadlines expire in order across many requests and limits", async () => {
  const order: number[] = [];
  const never = new Promise<never>(() => {});
  const limits = [50, 10, 30, 20, 40];
  await Promise.all(
    limits.map((ms) => withTimeout(never, ms).catch(() => order.push(ms))),
  );
  assert.deepEqual(order, [10, 20, 30, 40, 50]);
  // 2,000 quick requests finish long before their deadlines and leave no timer behind.
  const rs = await Promise.all(
    Array.from({ length: 2000 }, (_, i) => withTimeout(Promise.resolve(i), 10_000)),
  );
  assert.equal(rs[1999], 1999);
});
