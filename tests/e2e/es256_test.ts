// ES256 on the embedded deployment over real HTTP (docs/DECISIONS.md "ES256", "One entry per
// signed content"): the service, started as `deno task start` on 127.0.0.1, verifies an ES256
// receipt, logs it once, and answers its malleated (r, n − s) twin, its tagged twin and a fresh
// signature by the key holder with the logged entry (200, same index and leaf hash), on the SQLite
// store (also after a restart) and on the memory store. The checking client accepts those answers.
import assert from "node:assert/strict";
import { LogClient } from "../../client/mod.ts";
import { es256Steward, validEs256Envelope } from "../../fixtures/app.ts";
import { highS, malleated, resigned, retagged } from "../_twins.ts";
import { startService } from "../../fixtures/service.ts";

async function post(url: string, path: string, envelope: Uint8Array) {
  const res = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/cose", accept: "application/json" },
    body: envelope.slice(),
  });
  return { status: res.status, body: await res.json() };
}

async function twinsAreOneEntry(url: string, signer: string, n: number): Promise<number> {
  const e = validEs256Envelope(n);
  const v = await post(url, "/v1/verify", e);
  assert.equal(v.body.valid, true, JSON.stringify(v.body));
  const m = malleated(e);
  assert.equal((await post(url, "/v1/verify", m)).body.valid, true); // the twin is valid too
  assert.notEqual(highS(e), highS(m));
  const first = await post(url, "/v1/log/entries", e);
  assert.equal(first.status, 201, JSON.stringify(first.body));
  for (const twin of [m, retagged(e), retagged(m), resigned(e, es256Steward().secret)]) {
    const r = await post(url, "/v1/log/entries", twin);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.index, first.body.index);
    assert.equal(r.body.leaf_hash, first.body.leaf_hash);
  }
  const client = new LogClient(url, signer);
  const checked = await client.submit(m);
  assert.deepEqual([checked.created, checked.index], [false, first.body.index]);
  return first.body.index;
}

Deno.test({
  name: "e2e: ES256 twins are one entry (SQLite store, across a restart)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-es256-" });
    let svc = await startService({ DATA_DIR: dataDir });
    try {
      const i1 = await twinsAreOneEntry(svc.url, svc.signer, 1);
      const i2 = await twinsAreOneEntry(svc.url, svc.signer, 2);
      assert.deepEqual([i1, i2], [0, 1]);
      // the sequencer's per-phase CPU clock (api/deno/main.ts threadCpuClock) reads this thread's time
      const metrics = await (await fetch(svc.url + "/metrics")).text();
      const seq = /^jc_sequencer_cpu_seconds_total\{phase="sequence"\} ([\d.e+-]+)$/m.exec(metrics);
      assert.ok(seq && Number(seq[1]) > 0, metrics);
      await svc.stop();
      svc = await startService({ DATA_DIR: dataDir });
      const again = await post(svc.url, "/v1/log/entries", malleated(validEs256Envelope(1)));
      assert.deepEqual([again.status, again.body.index], [200, 0]);
      assert.equal((await new LogClient(svc.url, svc.signer).head()).size, 2);
    } finally {
      await svc.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "e2e: ES256 twins are one entry (memory store)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const svc = await startService({ JC_STORE: "memory" });
    try {
      await twinsAreOneEntry(svc.url, svc.signer, 3);
      assert.equal((await new LogClient(svc.url, svc.signer).head()).size, 1);
    } finally {
      await svc.stop();
    }
  },
});
