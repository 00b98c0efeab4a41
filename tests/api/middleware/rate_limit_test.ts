// The rate-limit middleware (api/http/middleware/rate_limit.ts) over real token buckets and a
// clock of the test's: a client over its class's burst is refused 429 `rate-limited` with
// Retry-After, counted by class; clients and classes are apart; `none` is exempt; a request a
// fast lane took the token of takes none again; the lane's own take refuses nothing itself.
import assert from "node:assert/strict";
import { RateLimiter } from "../../../api/http/middleware/mod.ts";
import { ApiError, Metrics } from "../../../api/mod.ts";

function limiter() {
  let t = 0;
  const metrics = new Metrics();
  const l = new RateLimiter(
    { read: { perSecond: 1, burst: 2 }, write: { perSecond: 2, burst: 1 } },
    metrics,
    () => t,
  );
  return { l, metrics, at: (ms: number) => t = ms };
}

const refusal = (f: () => void): ApiError => {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof ApiError);
    return e;
  }
  assert.fail("not refused");
};

Deno.test("rate limit: burst, then 429 rate-limited with Retry-After, counted by class", () => {
  const { l, metrics, at } = limiter();
  const req = () => new Request("http://x/");
  l.admit("read", "a", req());
  l.admit("read", "a", req());
  const e = refusal(() => l.admit("read", "a", req()));
  assert.equal(e.status, 429);
  assert.equal(e.code, "rate-limited");
  assert.equal(e.headers["retry-after"], "1");
  assert.match(e.message, /read rate limit/);
  assert.equal(metrics.counter("jc_rate_limited_total", { class: "read" }), 1);
  // another client, another class, the exempt class: unaffected
  l.admit("read", "b", req());
  l.admit("write", "a", req());
  for (let i = 0; i < 10; i++) l.admit("none", "a", req());
  assert.equal(refusal(() => l.admit("write", "a", req())).code, "rate-limited");
  assert.equal(metrics.counter("jc_rate_limited_total", { class: "write" }), 1);
  at(1000); // one read token back
  l.admit("read", "a", req());
  refusal(() => l.admit("read", "a", req()));
});

Deno.test("rate limit: a lane's take, and a request it admitted takes no second token", () => {
  const { l, metrics } = limiter();
  assert.equal(l.take("read", "a"), true);
  const left = new Request("http://x/");
  l.admitted(left);
  l.admit("read", "a", left); // the lane's token: none taken now
  l.admit("read", "a", new Request("http://x/")); // the second of the burst
  assert.equal(l.take("read", "a"), false, "the lane refuses nothing itself");
  assert.equal(metrics.counter("jc_rate_limited_total", { class: "read" }), 0);
  assert.equal(l.take("none", "a"), true);
  refusal(() => l.admit("read", "a", new Request("http://x/")));
});
