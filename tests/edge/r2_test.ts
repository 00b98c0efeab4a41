// The edge at internet scale (issue 12; docs/EDGE.md "R2", "Batchers", "Faults"), in real local
// workerd with a local R2 bucket: the published log is in R2 and passes the full independent
// check; reads never touch a Durable Object (the sequencer's own call count across a read-only
// run); exactly-once beyond the sequencer's dedup window (R2's index segments); the
// sequencer's SQLite is pruned; checkpoints at most once a second. Faults injected through the
// test hooks: R2 puts failing mid-round, the sequencer restarted after each step of a round, a
// batcher lost with appends pending — each ends with the full check.
import assert from "node:assert/strict";
import { validEnvelope } from "../../fixtures/app.ts";
import { retagged } from "../_twins.ts";
import { hook, postEntry, removeBundle, startWorker } from "../../fixtures/worker.ts";
import { checkPublished } from "./_published_check.ts";
import type { EdgeRuntime } from "../../edge/mod.ts";

const post = (base: URL, bytes: Uint8Array) => postEntry(base, bytes);

// deno-lint-ignore no-explicit-any
const seqStats = async (base: URL): Promise<any> => (await hook(base, "/__edge/stats")).sequencer;

/** Appends `envs` concurrently; every one must be acknowledged; records index → bytes. */
async function appendAll(base: URL, envs: Uint8Array[], acked: Map<number, Uint8Array>) {
  const answers = await Promise.all(envs.map((e) => post(base, e)));
  answers.forEach((a, k) => {
    // 201: logged now; 200: already logged (the original index).
    assert.ok(a.status === 201 || a.status === 200, JSON.stringify(a.body));
    acked.set(a.body.index!, envs[k]);
  });
  return answers;
}

Deno.test({
  name: "edge R2: published log, reads without Durable Objects, exactly-once, bounded SQLite",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-r2-" });
    let rt: EdgeRuntime = await startWorker(state, { JC_EDGE_DEDUP_WINDOW: "256" });
    const acked = new Map<number, Uint8Array>();
    try {
      const envs = Array.from({ length: 700 }, (_, k) => validEnvelope(120_000 + k));
      await t.step("700 appends through 8 batchers: all in R2, full check", async () => {
        for (let k = 0; k < envs.length; k += 100) {
          await appendAll(rt.url, envs.slice(k, k + 100), acked);
        }
        assert.equal(acked.size, 700);
        const pub = await checkPublished(rt.url, acked);
        assert.equal(pub.size, 700);
        const s = await seqStats(rt.url);
        assert.equal(s.appends, 700);
        // Batched: far fewer sequencer calls than appends.
        assert.ok(s.calls < 700 / 2, `sequencer calls ${s.calls} for 700 appends`);
      });

      await t.step("a read-only run makes zero Durable Object calls", async () => {
        // Fresh runtime: cold isolate, cold caches; the sequencer reopens (its own replay).
        await rt.stop();
        rt = await startWorker(state, { JC_EDGE_DEDUP_WINDOW: "256" });
        const before = (await seqStats(rt.url)).calls;
        const size = 700;
        const paths = [
          "/v1/log/tree-head",
          `/v1/log/tree-heads/${size}`,
          "/log/blake3/checkpoint",
          "/log/sha256/checkpoint",
          "/log/blake3/tile/0/000",
          "/log/sha256/tile/0/002.p/188",
          "/log/blake3/tile/1/000.p/2",
          "/log/blake3/tile/entries/001",
          "/log/sha256/tile/entries/002.p/188",
          "/v1/log/entries/5",
          "/v1/log/entries/699",
          `/v1/log/proof/inclusion?index=3&size=${size}`,
          `/v1/log/proof/inclusion?index=650&size=${size}`,
          `/v1/log/proof/consistency?first=100&second=${size}`,
          "/v1/log/key",
          "/v1/logs", // the signed shard directory (docs/SHARDS.md): from R2 too
        ];
        for (const p of paths) {
          const res = await fetch(new URL(p, rt.url), { headers: { accept: "application/json" } });
          await res.arrayBuffer();
          assert.equal(res.status, 200, p);
        }
        const leaf = await (await fetch(new URL("/v1/log/entries/7", rt.url), {
          headers: { accept: "application/json" },
        })).json();
        assert.ok(leaf);
        await checkPublished(rt.url, acked);
        const after = (await seqStats(rt.url)).calls;
        assert.equal(after - before, 1, "only the stats call itself reached the sequencer");
      });

      await t.step(
        "exactly-once past the dedup window: an early entry keeps its index",
        async () => {
          // The 100 appends of a group race through 8 batchers: envs[0] has whatever index it got.
          const indexOf = (e: Uint8Array) => [...acked].find(([, b]) => b === e)![0];
          const first = indexOf(envs[0]);
          assert.ok(first < 100, `envs[0] was logged in the first group (index ${first})`);
          const before = (await seqStats(rt.url)).storage;
          const again = await post(rt.url, envs[0]);
          assert.equal(again.status, 200, "already logged");
          assert.equal(again.body.index, first);
          const after = (await seqStats(rt.url)).storage;
          assert.ok(after.r2Gets > before.r2Gets, "found through R2's index segment");
          // One signed content, other bytes (a tagged twin), past the window: the original index,
          // through R2's index segment, by its content identity (docs/DECISIONS.md).
          const twin = await post(rt.url, retagged(envs[0]));
          assert.equal(twin.status, 200, JSON.stringify(twin.body));
          assert.equal(twin.body.index, first);
          const at = indexOf(envs[690]);
          const recent = await post(rt.url, envs[690]);
          assert.equal(recent.status, 200);
          assert.equal(recent.body.index, at);
        },
      );

      await t.step("the sequencer's SQLite holds a bounded window, not the log", async () => {
        const small = (await seqStats(rt.url)).databaseBytes;
        const more = Array.from({ length: 600 }, (_, k) => validEnvelope(130_000 + k));
        for (let k = 0; k < more.length; k += 100) {
          await appendAll(rt.url, more.slice(k, k + 100), acked);
        }
        const big = (await seqStats(rt.url)).databaseBytes;
        // 600 more entries (~1 KB each) would add ~600 KB if kept; the window keeps it flat.
        assert.ok(big < small + 300_000, `SQLite ${small} → ${big} bytes`);
        await checkPublished(rt.url, acked);
      });
    } finally {
      await rt.stop();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "edge R2: checkpoints at most once a second, the latest one follows",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-r2cp-" });
    const vars = { JC_EDGE_CHECKPOINT_MS: "1000", JC_EDGE_BATCHERS: "0" };
    let rt = await startWorker(state, vars);
    try {
      const acked = new Map<number, Uint8Array>();
      const t0 = performance.now();
      for (let k = 0; k < 30; k++) await appendAll(rt.url, [validEnvelope(140_000 + k)], acked);
      const seconds = (performance.now() - t0) / 1000;
      const s = await seqStats(rt.url);
      assert.ok(s.storage.rounds >= 30, `rounds ${s.storage.rounds}`);
      assert.ok(
        s.storage.checkpointPuts <= Math.ceil(seconds) + 2,
        `${s.storage.checkpointPuts} checkpoint writes in ${seconds.toFixed(1)} s`,
      );
      await new Promise((r) => setTimeout(r, 1500)); // the held-back checkpoint goes out
      const pub = await checkPublished(rt.url, acked);
      assert.equal(pub.size, 30);
      // Held back, then the object is gone (the runtime stops at once, its timer with it): the
      // Durable Object alarm publishes it, with no request reaching the sequencer.
      await appendAll(rt.url, [validEnvelope(140_100)], acked);
      await appendAll(rt.url, [validEnvelope(140_101)], acked);
      const held = await (await fetch(new URL("/log/blake3/checkpoint", rt.url))).text();
      await rt.stop();
      rt = await startWorker(state, vars);
      await new Promise((r) => setTimeout(r, 2500));
      const after = await checkPublished(rt.url, acked); // R2 through the Worker only
      const calls = (await seqStats(rt.url)).calls;
      assert.equal(after.size, 32, `held back at ${held.split("\n")[1]}; published by the alarm`);
      assert.equal(calls, 1, "only the stats call reached the sequencer: the alarm published it");
    } finally {
      await rt.stop();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "edge R2 faults: R2 failing mid-round, sequencer restarts at every step, batcher lost",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-r2f-" });
    const rt = await startWorker(state, {
      JC_EDGE_BATCH_AGE_MS: "20",
      JC_EDGE_DEDUP_WINDOW: "256",
    });
    const acked = new Map<number, Uint8Array>();
    let n = 150_000;
    const fresh = (k: number) => Array.from({ length: k }, () => validEnvelope(n++));
    try {
      await appendAll(rt.url, fresh(20), acked);

      await t.step("R2 failing mid-round: no append answered, nothing half-published", async () => {
        const cp = await (await fetch(new URL("/log/blake3/checkpoint", rt.url))).text();
        await hook(rt.url, "/__edge/faults", { r2FailAfterPuts: 3, r2FailPuts: 1_000_000 });
        const envs = fresh(5);
        const answers = await Promise.all(envs.map((e) => post(rt.url, e)));
        // Every round fails at its 4th put: no append is answered.
        for (const a of answers) assert.equal(a.status, 503, JSON.stringify(a.body));
        // The published checkpoint did not move, and what it covers is whole.
        assert.equal(await (await fetch(new URL("/log/blake3/checkpoint", rt.url))).text(), cp);
        await checkPublished(rt.url, acked);
        await hook(rt.url, "/__edge/faults", {});
        // The round is retried (replayed) before the next one: the retries land once.
        const again = await appendAll(rt.url, envs, acked);
        assert.deepEqual(
          again.map((a) => a.body.index).sort((a, b) => a! - b!),
          [20, 21, 22, 23, 24],
        );
        await checkPublished(rt.url, acked);
        const s = await seqStats(rt.url);
        assert.ok(s.storage.replays >= 1, "the staged round was replayed");
      });

      for (const step of ["staged", "uploaded", "head", "checkpoint", "published"]) {
        await t.step(`sequencer restarted after "${step}": nothing acknowledged lost`, async () => {
          await hook(rt.url, "/__edge/faults", { crashAt: step });
          const envs = fresh(3);
          const answers = await Promise.all(envs.map((e) => post(rt.url, e)));
          // The restart happens before any answer of its round: those callers get errors. The
          // batchers may have split the three into rounds: a later round, on the restarted
          // object, answers — an acknowledgement the full check below holds it to.
          answers.forEach((a, k) => {
            if (a.status === 201) acked.set(a.body.index!, envs[k]);
            else assert.equal(a.status, 503, `${step}: ${JSON.stringify(a.body)}`);
          });
          assert.ok(answers.some((a) => a.status === 503), `${step}: the crashed round's callers`);
          const again = await appendAll(rt.url, envs, acked);
          const size = (await checkPublished(rt.url, acked)).size;
          assert.equal(size, acked.size, "dense: every sequenced entry was acknowledged once");
          assert.equal(new Set(again.map((a) => a.body.index)).size, 3);
        });
      }

      await t.step("batcher lost with appends pending: errors, never false acks", async () => {
        await hook(rt.url, "/__edge/faults", { target: "batchers", batcherCrash: true });
        const envs = fresh(8);
        const answers = await Promise.all(envs.map((e) => post(rt.url, e)));
        answers.forEach((a, k) => {
          // An answer is either an error or the sequencer's own (a batcher that was not lost).
          if (a.status === 201) acked.set(a.body.index!, envs[k]);
          else assert.equal(a.status, 503, JSON.stringify(a.body));
        });
        assert.ok(answers.some((a) => a.status === 503), "a lost batcher's callers got errors");
        // Batchers that got no append still hold the fault: clear it, then retry.
        await hook(rt.url, "/__edge/faults", { target: "batchers", batcherCrash: false });
        await appendAll(rt.url, envs, acked);
        const pub = await checkPublished(rt.url, acked);
        assert.equal(pub.size, acked.size, "each retry landed once");
      });

      await t.step(
        "restarted in a round that completes a block, then past the window: original indices",
        async () => {
          const early = [...acked].sort((a, b) => a[0] - b[0])[3];
          for (let k = 0; k < 7; k++) await appendAll(rt.url, fresh(100), acked);
          // the next round crosses a 256-entry block: its index segment is in its upload wave
          const size = acked.size;
          await hook(rt.url, "/__edge/faults", { crashAt: "uploaded" });
          const envs = fresh(Math.max(3, 256 - (size % 256) + 2));
          const answers = await Promise.all(envs.map((e) => post(rt.url, e)));
          answers.forEach((a, k) => a.status === 201 && acked.set(a.body.index!, envs[k]));
          await appendAll(rt.url, envs, acked);
          assert.equal((await checkPublished(rt.url, acked)).size, acked.size, "each landed once");
          // past the window (256): the bytes again, then a twin, found in R2's index segments
          const again = await post(rt.url, early[1]);
          assert.equal(again.status, 200, JSON.stringify(again.body));
          assert.equal(again.body.index, early[0]);
          const twin = await post(rt.url, retagged(early[1]));
          assert.equal(twin.status, 200, JSON.stringify(twin.body));
          assert.equal(twin.body.index, early[0], "a twin past the window: its original index");
          assert.equal((await checkPublished(rt.url, acked)).size, acked.size, "no second entry");
        },
      );
    } finally {
      await rt.stop();
      await removeBundle();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});
