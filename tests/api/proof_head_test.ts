// A proof asked for at a size between signed heads (SPEC §22.2: only signed roots are proven to)
// is 404 problem+json `head-not-found`, never a 500; the signed sizes around it still answer.
import assert from "node:assert/strict";
import { createApp, defaultConfig, Metrics } from "../../api/mod.ts";
import { openMemoryLog } from "../../log/mod.ts";

Deno.test("proofs at a size with no signed head: 404 head-not-found (inclusion and consistency)", async () => {
  const config = {
    ...defaultConfig(),
    rate: { read: { perSecond: 0, burst: 1 }, write: { perSecond: 0, burst: 1 } },
  };
  const log = await openMemoryLog({ batchMax: 64, batchAgeMs: 50 });
  try {
    const enc = new TextEncoder();
    await log.append(enc.encode("entry 0"));
    // one batch: sizes 2..4 are never signed
    await Promise.all([1, 2, 3, 4].map((i) => log.append(enc.encode(`entry ${i}`))));
    assert.equal((await log.latestHead()).size, 5);
    assert.equal(await log.headAt(3), undefined, "the test needs a size with no signed head");
    const app = createApp({ log, config, verifier: {}, metrics: new Metrics() });
    for (
      const path of [
        "/v1/log/proof/inclusion?index=1&size=3",
        "/v1/log/proof/consistency?first=1&second=3",
      ]
    ) {
      const r = await app.request(path);
      assert.equal(r.status, 404, path);
      assert.equal(r.headers.get("content-type"), "application/problem+json");
      const p = await r.json();
      assert.equal(p.code, "head-not-found");
      assert.match(p.detail, /no signed head at size 3/);
      // every route the answer sends the reader to exists (it once named GET /v1/log/tree-heads)
      const routes = [...p.detail.matchAll(/GET (\/v1\/[^\s),;]+)/g)].map((m) => m[1]);
      assert.deepEqual(routes, ["/v1/log/tree-head", "/v1/log/tree-heads/{size}"], p.detail);
      const latest = await app.request("/v1/log/tree-head");
      assert.equal(latest.status, 200);
      await latest.body?.cancel();
      const at3 = await app.request("/v1/log/tree-heads/3");
      assert.equal(at3.status, 404, "the size has no head: the route says so");
      await at3.body?.cancel();
      const at5 = await app.request("/v1/log/tree-heads/5");
      assert.equal(at5.status, 200);
      await at5.body?.cancel();
    }
    for (
      const path of [
        "/v1/log/proof/inclusion?index=1&size=5",
        "/v1/log/proof/inclusion?index=0&size=1",
        "/v1/log/proof/consistency?first=1&second=5",
      ]
    ) {
      const r = await app.request(path);
      assert.equal(r.status, 200, `${path}: ${await r.clone().text()}`);
      await r.body?.cancel();
    }
  } finally {
    await log.close();
  }
});
