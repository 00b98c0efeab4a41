// api/http/proof_cache.ts: the pre-joined proof JSON is byte-identical to JSON.stringify's; the LRU
// keeps at most `max` bodies and drops the least recently used; the route serves the same bytes
// from the cache as from the log, per log, with the same headers.
import assert from "node:assert/strict";
import fc from "fast-check";
import { toHex } from "../../verify/mod.ts";
import { BodyLru, inclusionProofJson, proofCacheOf } from "../../api/http/proof_cache.ts";
import { createApp, defaultConfig, Metrics } from "../../api/mod.ts";
import { openMemoryLog } from "../../log/mod.ts";

Deno.test("inclusionProofJson equals JSON.stringify of {index, size, leaf_hash, path}", () => {
  fc.assert(fc.property(
    fc.nat(),
    fc.nat(),
    fc.uint8Array({ minLength: 32, maxLength: 32 }),
    fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { maxLength: 40 }),
    (index, size, leaf, path) => {
      const leaf_hash = toHex(leaf);
      assert.equal(
        inclusionProofJson(index, size, leaf_hash, path),
        JSON.stringify({ index, size, leaf_hash, path: path.map(toHex) }),
      );
    },
  ));
});

Deno.test("BodyLru: bounded, least recently used dropped first", () => {
  const lru = new BodyLru(3);
  lru.set("a", "1");
  lru.set("b", "2");
  lru.set("c", "3");
  assert.equal(lru.get("a"), "1"); // a is now the most recent
  lru.set("d", "4"); // drops b
  assert.equal(lru.size, 3);
  assert.equal(lru.get("b"), undefined);
  assert.deepEqual(["a", "c", "d"].map((k) => lru.get(k)), ["1", "3", "4"]);
  lru.set("c", "33"); // replacing keeps the size
  assert.equal(lru.size, 3);
  assert.equal(lru.get("c"), "33");
});

Deno.test("proof route: cached answers equal fresh ones, per log, same headers", async () => {
  const config = {
    ...defaultConfig(),
    rate: { read: { perSecond: 0, burst: 1 }, write: { perSecond: 0, burst: 1 } },
  };
  const logs = [await openMemoryLog(), await openMemoryLog()];
  try {
    for (const [k, log] of logs.entries()) {
      for (let i = 0; i < 9 + k; i++) await log.append(new TextEncoder().encode(`entry ${k}/${i}`));
    }
    const apps = logs.map((log) =>
      createApp({ log, config, verifier: {}, metrics: new Metrics() })
    );
    for (const [k, app] of apps.entries()) {
      const size = 9 + k;
      for (const q of [`index=3&size=${size}`, "index=4", `index=0&size=1`]) {
        const first = await app.request(`/v1/log/proof/inclusion?${q}`);
        const again = await app.request(`/v1/log/proof/inclusion?${q}`);
        assert.equal(first.status, 200);
        assert.equal(again.status, 200);
        assert.equal(again.headers.get("content-type"), "application/json");
        assert.equal(again.headers.get("cache-control"), first.headers.get("cache-control"));
        assert.equal(first.headers.get("cache-control") !== null, q.includes("size"));
        const [a, b] = [await first.text(), await again.text()];
        assert.equal(b, a);
        const body = JSON.parse(a);
        const proof = (await logs[k].inclusionProof(body.index, body.size)).map(toHex);
        assert.deepEqual(body.path, proof);
        // By leaf hash: the same body as by index.
        const byLeaf = await app.request(
          `/v1/log/proof/inclusion?leaf_hash=${body.leaf_hash}&size=${body.size}`,
        );
        assert.equal(await byLeaf.text(), a);
      }
      assert.ok(proofCacheOf(logs[k]).size >= 3);
    }
    // The two logs differ, and so do their answers for the same (index, size).
    const [x, y] = await Promise.all(
      apps.map(async (app) =>
        await (await app.request("/v1/log/proof/inclusion?index=3&size=9")).text()
      ),
    );
    assert.notEqual(x, y);
    // Refusals stay refusals (nothing cached for them).
    const bad = await apps[0].request("/v1/log/proof/inclusion?index=9&size=9");
    assert.equal(bad.status, 400);
  } finally {
    for (const log of logs) await log.close();
  }
});
