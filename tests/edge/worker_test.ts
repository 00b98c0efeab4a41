// The Worker build under real local workerd (issue 7 acceptance): many simultaneous submissions end
// with dense indices and verifying proofs, identical bytes are logged once, immutable answers come
// from the edge cache, errors are problem+json, and a restart of the runtime keeps everything
// (Durable Object SQLite storage). Checked with the independent checking client (client/) and
// the log core's proof verifiers, never with the Worker's own word.
import assert from "node:assert/strict";
import { LogClient } from "../../client/mod.ts";
import { blake3Hasher, verifyConsistency, verifyInclusion, verifyTreeHead } from "../../log/mod.ts";
import type { TreeHead } from "../../log/mod.ts";
import {
  blake3,
  didKeyFromPublicKey,
  ed25519PublicKey,
  entryLeafHash,
  fromHex,
  toHex,
} from "../../verify/mod.ts";
import { validEnvelope } from "../../fixtures/app.ts";
import { removeBundle, startWorker, TEST_LOG_KEY } from "../../fixtures/worker.ts";

const SIGNER = didKeyFromPublicKey(ed25519PublicKey(fromHex(TEST_LOG_KEY)));
const N = 48;

async function json(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`Cannot read answer ${res.status}: not JSON: ${text.slice(0, 300)}`);
  }
}

async function submit(base: URL, envelope: Uint8Array): Promise<Response> {
  return await fetch(new URL("/v1/log/entries", base), {
    method: "POST",
    headers: { "content-type": "application/cose", accept: "application/json" },
    body: envelope.slice(),
  });
}

Deno.test({
  name: "edge: Worker in local workerd — concurrency, dedup, caching, errors, restart",
  // The runtime (a Node process and its workerd) lives across the steps and is stopped at the end.
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-" });
    let rt = await startWorker(state);
    try {
      const client = new LogClient(rt.url.href, SIGNER);

      await t.step('empty log: signed head of BLAKE3("") by the JC_LOG_KEY secret', async () => {
        const health = await fetch(new URL("/healthz", rt.url));
        assert.equal(health.status, 200, await health.clone().text());
        await health.body?.cancel();
        const head = await client.head();
        assert.equal(head.size, 0);
        assert.equal(head.root, toHex(blake3(new Uint8Array())));
        assert.equal(head.signer, SIGNER);
        const key = await json(await fetch(new URL("/v1/log/key", rt.url)));
        assert.equal(key.signer, SIGNER);
      });

      const envelopes = Array.from({ length: N }, (_, i) => validEnvelope(1000 + i));
      const results: { index: number; leaf_hash: string; tree_head: TreeHead }[] = [];

      await t.step(
        `${N} simultaneous submissions: dense indices 0..${N - 1}, proofs verify`,
        async () => {
          const answers = await Promise.all(envelopes.map((e) => submit(rt.url, e)));
          for (const [i, res] of answers.entries()) {
            const body = await json(res);
            assert.equal(res.status, 201, JSON.stringify(body));
            assert.match(res.headers.get("location") ?? "", /\/v1\/log\/entries\/\d+$/);
            const r = body as unknown as {
              index: number;
              leaf_hash: string;
              tree_head: TreeHead;
              inclusion_proof: string[];
            };
            assert.equal(r.leaf_hash, toHex(entryLeafHash(envelopes[i])));
            assert.ok(await verifyTreeHead(r.tree_head, SIGNER), "head signature");
            assert.ok(
              verifyInclusion(
                blake3Hasher,
                r.index,
                r.tree_head.size,
                fromHex(r.leaf_hash),
                r.inclusion_proof.map(fromHex),
                fromHex(r.tree_head.root),
              ),
              `inclusion proof of ${r.index} at ${r.tree_head.size}`,
            );
            results.push(r);
          }
          assert.deepEqual(results.map((r) => r.index).sort((a, b) => a - b), [...Array(N).keys()]);
          const head = await client.head();
          assert.equal(head.size, N);
          // Every entry proves against the final head, by index (entry bytes rehashed by the client)
          // and by leaf hash.
          for (let i = 0; i < N; i += 7) await client.prove(i, N);
          await client.prove(results[3].leaf_hash);
          // Every intermediate head the appends returned is consistent with the final one.
          for (const r of results) await client.checkConsistency(r.tree_head, head);
        },
      );

      await t.step(
        "identical bytes are logged once (resubmission and a concurrent burst)",
        async () => {
          const again = await client.submit(envelopes[5]);
          assert.equal(again.created, false);
          assert.equal(again.index, results.find((r) => r.leaf_hash === again.leaf_hash)!.index);
          const fresh = validEnvelope(5000);
          const burst = await Promise.all(Array.from({ length: 8 }, () => submit(rt.url, fresh)));
          const bodies = await Promise.all(burst.map(json));
          assert.equal(burst.filter((r) => r.status === 201).length, 1);
          assert.equal(burst.filter((r) => r.status === 200).length, 7);
          assert.equal(new Set(bodies.map((b) => b.index)).size, 1);
          assert.equal((await client.head()).size, N + 1);
        },
      );

      await t.step(
        "immutable reads: long-lived Cache-Control, served from the edge cache",
        async () => {
          const url = new URL("/v1/log/entries/3", rt.url);
          const first = await fetch(url, { headers: { accept: "application/json" } });
          const firstBody = await first.text();
          assert.equal(first.status, 200);
          assert.equal(first.headers.get("cache-control"), "public, max-age=31536000, immutable");
          assert.equal(first.headers.get("x-edge-cache"), "MISS");
          const second = await fetch(url, { headers: { accept: "application/json" } });
          assert.equal(await second.text(), firstBody);
          assert.equal(second.headers.get("x-edge-cache"), "HIT");
          // Another media type is another cache key: the raw envelope, byte-exact.
          const cose = await fetch(url, { headers: { accept: "application/cose" } });
          const bytes = new Uint8Array(await cose.arrayBuffer());
          const idx3 = results.find((r) => r.index === 3)!;
          assert.equal(toHex(entryLeafHash(bytes)), idx3.leaf_hash);
          assert.equal(cose.headers.get("x-edge-cache"), "MISS");
          // A head at a fixed size and a proof for a fixed size are immutable too.
          const h = await fetch(new URL(`/v1/log/tree-heads/${N}`, rt.url));
          assert.equal(h.headers.get("cache-control"), "public, max-age=31536000, immutable");
          await h.body?.cancel();
          const p1 = await fetch(new URL(`/v1/log/proof/inclusion?index=3&size=${N}`, rt.url));
          await p1.body?.cancel();
          const p2 = await fetch(new URL(`/v1/log/proof/inclusion?index=3&size=${N}`, rt.url));
          assert.equal(p2.headers.get("x-edge-cache"), "HIT");
          await p2.body?.cancel();
          // The latest head is short-cached; what does not exist yet is never cached.
          const latest = await fetch(new URL("/v1/log/tree-head", rt.url));
          assert.equal(latest.headers.get("cache-control"), "public, max-age=1");
          await latest.body?.cancel();
          for (let i = 0; i < 2; i++) {
            const missing = await fetch(new URL("/v1/log/entries/100000", rt.url));
            assert.equal(missing.status, 404);
            assert.equal(missing.headers.get("x-edge-cache"), "MISS");
            await missing.body?.cancel();
          }
        },
      );

      await t.step("bad input: problem+json with a stable code, nothing stored", async () => {
        const before = await client.head();
        const cases: [string, RequestInit, number][] = [
          ["/v1/log/entries/abc", {}, 400],
          ["/v1/log/entries/100000", {}, 404],
          ["/v1/log/proof/inclusion?index=0&size=100000", {}, 400],
          ["/no/such/route", {}, 404],
          ["/v1/log/entries", {
            method: "POST",
            headers: { "content-type": "application/cose" },
            body: new Uint8Array([0xff, 0x00]),
          }, 422],
        ];
        for (const [path, init, status] of cases) {
          const res = await fetch(new URL(path, rt.url), init);
          const body = await json(res);
          assert.equal(
            res.status === status || (status === 422 && res.status === 400),
            true,
            `${path}: ${res.status} ${JSON.stringify(body)}`,
          );
          assert.match(res.headers.get("content-type") ?? "", /^application\/problem\+json/, path);
          assert.equal(typeof body.code, "string", path);
          assert.equal(body.status, res.status);
        }
        const after = await client.head();
        assert.equal(after.size, before.size);
        assert.equal(after.root, before.root);
      });

      await t.step("restarting the runtime keeps every entry, head and the key", async () => {
        const before = await client.head();
        const entry7 = await client.entryBytes(7);
        await rt.stop();
        rt = await startWorker(state);
        const c2 = new LogClient(rt.url.href, SIGNER);
        const after = await c2.head();
        assert.equal(after.size, before.size);
        assert.equal(after.root, before.root);
        assert.deepEqual(await c2.entryBytes(7), entry7);
        const next = await c2.submit(validEnvelope(7000));
        assert.equal(next.index, before.size);
        assert.equal(next.created, true);
        const newer = await c2.head();
        await c2.checkConsistency(before, newer);
        const cons = await json(
          await fetch(
            new URL(`/v1/log/proof/consistency?first=${before.size}&second=${newer.size}`, rt.url),
          ),
        );
        assert.ok(verifyConsistency(
          blake3Hasher,
          before.size,
          newer.size,
          (cons.path as string[]).map(fromHex),
          fromHex(before.root),
          fromHex(newer.root),
        ));
        // And the old entries still prove against the new head.
        for (const r of results.slice(0, 5)) await c2.prove(r.leaf_hash);
      });
    } finally {
      await rt.stop();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "edge: a Worker without its JC_LOG_KEY secret answers problem+json edge-config",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-nokey-" });
    const rt = await startWorker(state, { JC_LOG_KEY: "" });
    try {
      const res = await fetch(new URL("/v1/log/tree-head", rt.url));
      const body = await json(res);
      assert.equal(res.status, 500);
      assert.match(res.headers.get("content-type") ?? "", /^application\/problem\+json/);
      assert.equal(body.code, "edge-config");
      assert.match(String(body.detail), /JC_LOG_KEY/);
    } finally {
      await rt.stop();
      await Deno.remove(state, { recursive: true }).catch(() => {});
      await removeBundle();
    }
  },
});
