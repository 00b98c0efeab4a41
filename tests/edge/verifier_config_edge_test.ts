// Issue 23 on the Worker, over real workerd: the sequencer logs the verifier-config/1 document when
// it opens (and again only when a deployment changes the rules), `GET /v1/verifier-config` names
// it, reports, append answers and entry views name it, a configuration envelope is refused on the
// public route, and no answer holds a gateway secret.
import assert from "node:assert/strict";
import { removeBundle, startWorker } from "../../fixtures/worker.ts";
import { blake3, fromHex, toHex } from "../../verify/mod.ts";

const VECTORS = new URL("../../conformance/vectors/", import.meta.url).pathname;

Deno.test({
  name: "edge: the configuration in force is logged, named and never appendable",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-vconfig-edge-" });
    const full = JSON.parse(await Deno.readTextFile(`${VECTORS}operator-config.json`));
    const jcr1 = JSON.parse(await Deno.readTextFile(`${VECTORS}jcr1.json`)).vectors;
    const answers: string[] = [];
    let worker = await startWorker(state, { JC_OPERATOR_CONFIG: JSON.stringify(full) });
    const ask = async (path: string, init?: RequestInit) => {
      const res = await fetch(`${worker.url.href.replace(/\/$/, "")}${path}`, init);
      const text = await res.text();
      answers.push(text);
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const post = (path: string, bytes: Uint8Array) =>
      ask(path, {
        method: "POST",
        headers: { "content-type": "application/cose" },
        body: bytes.slice().buffer as ArrayBuffer,
      });
    try {
      const c1 = (await ask("/v1/verifier-config")).body;
      assert.equal(c1.index, 0);
      assert.equal(c1.config.seq, 1);
      assert.deepEqual(c1.config.gateways, ["gw-core-2", "gw-edge-7"]);
      const e0 = (await ask("/v1/log/entries/0")).body;
      assert.equal(e0.schema, "verifier-config/1");
      assert.equal(toHex(blake3(fromHex(e0.envelope))), c1.digest);
      const again = await post("/v1/log/entries", fromHex(e0.envelope));
      assert.equal(again.status, 422);
      assert.equal(again.body.code, "verifier-config-not-appendable");
      const v = fromHex(jcr1[0].cose_sign1_hex);
      const rep = await post("/v1/verify", v);
      assert.deepEqual(rep.body.verifier_config, { digest: c1.digest, index: 0 });
      const app = await post("/v1/log/entries", v);
      assert.equal(app.status, 201);
      assert.deepEqual(app.body.verifier_config, { digest: c1.digest, index: 0 });
      const e1 = (await ask(`/v1/log/entries/${app.body.index}`)).body;
      assert.deepEqual(e1.verifier_config, { digest: c1.digest, index: 0 });
      await worker.stop();
      // the same rules again: nothing appended; other rules: a second entry naming the first
      worker = await startWorker(state, { JC_OPERATOR_CONFIG: JSON.stringify(full) });
      assert.equal((await ask("/v1/verifier-config")).body.index, 0);
      const size = (await ask("/v1/log/tree-head")).body.size;
      await worker.stop();
      const fewer = { ...full, reference_vectors: {} };
      worker = await startWorker(state, { JC_OPERATOR_CONFIG: JSON.stringify(fewer) });
      const c2 = (await ask("/v1/verifier-config")).body;
      assert.equal(c2.index, size);
      assert.deepEqual(c2.config.previous, { digest: c1.digest, index: 0 });
      for (const hex of Object.values(full.gateway_keys) as string[]) {
        assert.ok(!answers.some((t) => t.includes(hex)), "no answer holds a gateway secret");
      }
    } finally {
      await worker.stop();
      await removeBundle();
      await Deno.remove(state, { recursive: true });
    }
  },
});
