// Shards on the edge deployment (docs/SHARDS.md, docs/EDGE.md "Shards"; issue 12), in real local
// workerd with a local R2 bucket: the signed directory (`GET /v1/logs`, opened under the operator
// vkey, JSON and text), rotation by command (admin token: 401, 403), by size and by age, 409
// `shard-frozen` naming the active shard (the root append route after s0 froze, a frozen shard's
// prefixed route), appends to the active shard's prefix through the batchers, a restart injected
// after each step of a rotation (the directory stays consistent; an interrupted freeze is
// finished), the full independent check on every shard under the directory's vkeys with frozen
// roots equal to their final checkpoints, the succession of every directory seen, and zero
// Durable Object calls on a read-only run across shards and the directory.
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
import {
  type Directory,
  directorySuccession,
  openDirectory,
  type ShardEntry,
} from "../../log/shards/mod.ts";
import { openCheckpoint, toBase64 } from "../../log/c2sp/mod.ts";
import { readingAgent } from "../_readings.ts";
import { blake3, meterReading, toHex } from "../../verify/mod.ts";

const { did: AGENT, reading } = readingAgent(new Uint8Array(32).fill(17));

const ADMIN = "edge-admin-token-for-tests";

type Answer = AppendAnswer;

const post = (base: URL, prefix: string, bytes: Uint8Array) => postEntry(base, bytes, prefix);

async function rotate(base: URL, token?: string): Promise<Answer> {
  const res = await fetch(new URL("/v1/logs/rotate", base), {
    method: "POST",
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: await res.json() };
}

/** Every directory the test saw, in order: each must succeed the one before (docs/SHARDS.md). */
const seen: Directory[] = [];

/** GET /v1/logs, opened under the operator vkey of /v1/log/key (pinned at first use). */
let pinned: string | undefined;
async function directory(base: URL): Promise<Directory> {
  const res = await fetch(new URL("/v1/logs", base), { headers: { accept: "application/json" } });
  assert.equal(res.status, 200);
  const j = await res.json();
  pinned ??= (await (await fetch(new URL("/v1/log/key", base))).json()).operator_vkey;
  assert.equal(j.operator_vkey, pinned, "one operator key");
  const d = await openDirectory(j.note, pinned!);
  assert.deepEqual(j.directory, d, "the JSON is the note's");
  const prev = seen.at(-1);
  if (prev) assert.deepEqual(directorySuccession(prev, d), [], "a valid successor");
  seen.push(d);
  return d;
}

/** Waits past the Worker's one-second directory cache. */
const pastCache = () => new Promise((r) => setTimeout(r, 1100));

/** Appends following the directory: a 409 shard-frozen sends the entry to the active shard. */
async function appendFollowing(
  base: URL,
  prefix: string,
  bytes: Uint8Array,
  acked: Map<string, Map<number, Uint8Array>>,
): Promise<string> {
  for (let tries = 0; tries < 4; tries++) {
    const a = await post(base, prefix, bytes);
    if (a.status === 409) {
      assert.equal(a.body.code, "shard-frozen");
      prefix = a.body.active.prefix;
      continue;
    }
    assert.ok(a.status === 201 || a.status === 200, JSON.stringify(a.body));
    if (!acked.has(prefix)) acked.set(prefix, new Map());
    acked.get(prefix)!.set(a.body.index, bytes);
    return prefix;
  }
  throw new Error("no shard took the append");
}

/** The frozen shard's roots are its final checkpoints' (under the directory's vkeys). */
async function assertFinal(base: URL, s: ShardEntry): Promise<void> {
  assert.equal(s.state, "frozen");
  const p = s.prefix === "/" ? "" : s.prefix;
  for (const view of ["blake3", "sha256"] as const) {
    const note = await (await fetch(new URL(`${p}/log/${view}/checkpoint`, base))).text();
    const { checkpoint } = await openCheckpoint(note, s.vkeys[view]);
    assert.equal(checkpoint.size, s.size, `${s.id} ${view}: final size`);
    assert.equal(toBase64(checkpoint.root), s.root![view], `${s.id} ${view}: final root`);
  }
}

Deno.test({
  name:
    "edge shards: directory, rotation by command, size and age, 409s, faults, checks, no DO reads",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-shards-" });
    const vars = { JC_ADMIN_TOKEN: ADMIN };
    let rt: EdgeRuntime = await startWorker(state, vars);
    const acked = new Map<string, Map<number, Uint8Array>>();
    let seed = 300_000;
    try {
      await t.step(
        "before any rotation: one active shard, s0, signed by the operator",
        async () => {
          const d = await directory(rt.url);
          assert.equal(d.shards.length, 1);
          assert.equal(d.shards[0].id, "s0");
          assert.equal(d.shards[0].state, "active");
          assert.equal(d.shards[0].prefix, "/");
          const key = await (await fetch(new URL("/v1/log/key", rt.url))).json();
          assert.deepEqual(d.shards[0].vkeys, key.vkeys, "s0 keeps the log key");
          const text = await fetch(new URL("/v1/logs", rt.url), {
            headers: { accept: "text/plain" },
          });
          assert.match(text.headers.get("content-type")!, /^text\/plain/);
          await openDirectory(await text.text(), pinned!);
          // The admin route: a wrong or missing token changes nothing.
          const wrong = await rotate(rt.url, "not-the-token");
          assert.equal(wrong.status, 401);
          assert.equal(wrong.body.code, "admin-unauthorized");
          assert.equal((await rotate(rt.url)).status, 401);
        },
      );

      await t.step(
        "rotation by command: s0 frozen at its final checkpoints, s1 active",
        async () => {
          const envs = Array.from({ length: 40 }, () => validEnvelope(seed++));
          await Promise.all(envs.map((e) => appendFollowing(rt.url, "/", e, acked)));
          const r = await rotate(rt.url, ADMIN);
          assert.equal(r.status, 200, JSON.stringify(r.body));
          const d = await directory(rt.url);
          assert.equal(d.shards.length, 2);
          assert.equal(d.shards[0].size, 40);
          await assertFinal(rt.url, d.shards[0]);
          assert.equal(d.shards[1].id, "s1");
          assert.equal(d.shards[1].prefix, "/shards/s1");
          assert.equal(d.shards[1].log_name, `${d.shards[0].log_name}/s1`);
          assert.equal(d.shards[1].size, 0);
          assert.notEqual(d.shards[1].signer, d.shards[0].signer, "a new shard, a new key");
          const key = await (await fetch(new URL("/shards/s1/v1/log/key", rt.url))).json();
          assert.deepEqual(key.vkeys, d.shards[1].vkeys);
          assert.equal(key.operator_vkey, pinned);
        },
      );

      await t.step("409 shard-frozen naming the active shard; unlisted shards 404", async () => {
        const root = await post(rt.url, "/", validEnvelope(seed++));
        assert.equal(root.status, 409);
        assert.equal(root.body.code, "shard-frozen");
        assert.deepEqual(root.body.active, { id: "s1", prefix: "/shards/s1" });
        for (const p of ["/shards/s0/v1/log/tree-head", "/shards/s2/v1/log/tree-head"]) {
          const res = await fetch(new URL(p, rt.url));
          assert.equal(res.status, 404, p);
          await res.body?.cancel();
        }
        // Appends at the active shard's prefix go through the batchers.
        const envs = Array.from({ length: 30 }, () => validEnvelope(seed++));
        const prefixes = await Promise.all(
          envs.map((e) => appendFollowing(rt.url, "/shards/s1", e, acked)),
        );
        assert.ok(prefixes.every((p) => p === "/shards/s1"));
        assert.deepEqual([...acked.get("/shards/s1")!.keys()].sort((a, b) => a - b), [
          ...Array(30).keys(),
        ]);
        const stats = await hook(rt.url, "/__edge/stats");
        // deno-lint-ignore no-explicit-any
        const batched = (stats.batchers as any[]).reduce((n, b) => n + b.forwarded, 0);
        assert.ok(batched >= 70, `every append went through a batcher (${batched})`);
      });

      await t.step(
        "read paths follow the directory: policy, healthz, metrics, export",
        async () => {
          // issue 28: the operator's default policy names every shard's log (the same at s1)
          const d = await directory(rt.url);
          const policy = await (await fetch(new URL("/v1/log/policy", rt.url))).text();
          const logs = policy.split("\n").filter((l) => l.startsWith("log "));
          assert.deepEqual(logs.map((l) => l.split(" ")[1]), d.shards.map((s) => s.vkeys.sha256));
          assert.ok(logs[1].endsWith("/shards/s1/log/sha256"), logs[1]);
          assert.equal(
            await (await fetch(new URL("/shards/s1/v1/log/policy", rt.url))).text(),
            policy,
          );
          const h = await (await fetch(new URL("/healthz", rt.url))).json();
          assert.equal(h.tree_size, 70, JSON.stringify(h));
          assert.deepEqual(h.shards, [{ id: "s0", tree_size: 40 }, { id: "s1", tree_size: 30 }]);
          const m = await (await fetch(new URL("/metrics", rt.url))).text();
          assert.match(m, /^jc_shard_tree_size\{shard="s1"\} 30$/m);
          // each shard exports its entries under shard-qualified IRIs
          const ex = await fetch(new URL("/shards/s1/v1/log/export", rt.url));
          assert.equal(ex.status, 200);
          const nq = await ex.text();
          assert.match(nq, /\/shards\/s1\/v1\/log\/entries\/29> /);
          const iris = nq.match(/<[^>]*\/v1\/log\/entries\/\d+>/g) ?? [];
          assert.ok(
            iris.length >= 30 && iris.every((i) => i.includes("/shards/s1/v1/log/entries/")),
          );
        },
      );

      await t.step(
        "a restart after each step of a rotation leaves a consistent state",
        async () => {
          // After creating s2: the directory is unchanged and s1 still takes appends.
          await hook(rt.url, "/__edge/faults", { shard: 1, rotateCrashAt: "created" });
          const r1 = await rotate(rt.url, ADMIN);
          assert.ok(r1.status >= 500, JSON.stringify(r1.body));
          await pastCache();
          let d = await directory(rt.url);
          assert.equal(d.shards.length, 2, "the old directory in force");
          await appendFollowing(rt.url, "/shards/s1", validEnvelope(seed++), acked);
          assert.equal(acked.get("/shards/s1")!.size, 31);
          // After freezing s1: the directory still lists s1 active at its final size; the next
          // call into s1 finishes the rotation (the directory is written) and answers 409.
          await hook(rt.url, "/__edge/faults", { shard: 1, rotateCrashAt: "frozen" });
          const r2 = await rotate(rt.url, ADMIN);
          assert.ok(r2.status >= 500, JSON.stringify(r2.body));
          await pastCache();
          d = await directory(rt.url);
          assert.equal(d.shards.length, 2);
          assert.equal(d.shards[1].state, "active");
          assert.equal(d.shards[1].size, 31);
          const again = await post(rt.url, "/shards/s1", validEnvelope(seed++));
          assert.equal(again.status, 409, JSON.stringify(again.body));
          assert.deepEqual(again.body.active, { id: "s2", prefix: "/shards/s2" });
          d = await directory(rt.url);
          assert.equal(d.shards.length, 3);
          assert.equal(d.shards[1].size, 31);
          await assertFinal(rt.url, d.shards[1]);
          assert.equal(d.shards[2].state, "active");
        },
      );

      await t.step("rotation by size; without an admin token the route is disabled", async () => {
        await rt.stop();
        rt = await startWorker(state, { JC_SHARD_MAX_SIZE: "20" });
        const off = await rotate(rt.url, ADMIN);
        assert.equal(off.status, 403);
        assert.equal(off.body.code, "admin-disabled");
        for (let k = 0; k < 5; k++) {
          const envs = Array.from({ length: 6 }, () => validEnvelope(seed++));
          await Promise.all(envs.map((e) => appendFollowing(rt.url, "/shards/s2", e, acked)));
        }
        await pastCache();
        const d = await directory(rt.url);
        assert.equal(d.shards.length, 4, "s2 rotated by size");
        const s2 = d.shards[2];
        assert.ok(s2.size >= 20 && s2.size < 30, `s2 ended at ${s2.size}`);
        await assertFinal(rt.url, s2);
        assert.equal(s2.size + d.shards[3].size, 30);
        assert.equal(acked.get("/shards/s2")!.size, s2.size);
      });

      await t.step("rotation by age: a round ending past the age rotates", async () => {
        await rt.stop();
        rt = await startWorker(state, { JC_SHARD_MAX_AGE: "1" });
        // s3's first entry is older than a second: the next round there ends it.
        await appendFollowing(rt.url, "/shards/s3", validEnvelope(seed++), acked);
        let d: Directory | undefined;
        for (let k = 0; k < 20 && (d?.shards.length ?? 0) < 5; k++) {
          await pastCache();
          d = await directory(rt.url);
        }
        assert.equal(d!.shards.length, 5, "s3 rotated by age");
        assert.equal(d!.shards[3].size, acked.get("/shards/s3")!.size);
        await assertFinal(rt.url, d!.shards[3]);
        const late = await post(rt.url, "/shards/s3", validEnvelope(seed++));
        assert.equal(late.status, 409);
        assert.deepEqual(late.body.active, { id: "s4", prefix: "/shards/s4" });
      });

      await t.step(
        "the full independent check on every shard under the directory's vkeys",
        async () => {
          const d = await directory(rt.url);
          for (const s of d.shards) {
            const pub = await checkPublished(rt.url, acked.get(s.prefix) ?? new Map(), {
              prefix: s.prefix,
              vkeys: s.vkeys,
            });
            assert.equal(pub.size, s.size, s.id);
            if (s.state === "frozen") await assertFinal(rt.url, s);
          }
        },
      );

      await t.step("a read-only run across shards makes zero Durable Object calls", async () => {
        await rt.stop();
        rt = await startWorker(state, { JC_SHARD_MAX_SIZE: "20" });
        const calls = async () => {
          const s = await hook(rt.url, "/__edge/stats");
          // deno-lint-ignore no-explicit-any
          return [(s.sequencer as any).calls, ...(s.shards as any[]).map((x) => x.calls)];
        };
        const before = await calls();
        assert.equal(before.length, 5);
        const d = await directory(rt.url);
        await fetch(new URL("/v1/logs", rt.url), { headers: { accept: "text/plain" } })
          .then((r) => r.text());
        for (const s of d.shards) {
          const p = s.prefix === "/" ? "" : s.prefix;
          const paths = [
            "/v1/log/tree-head",
            "/v1/log/key",
            "/log/blake3/checkpoint",
            "/log/sha256/checkpoint",
            ...(s.size > 0
              ? [
                `/v1/log/tree-heads/${s.size}`,
                `/log/blake3/tile/0/000.p/${s.size}`,
                `/log/sha256/tile/entries/000.p/${s.size}`,
                "/v1/log/entries/0",
                `/v1/log/entries/${s.size - 1}`,
                `/v1/log/proof/inclusion?index=${s.size - 1}&size=${s.size}`,
                `/v1/log/proof/consistency?first=1&second=${s.size}`,
              ]
              : []),
          ];
          for (const path of paths) {
            const res = await fetch(new URL(p + path, rt.url), {
              headers: { accept: "application/json" },
            });
            await res.arrayBuffer();
            assert.equal(res.status, 200, `${s.id} ${path}`);
          }
          await checkPublished(rt.url, acked.get(s.prefix) ?? new Map(), {
            prefix: s.prefix,
            vkeys: s.vkeys,
          });
        }
        const after = await calls();
        assert.deepEqual(
          after.map((c, k) => c - before[k]),
          before.map(() => 1),
          "only the stats call itself reached each sequencer",
        );
      });

      await t.step(
        "readings append to the active shard; the agent's chain head carries across a rotation",
        async () => {
          await rt.stop();
          rt = await startWorker(state, { JC_ADMIN_TOKEN: ADMIN, JC_AGENTS: `${AGENT}=meter` });
          const readings = async (env: Uint8Array) => {
            const res = await fetch(new URL("/v1/readings", rt.url), {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ envelopes: [toHex(env)] }),
            });
            assert.equal(res.status, 200);
            return (await res.json()).results[0];
          };
          const agent = async () =>
            await (await fetch(new URL(`/v1/agents/${encodeURIComponent(AGENT)}`, rt.url)))
              .json();
          const before = await directory(rt.url);
          const active = before.shards.at(-1)!;
          const r0 = reading(0, meterReading.GENESIS_PREV);
          assert.deepEqual(await readings(r0), { seq: 0, index: active.size, verdict: "valid" });
          assert.equal((await agent()).last_seq, 0);
          assert.equal((await rotate(rt.url, ADMIN)).status, 200);
          await pastCache();
          // The next reading chains onto the head kept in the frozen shard, lands in the new one.
          const r1 = reading(1, toHex(blake3(r0)));
          assert.deepEqual(await readings(r1), { seq: 1, index: 0, verdict: "valid" });
          const a = await agent();
          assert.equal(a.last_seq, 1);
          assert.equal(a.prev, toHex(blake3(r1)));
          const d = await directory(rt.url);
          assert.equal(d.shards.length, before.shards.length + 1);
          assert.equal(d.shards.at(-1)!.size, 1);
          // A gap is still refused across the rotation.
          assert.equal((await readings(reading(3, a.prev))).code, "reading-seq-gap");
        },
      );
    } finally {
      await rt.stop();
      await removeBundle();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});
