// Issue 27 at the edge (docs/EDGE.md "Pinned state"): the sequencer Durable Object's SQLite files
// are deleted or replaced by an older copy between runs of real local workerd, while the local R2
// bucket and the log key are kept — as a renamed class or binding, a deleted namespace or a
// restored older state would leave them. Every run must then refuse appends (503 with a stable
// code, `/healthz` degraded with it) while serving what R2 published, and never publish a second
// root at a size: every checkpoint and head the test saw is audited (no two roots at one size per
// origin), and the published log passes the full independent check. Frozen shards: a rolled-back
// freeze record is restored from R2's directory state; a shard rolled back behind it is refused.
// The witness role, whose state is in the same object while its key is a kept secret, refuses
// (503 `witness-state-behind`) rather than cosign a fork; every cosignature it gave is audited.
import assert from "node:assert/strict";
import { validEnvelope } from "../../fixtures/app.ts";
import {
  type AppendAnswer,
  hook,
  postEntry,
  removeBundle,
  startWorker,
} from "../../fixtures/worker.ts";
import { checkPublished } from "./_published_check.ts";
import type { EdgeRuntime } from "../../edge/mod.ts";
import { parseCheckpoint, parseNote } from "../../log/c2sp/mod.ts";
import { toHex } from "../../verify/mod.ts";
import { sha256Hasher } from "../../log/mod.ts";
import { signCheckpoint } from "../../log/c2sp/checkpoint.ts";
import { cosignatureVkey, ed25519Vkey, openNote, verifierFromVkey } from "../../log/c2sp/note.ts";
import { formatAddCheckpoint } from "../../log/c2sp/witness.ts";
import { sha256 } from "@noble/hashes/sha2.js";
import { testTree } from "../c2sp/_tree.ts";

const ADMIN = "edge-admin-token-for-pin-tests";
const BEHIND = "store-behind-signed-head";

/** Every root seen at each size, per origin: never two (the audit). */
const seen = new Map<string, Map<number, string>>();
/** The log (bucket) being audited: each step starts its own log under the same key. */
let scope = "";

function saw(origin: string, size: number, rootHex: string, where: string): void {
  const key = `${scope} ${origin}`;
  let m = seen.get(key);
  if (!m) seen.set(key, m = new Map());
  const was = m.get(size);
  assert.ok(
    was === undefined || was === rootHex,
    `two roots at size ${size} of ${origin}: ${was} and ${rootHex} (${where})`,
  );
  m.set(size, rootHex);
}

/** Reads both checkpoints and the latest head at `prefix` and audits them. */
async function observe(base: URL, prefix = ""): Promise<number> {
  let size = -1;
  for (const view of ["blake3", "sha256"]) {
    const res = await fetch(new URL(`${prefix}/log/${view}/checkpoint`, base));
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const c = parseCheckpoint(parseNote(text).text);
    saw(c.origin, c.size, toHex(c.root), `${prefix}/log/${view}/checkpoint`);
    size = Math.max(size, c.size);
  }
  const h = await (await fetch(new URL(`${prefix}/v1/log/tree-head`, base), {
    headers: { accept: "application/json" },
  })).json();
  saw(`${prefix || "/"} §22.2`, h.size, h.root, `${prefix}/v1/log/tree-head`);
  return size;
}

/** An acknowledged append's head goes into the audit too. */
function ackd(a: AppendAnswer, prefix = ""): void {
  assert.ok(a.status === 201 || a.status === 200, JSON.stringify(a.body));
  saw(`${prefix || "/"} §22.2`, a.body.tree_head.size, a.body.tree_head.root, "append answer");
}

// The Durable Objects' SQLite files in local workerd's persisted state (wrangler's layout):
// `<state>/v3/do/-<Class>/<object id>.sqlite` (+ -wal, -shm); `metadata.sqlite` is Miniflare's.
const doDir = (state: string, cls: string) => `${state}/v3/do/-${cls}`;

async function objectFiles(state: string, cls: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(doDir(state, cls))) {
    if (e.isFile && !e.name.startsWith("metadata.")) out.push(e.name);
  }
  assert.ok(out.some((n) => n.endsWith(".sqlite")), `a ${cls} object's SQLite file`);
  return out;
}

type Snapshot = Map<string, Uint8Array>;

async function snapshot(state: string, cls: string): Promise<Snapshot> {
  const snap: Snapshot = new Map();
  for (const n of await objectFiles(state, cls)) {
    snap.set(n, await Deno.readFile(`${doDir(state, cls)}/${n}`));
  }
  return snap;
}

async function wipe(state: string, cls: string): Promise<void> {
  for (const n of await objectFiles(state, cls)) await Deno.remove(`${doDir(state, cls)}/${n}`);
}

async function restore(state: string, cls: string, snap: Snapshot): Promise<void> {
  await wipe(state, cls);
  for (const [n, b] of snap) await Deno.writeFile(`${doDir(state, cls)}/${n}`, b);
}

async function appendMany(base: URL, seeds: number[], acked: Map<number, Uint8Array>, prefix = "") {
  for (const s of seeds) {
    const e = validEnvelope(s);
    const a = await postEntry(base, e, prefix || "/");
    ackd(a, prefix);
    acked.set(a.body.index, e);
  }
}

/** The refusal every path must give: 503 with the code, health degraded with it, reads served. */
async function assertRefused(
  base: URL,
  code: string,
  acked: Map<number, Uint8Array>,
  publishedSize: number,
) {
  const a = await postEntry(base, validEnvelope(990_000 + Math.floor(Math.random() * 1000)));
  assert.equal(a.status, 503, JSON.stringify(a.body));
  assert.equal(a.body.code, code);
  // An entry it already logged is refused the same way (the object signs nothing).
  const again = await postEntry(base, acked.get(0)!);
  assert.equal(again.status, 503);
  assert.equal(again.body.code, code);
  const health = await fetch(new URL("/healthz", base));
  const hb = await health.json();
  assert.equal(health.status, 503, JSON.stringify(hb));
  assert.equal(hb.health, "degraded");
  assert.equal(hb.failing, code);
  assert.equal(await observe(base), publishedSize, "R2's checkpoints unmoved");
  const pub = await checkPublished(base, acked);
  assert.equal(pub.size, publishedSize);
}

const start = (state: string, extra: Record<string, string> = {}) =>
  startWorker(state, { JC_EDGE_BATCHERS: "2", JC_ADMIN_TOKEN: ADMIN, ...extra });

// The witness role's state lives in the same object's SQLite (docs/EDGE.md "Witnessing at the
// edge"): lost or rolled back with it while the JC_WITNESS_KEY secret is kept, it must not cosign a
// fork of a log it witnessed (issue 27), and refuses with the embedded witness's code.
const W_ORIGIN = "edge.pin.witness/log/sha256";
const W_LOG_SECRET = new Uint8Array(32).fill(0x41);
const W_NAME = "edge.pin.witness/w";
const W_VKEY = cosignatureVkey(W_NAME, new Uint8Array(32).fill(0x43));
const W_ENV = {
  JC_WITNESS_LOGS: ed25519Vkey(W_ORIGIN, W_LOG_SECRET),
  JC_WITNESS_NAME: W_NAME,
  JC_WITNESS_KEY: "43".repeat(32),
};
const W_BEHIND = "witness-state-behind";
const honest = testTree(sha256Hasher);
/** Another tree: the same first 10 leaves (consistent with size 10), then others. */
const forked = testTree(sha256Hasher, (i) => (i < 10 ? `leaf ${i}` : `fork ${i}`));
/** Every (size, root) the witness cosigned, per scope: never two roots at one size (the audit). */
const cosigned = new Map<string, string>();

/** POSTs add-checkpoint (old size, proof, the checkpoint of `tree` at `size`); audits a 200. */
async function offer(
  base: URL,
  old: number,
  size: number,
  tree = honest,
): Promise<{ status: number; type: string; text: string; retryAfter: string | null }> {
  const proof = old === 0 || old === size ? [] : await tree.proof(old, size);
  const cp = signCheckpoint({ origin: W_ORIGIN, size, root: tree.root(size) }, W_LOG_SECRET);
  const res = await fetch(new URL("/add-checkpoint", base), {
    method: "POST",
    body: formatAddCheckpoint(old, proof, new TextEncoder().encode(cp)),
  });
  const text = await res.text();
  const type = (res.headers.get("content-type") ?? "").split(";")[0];
  if (res.status === 200) {
    await openNote(cp + text, [verifierFromVkey(W_VKEY)]); // our witness's cosignature
    const key = `${scope} ${size}`;
    const root = toHex(tree.root(size));
    const was = cosigned.get(key);
    assert.ok(was === undefined || was === root, `cosigned two roots at size ${size} (${scope})`);
    cosigned.set(key, root);
  }
  return { status: res.status, type, text, retryAfter: res.headers.get("retry-after") };
}

/** The witness's refusal: 503 problem+json with the code, no Retry-After (an operator acts). */
async function assertWitnessRefuses(base: URL, old: number, size: number, tree = honest) {
  const r = await offer(base, old, size, tree);
  assert.equal(r.status, 503, `${old} -> ${size}: ${r.text}`);
  assert.equal(r.type, "application/problem+json");
  assert.equal(JSON.parse(r.text).code, W_BEHIND, r.text);
  assert.equal(r.retryAfter, null);
}

Deno.test({
  name: "edge pin: the witness in a lost or rolled-back object cosigns no fork",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    let rt: EdgeRuntime | undefined;
    try {
      await t.step("the object's SQLite deleted, the witness key kept: refused", async () => {
        const state = await Deno.makeTempDir({ prefix: "jc-edge-pin-witness-wipe-" });
        scope = "jc-edge-pin-witness-wipe-";
        const acked = new Map<number, Uint8Array>();
        rt = await start(state, W_ENV);
        await appendMany(rt.url, [740_000, 740_001, 740_002], acked);
        assert.equal((await offer(rt.url, 0, 10)).status, 200);
        assert.equal((await offer(rt.url, 10, 25)).status, 200);
        await rt.stop();
        // A restart with nothing lost: the witness goes on (the guard passes).
        rt = await start(state, W_ENV);
        assert.equal((await offer(rt.url, 25, 30)).status, 200);
        await rt.stop();
        await wipe(state, "LogSequencer");
        for (let run = 0; run < 2; run++) {
          rt = await start(state, W_ENV);
          // A fork at a cosigned size, from the old size 0 a forgetful witness would accept; and
          // the honest tree from 0 (the witness no longer knows it cosigned 30).
          await assertWitnessRefuses(rt.url, 0, 30, forked);
          await assertWitnessRefuses(rt.url, 0, 25, forked);
          await assertWitnessRefuses(rt.url, 0, 30);
          const hash = toHex(sha256(new TextEncoder().encode(W_ORIGIN)));
          const mon = await fetch(new URL(`/witness/${hash}/checkpoint`, rt.url));
          assert.equal(mon.status, 503);
          assert.equal((await mon.json()).code, W_BEHIND);
          await assertRefused(rt.url, BEHIND, acked, 3); // the log refuses as before
          await rt.stop();
        }
        rt = undefined;
      });

      await t.step("the object's SQLite rolled back to an older copy: refused", async () => {
        const state = await Deno.makeTempDir({ prefix: "jc-edge-pin-witness-rollback-" });
        scope = "jc-edge-pin-witness-rollback-";
        const acked = new Map<number, Uint8Array>();
        rt = await start(state, W_ENV);
        await appendMany(rt.url, [750_000, 750_001], acked);
        assert.equal((await offer(rt.url, 0, 10)).status, 200);
        await rt.stop();
        const old = await snapshot(state, "LogSequencer");
        rt = await start(state, W_ENV);
        assert.equal((await offer(rt.url, 10, 25)).status, 200);
        await appendMany(rt.url, [750_002], acked); // the log publishes after the cosignature
        await rt.stop();
        await restore(state, "LogSequencer", old);
        rt = await start(state, W_ENV);
        // The rolled-back state remembers 10 only: a fork consistent with 10, another root at 25.
        await assertWitnessRefuses(rt.url, 10, 25, forked);
        await assertWitnessRefuses(rt.url, 10, 25);
        await assertRefused(rt.url, BEHIND, acked, 3);
        await rt.stop();
        rt = undefined;
      });

      await t.step(
        "witness only (the log never took an entry), SQLite deleted: the mark refuses",
        async () => {
          const state = await Deno.makeTempDir({ prefix: "jc-edge-pin-witness-only-" });
          scope = "jc-edge-pin-witness-only-";
          rt = await start(state, W_ENV);
          assert.equal((await offer(rt.url, 0, 10)).status, 200);
          assert.equal((await offer(rt.url, 10, 25)).status, 200);
          await rt.stop();
          await wipe(state, "LogSequencer");
          rt = await start(state, W_ENV);
          // The log's guard passes (R2 holds only the empty tree's head); the witness's mark does not.
          await assertWitnessRefuses(rt.url, 0, 25, forked);
          await assertWitnessRefuses(rt.url, 0, 10, forked);
          assert.equal(await observe(rt.url), 0);
          await rt.stop();
          rt = undefined;
        },
      );
    } finally {
      await rt?.stop();
      await removeBundle(); // the next test bundles again (a filtered run leaves nothing behind)
    }
  },
});

Deno.test({
  name: "edge pin: a lost or rolled-back sequencer store never signs again over R2's log",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    let rt: EdgeRuntime | undefined;
    try {
      await t.step("the sequencer's SQLite deleted, R2 and the key kept: refused", async () => {
        const state = await Deno.makeTempDir({ prefix: "jc-edge-pin-wipe-" });
        scope = "jc-edge-pin-wipe-";
        const acked = new Map<number, Uint8Array>();
        rt = await start(state);
        await appendMany(rt.url, [700_000, 700_001, 700_002, 700_003, 700_004], acked);
        assert.equal(await observe(rt.url), 5);
        await rt.stop();
        await wipe(state, "LogSequencer");
        rt = await start(state);
        await assertRefused(rt.url, BEHIND, acked, 5);
        // Still refused after another restart (nothing was signed or stored meanwhile).
        await rt.stop();
        rt = await start(state);
        await assertRefused(rt.url, BEHIND, acked, 5);
        await rt.stop();
        rt = undefined;
      });

      await t.step("the sequencer's SQLite rolled back to an older copy: refused", async () => {
        const state = await Deno.makeTempDir({ prefix: "jc-edge-pin-rollback-" });
        scope = "jc-edge-pin-rollback-";
        const acked = new Map<number, Uint8Array>();
        rt = await start(state);
        await appendMany(rt.url, [710_000, 710_001, 710_002], acked);
        await rt.stop();
        const old = await snapshot(state, "LogSequencer");
        rt = await start(state);
        await appendMany(rt.url, [710_003, 710_004, 710_005, 710_006], acked);
        assert.equal(await observe(rt.url), 7);
        await rt.stop();
        await restore(state, "LogSequencer", old);
        rt = await start(state);
        await assertRefused(rt.url, BEHIND, acked, 7);
        await rt.stop();
        rt = undefined;
      });

      await t.step(
        "checkpoints held back (R2 still at the empty head), store lost: the round marker refuses",
        async () => {
          const state = await Deno.makeTempDir({ prefix: "jc-edge-pin-lag-" });
          scope = "jc-edge-pin-lag-";
          const acked = new Map<number, Uint8Array>();
          // The once-a-second rule stretched to a minute: after the open's empty checkpoint, every
          // round's head is in R2 (heads/<size>, acknowledged) but the checkpoints stay at 0.
          rt = await start(state, { JC_EDGE_CHECKPOINT_MS: "60000" });
          await appendMany(rt.url, [720_000, 720_001, 720_002], acked);
          const cp = await (await fetch(new URL("/log/blake3/checkpoint", rt.url))).text();
          assert.equal(parseCheckpoint(parseNote(cp).text).size, 0, "checkpoint held back at 0");
          await rt.stop();
          await wipe(state, "LogSequencer");
          rt = await start(state, { JC_EDGE_CHECKPOINT_MS: "60000" });
          const a = await postEntry(rt.url, validEnvelope(720_100));
          assert.equal(a.status, 503, JSON.stringify(a.body));
          assert.equal(a.body.code, BEHIND);
          // The acknowledged heads are still R2's, unchanged: no second root at their sizes.
          for (let size = 1; size <= 3; size++) {
            const res: Response = await fetch(new URL(`/v1/log/tree-heads/${size}`, rt.url), {
              headers: { accept: "application/json" },
            });
            const h = await res.json();
            assert.equal(res.status, 200, JSON.stringify(h));
            saw("/ §22.2", h.size, h.root, `/v1/log/tree-heads/${size}`);
          }
          await observe(rt.url);
          await rt.stop();
          rt = undefined;
        },
      );

      await t.step("frozen s0 rolled back: frozen again from R2; behind it: refused", async () => {
        const state = await Deno.makeTempDir({ prefix: "jc-edge-pin-frozen-" });
        scope = "jc-edge-pin-frozen-";
        const acked = new Map<number, Uint8Array>();
        rt = await start(state);
        await appendMany(rt.url, [730_000, 730_001, 730_002], acked);
        await rt.stop();
        const at3 = await snapshot(state, "LogSequencer");
        rt = await start(state);
        await appendMany(rt.url, [730_003, 730_004], acked);
        await rt.stop();
        const at5 = await snapshot(state, "LogSequencer"); // active, at the final head
        rt = await start(state);
        const r = await fetch(new URL("/v1/logs/rotate", rt.url), {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN}` },
        });
        assert.equal(r.status, 200, await r.text());
        assert.equal(await observe(rt.url), 5);
        const s1 = new Map<number, Uint8Array>();
        await appendMany(rt.url, [731_000, 731_001], s1, "/shards/s1");
        await rt.stop();
        const s1At2 = await snapshot(state, "LogShardSequencer");
        rt = await start(state);
        await appendMany(rt.url, [731_002, 731_003, 731_004], s1, "/shards/s1");
        assert.equal(await observe(rt.url, "/shards/s1"), 5);
        await rt.stop();

        // s0's freeze record lost with a rollback to the final head: frozen from R2's directory.
        await restore(state, "LogSequencer", at5);
        rt = await start(state);
        const stats = await hook(rt.url, "/__edge/stats");
        assert.equal((stats.sequencer as { frozen: boolean }).frozen, true);
        const res = await fetch(new URL("/__edge/append?shard=0", rt.url), {
          method: "POST",
          body: validEnvelope(730_100).slice(),
        });
        const o = await res.json();
        assert.equal(o.ok, false, JSON.stringify(o));
        assert.equal(o.error.code, "shard-frozen");
        const root = await postEntry(rt.url, validEnvelope(730_101));
        assert.equal(root.status, 409);
        assert.equal(root.body.active.id, "s1");
        assert.equal(await observe(rt.url), 5);
        await rt.stop();

        // Rolled back behind its final head: the object refuses outright.
        await restore(state, "LogSequencer", at3);
        rt = await start(state);
        const res2 = await fetch(new URL("/__edge/append?shard=0", rt.url), {
          method: "POST",
          body: validEnvelope(730_102).slice(),
        });
        const o2 = await res2.json();
        assert.equal(o2.ok, false, JSON.stringify(o2));
        assert.equal(o2.error.code, BEHIND);
        assert.equal(await observe(rt.url), 5);
        await checkPublished(rt.url, acked);

        // The active shard s1 rolled back: refused too (its key survived in its own storage).
        await rt.stop();
        await restore(state, "LogShardSequencer", s1At2);
        rt = await start(state);
        const a = await postEntry(rt.url, validEnvelope(731_100), "/shards/s1");
        assert.equal(a.status, 503, JSON.stringify(a.body));
        assert.equal(a.body.code, BEHIND);
        const health = await (await fetch(new URL("/healthz", rt.url))).json();
        assert.equal(health.failing, BEHIND);
        assert.equal(await observe(rt.url, "/shards/s1"), 5);
        await checkPublished(rt.url, s1, { prefix: "/shards/s1" });
        await rt.stop();
        rt = undefined;
      });

      await t.step("the audit: no two roots at one size of any origin", () => {
        assert.ok(seen.size >= 4, `origins audited: ${[...seen.keys()].join(", ")}`);
        let n = 0;
        for (const m of seen.values()) n += m.size;
        console.log(`audited ${n} (origin, size) pairs across ${seen.size} origins: one root each`);
      });
    } finally {
      await rt?.stop();
      await removeBundle();
    }
  },
});
