// ES256 on the edge deployment (docs/DECISIONS.md "ES256", "One entry per signed content"): the
// Worker build under real local workerd verifies ES256 receipts (WebCrypto P-256 in workerd) and
// logs the malleated (r, n − s) twin and the tagged twin of a logged ES256 receipt as no second
// entry — in the Durable Object's SQLite content index, which survives a runtime restart.
import assert from "node:assert/strict";
import { LogClient } from "../../client/mod.ts";
import { didKeyFromPublicKey, ed25519PublicKey, fromHex } from "../../verify/mod.ts";
import { es256Steward, validEs256Envelope } from "../../fixtures/app.ts";
import { malleated, resigned, retagged } from "../_twins.ts";
import { removeBundle, startWorker, TEST_LOG_KEY } from "../../fixtures/worker.ts";

const SIGNER = didKeyFromPublicKey(ed25519PublicKey(fromHex(TEST_LOG_KEY)));

async function post(base: URL, path: string, envelope: Uint8Array) {
  const res = await fetch(new URL(path, base), {
    method: "POST",
    headers: { "content-type": "application/cose", accept: "application/json" },
    body: envelope.slice(),
  });
  return { status: res.status, body: await res.json() };
}

Deno.test({
  name: "edge: ES256 receipts verify in workerd; their twins are never a second entry",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-es256-" });
    let rt = await startWorker(state);
    try {
      const e = validEs256Envelope(1);
      const v = await post(rt.url, "/v1/verify", e);
      assert.equal(v.status, 200, JSON.stringify(v.body));
      assert.equal(v.body.valid, true, JSON.stringify(v.body));
      const bad = await post(rt.url, "/v1/verify", e.map((b, i) => i === e.length - 1 ? b ^ 1 : b));
      assert.equal(bad.body.valid, false);
      assert.ok(JSON.stringify(bad.body).includes("bad-signature"));

      const first = await post(rt.url, "/v1/log/entries", e);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      for (const twin of [malleated(e), retagged(e), resigned(e, es256Steward().secret)]) {
        const r = await post(rt.url, "/v1/log/entries", twin);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.body.index, first.body.index);
        assert.equal(r.body.leaf_hash, first.body.leaf_hash);
      }
      // twins racing each other: one entry
      const e2 = validEs256Envelope(2);
      const race = await Promise.all(
        [e2, malleated(e2), retagged(e2), retagged(malleated(e2))].map((x) =>
          post(rt.url, "/v1/log/entries", x)
        ),
      );
      assert.equal(race.filter((r) => r.status === 201).length, 1, JSON.stringify(race));
      assert.equal(new Set(race.map((r) => r.body.index)).size, 1);
      const client = new LogClient(rt.url.href, SIGNER);
      assert.equal((await client.head()).size, 2);
      // the checking client accepts the answer to a twin (it checks the logged entry's content)
      const checked = await client.submit(malleated(e));
      assert.deepEqual([checked.created, checked.index], [false, first.body.index]);

      await rt.stop();
      rt = await startWorker(state);
      const after = await post(rt.url, "/v1/log/entries", retagged(malleated(e2)));
      assert.equal(after.status, 200, JSON.stringify(after.body));
      assert.equal(after.body.index, race[0].body.index);
      assert.equal((await new LogClient(rt.url.href, SIGNER).head()).size, 2);
    } finally {
      await rt.stop();
      await removeBundle();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});
