// Issue 22's likely edge defect, settled over real local workerd (tests/edge/_worker.ts): on the
// edge, shard N's apps are built apart from the root's (edge/worker/worker.ts), so a forgotten
// `shardPrefix` would make `/shards/sN/…` publish shard 0's URLs. After two rotations (s0, s1,
// s2 frozen/active), every shard N's policy names shard N's log (its SHA-256 vkey) at shard N's
// URL, and shard N's entries are published under shard N's prefix, never the root's.
import assert from "node:assert/strict";
import { validEnvelope } from "../../fixtures/app.ts";
import { postEntry, removeBundle, startWorker } from "../../fixtures/worker.ts";
import type { EdgeRuntime } from "../../edge/mod.ts";

const PUBLIC = "https://edge.example.test";
const ADMIN = "edge-admin-token-for-tests";

Deno.test({
  name: "edge shards: shard N's policy and published URLs are shard N's",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-shard-urls-" });
    let rt: EdgeRuntime | undefined;
    try {
      rt = await startWorker(state, { JC_PUBLIC_URL: PUBLIC, JC_ADMIN_TOKEN: ADMIN });
      const base = rt.url;
      const get = (path: string, accept = "application/json") =>
        fetch(new URL(path, base), { headers: { accept } });
      const rotate = async () => {
        const r = await fetch(new URL("/v1/logs/rotate", base), {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN}` },
        });
        assert.equal(r.status, 200, await r.text());
      };
      assert.equal((await postEntry(base, validEnvelope(0))).status, 201);
      await rotate();
      assert.equal((await postEntry(base, validEnvelope(1), "/shards/s1")).status, 201);
      await rotate();
      assert.equal((await postEntry(base, validEnvelope(2), "/shards/s2")).status, 201);

      const vkeyOf = async (prefix: string) =>
        (await (await get(`${prefix}/v1/log/key`)).json()).vkeys.sha256 as string;
      const vkeys = [await vkeyOf(""), await vkeyOf("/shards/s1"), await vkeyOf("/shards/s2")];
      assert.equal(new Set(vkeys).size, 3, "three shards, three logs");
      const urls = [
        `${PUBLIC}/log/sha256`,
        ...[1, 2].map((n) => `${PUBLIC}/shards/s${n}/log/sha256`),
      ];

      for (const n of [1, 2]) {
        const prefix = `/shards/s${n}`;
        const res = await get(`${prefix}/v1/log/policy`, "text/plain");
        assert.equal(res.status, 200);
        const logs = (await res.text()).split("\n").filter((l) => l.startsWith("log "));
        // shard N's log, at shard N's URL; every listed shard at its own
        assert.ok(logs.includes(`log ${vkeys[n]} ${urls[n]}`), `${prefix}: ${logs.join(" | ")}`);
        assert.deepEqual(logs, vkeys.map((v, i) => `log ${v} ${urls[i]}`), prefix);

        // shard N's entry is published under shard N's prefix, never the root's
        const nq = await (await get(`${prefix}/v1/log/entries/0`, "application/n-quads")).text();
        assert.ok(nq.includes(`<${PUBLIC}${prefix}/v1/log/entries/0>`), `${prefix}: ${nq}`);
        assert.ok(!nq.includes(`<${PUBLIC}/v1/log/entries/0>`), `${prefix} names s0's entry`);
        const coll = await (await get(`${prefix}/v1/log/entries?start=0&limit=1`)).json();
        assert.equal(coll["@id"], `${PUBLIC}${prefix}/v1/log/entries`);
        assert.equal(coll["hydra:member"][0]["@id"], `${PUBLIC}${prefix}/v1/log/entries/0`);
      }
    } finally {
      await rt?.stop();
      await removeBundle();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});
