// End to end over HTTP against the real service (`deno task start`, fresh data dir): every
// positive conformance vector is appended (201; proof and head checked by our client), every
// resubmission answered 200 with the same index, every negative vector refused 422 with its
// code and nothing appended; entries, proofs by index and by leaf hash, and consistency between
// every pair of heads seen all check — and all of it again after a restart.
import assert from "node:assert/strict";
import { LogClient } from "../../client/mod.ts";
import type { TreeHead } from "../../log/mod.ts";
import { entryLeafHash, envelopeContentId, fromHex, toHex } from "../../verify/mod.ts";
import { ROOT, startService } from "../../fixtures/service.ts";

interface Vector {
  name: string;
  schema?: string;
  cose_sign1_hex: string;
  expected: { valid: boolean; codes: string[] };
}

async function loadVectors(): Promise<Vector[]> {
  const dir = `${ROOT}conformance/vectors`;
  const out: Vector[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (!e.isFile || !e.name.endsWith(".json") || e.name === "operator-config.json") continue;
    const doc = JSON.parse(await Deno.readTextFile(`${dir}/${e.name}`));
    if (Array.isArray(doc.vectors)) out.push(...doc.vectors);
  }
  return out.sort((a, b) => a.name < b.name ? -1 : 1);
}

Deno.test({
  name: "e2e: conformance vectors through the running service, then again after a restart",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const vectors = await loadVectors();
    // A valid meter reading is appended only through POST /v1/readings (readings-route-only),
    // which its own tests drive; on /v1/log/entries it is neither appended nor a verify failure.
    const positives = vectors.filter((v) => v.expected.valid && v.schema !== "meter-reading/1");
    const negatives = vectors.filter((v) => !v.expected.valid);
    assert.ok(positives.length >= 10, `positive vectors: ${positives.length}`);
    assert.ok(negatives.length >= 10, `negative vectors: ${negatives.length}`);
    const dataDir = await Deno.makeTempDir({ prefix: "jc-e2e-" });
    const env = {
      DATA_DIR: dataDir,
      JC_OPERATOR_CONFIG: `${ROOT}conformance/vectors/operator-config.json`,
    };
    let svc = await startService(env);
    try {
      const client = new LogClient(svc.url);
      assert.equal(await client.signer(), svc.signer);
      const heads: TreeHead[] = [await client.head()];
      const indexOf = new Map<string, number>(); // leaf hash → index
      // content identity → index: a twin (tag 18, (r, n − s)) of a logged envelope is answered with
      // that entry (docs/DECISIONS.md "One entry per signed content"); es256.json has such twins
      const byContent = new Map<string, number>();
      const contentOf = (b: Uint8Array) => toHex(envelopeContentId(b)!);
      // issue 23: the operator configuration is logged first (a verifier-config/1 entry)
      const cfg = await (await fetch(`${svc.url}/v1/verifier-config`)).json();
      assert.equal(cfg.index, 0);
      indexOf.set(toHex(entryLeafHash(await client.entryBytes(0))), 0);
      for (const v of positives) {
        const bytes = fromHex(v.cose_sign1_hex);
        const leaf = toHex(entryLeafHash(bytes));
        const a = await client.submit(bytes); // checks head signature and inclusion proof
        if (indexOf.has(leaf)) {
          assert.equal(a.created, false, `${v.name}: identical bytes are not appended twice`);
          assert.equal(a.index, indexOf.get(leaf));
        } else if (byContent.has(contentOf(bytes))) {
          assert.equal(a.created, false, `${v.name}: a twin is not appended`);
          assert.equal(a.index, byContent.get(contentOf(bytes)));
        } else {
          assert.equal(a.created, true, `${v.name}: 201`);
          assert.equal(a.index, indexOf.size, `${v.name}: next index`);
          indexOf.set(leaf, a.index);
          byContent.set(contentOf(bytes), a.index);
        }
        heads.push(a.tree_head);
      }
      // resubmission: 200, same index
      for (const v of positives) {
        const bytes = fromHex(v.cose_sign1_hex);
        const a = await client.submit(bytes);
        assert.equal(a.created, false, `${v.name}: resubmission is 200`);
        assert.equal(a.index, byContent.get(contentOf(bytes)));
      }
      const sizeBefore = (await client.head()).size;
      assert.equal(sizeBefore, indexOf.size);
      // negatives: 422 with the right code, nothing appended
      for (const v of negatives) {
        const res = await fetch(`${svc.url}/v1/log/entries`, {
          method: "POST",
          headers: { "content-type": "application/cose" },
          body: fromHex(v.cose_sign1_hex).slice(),
        });
        const p = await res.json();
        assert.equal(res.status, 422, `${v.name}: ${JSON.stringify(p)}`);
        assert.equal(res.headers.get("content-type"), "application/problem+json");
        assert.equal(p.code, v.expected.codes[0], v.name);
        assert.deepEqual(p.codes, v.expected.codes, v.name);
        assert.equal(p.report.valid, false);
      }
      assert.equal((await client.head()).size, sizeBefore, "no negative vector was appended");

      const checkAll = async (c: LogClient) => {
        const latest = await c.head();
        assert.equal(latest.size, indexOf.size);
        for (const [leaf, index] of indexOf) {
          const res = await fetch(`${c.baseUrl}/v1/log/entries/${index}`);
          const j = await res.json();
          assert.equal(res.status, 200);
          assert.equal(j.leaf_hash, leaf);
          assert.equal(toHex(entryLeafHash(fromHex(j.envelope))), leaf);
          assert.equal(toHex(entryLeafHash(await c.entryBytes(index))), leaf);
          assert.equal((await c.prove(index)).leaf_hash, leaf);
          assert.equal((await c.prove(leaf)).index, index);
        }
        for (const h of heads) assert.deepEqual(await c.headAt(h.size), h, `head ${h.size}`);
        for (const h1 of heads) {
          for (const h2 of heads) if (h1.size <= h2.size) await c.checkConsistency(h1, h2);
        }
      };
      await checkAll(client);

      // graceful restart: everything again, same key, same heads
      const st = await svc.stop("SIGTERM");
      assert.equal(st.code, 0, svc.stderr());
      svc = await startService(env);
      const again = new LogClient(svc.url);
      assert.equal(await again.signer(), await client.signer(), "same log key after restart");
      await again.checkConsistency(heads.at(-1)!, await again.head());
      await checkAll(again);
    } finally {
      await svc.stop("SIGTERM");
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
