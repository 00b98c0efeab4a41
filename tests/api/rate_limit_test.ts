// Token buckets: burst, refill, Retry-After, isolation per client, bounded memory.
import assert from "node:assert/strict";
import { TokenBuckets } from "../../api/http/middleware/mod.ts";

Deno.test("rate limit: burst then refusal with the wait until the next token", () => {
  const b = new TokenBuckets({ perSecond: 2, burst: 3 });
  for (let i = 0; i < 3; i++) assert.deepEqual(b.take("a", 1000), { ok: true });
  assert.deepEqual(b.take("a", 1000), { ok: false, retryAfterMs: 500 });
  assert.deepEqual(b.take("b", 1000), { ok: true }, "other clients are unaffected");
  assert.deepEqual(b.take("a", 1250), { ok: false, retryAfterMs: 250 });
  assert.deepEqual(b.take("a", 1500), { ok: true });
  // refill is capped at burst
  for (let i = 0; i < 3; i++) assert.equal(b.take("a", 100_000).ok, true);
  assert.equal(b.take("a", 100_000).ok, false);
});

Deno.test("rate limit: perSecond 0 means unlimited", () => {
  const b = new TokenBuckets({ perSecond: 0, burst: 1 });
  for (let i = 0; i < 1000; i++) assert.equal(b.take("a", 0).ok, true);
  assert.equal(b.size, 0);
});

Deno.test("rate limit: memory stays bounded under many clients", () => {
  const b = new TokenBuckets({ perSecond: 1, burst: 5 }, 100);
  for (let i = 0; i < 10_000; i++) b.take(`c${i}`, i);
  assert.ok(b.size <= 100, `size ${b.size}`);
});

Deno.test("rate limit: long-run rate never exceeds perSecond (+ burst)", () => {
  const b = new TokenBuckets({ perSecond: 10, burst: 5 });
  let ok = 0;
  for (let t = 0; t <= 10_000; t += 7) if (b.take("x", t).ok) ok++;
  assert.ok(ok <= 10 * 10 + 5, `${ok}`);
  assert.ok(ok >= 10 * 10 - 1, `${ok}`);
});
