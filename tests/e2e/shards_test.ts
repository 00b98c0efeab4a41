// Shards on the embedded default over real HTTP (docs/SHARDS.md): the signed directory under the
// operator vkey, rotation by command (admin token), by size and by age, 409 `shard-frozen` naming
// the active shard, appends below the active prefix, every shard's checkpoints under the
// directory's vkeys with frozen roots equal to the final checkpoints, restarts (SIGTERM and
// SIGKILL) keeping frozen shards frozen, a rotation cut short by a crash leaving the old directory
// in force, and the succession rules holding across every directory seen.
import assert from "node:assert/strict";
import {
  type Directory,
  directorySuccession,
  openDirectory,
  shardUrl,
} from "../../log/shards/mod.ts";
import { c2sp } from "../../log/mod.ts";
import { openSqliteLog } from "../../log/sqlite/mod.ts";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { blake3, meterReading, toHex } from "../../verify/mod.ts";
import { type Service, startService } from "../../fixtures/service.ts";
import { readingAgent } from "../_readings.ts";

const TOKEN = "test-admin-token-0123456789";
const S = steward(11);
const opts = { sanitizeResources: false, sanitizeOps: false };

/** GET /v1/logs, opened under the operator vkey of /v1/log/key (pinned: both must agree). */
async function directoryOf(url: string): Promise<{ d: Directory; vkey: string; note: string }> {
  const key = await (await fetch(`${url}/v1/log/key`)).json();
  const res = await fetch(`${url}/v1/logs`);
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.operator_vkey, key.operator_vkey);
  const d = await openDirectory(body.note, key.operator_vkey);
  assert.deepEqual(body.directory, d);
  const text = await fetch(`${url}/v1/logs`, { headers: { accept: "text/plain" } });
  assert.match(text.headers.get("content-type") ?? "", /^text\/plain/);
  await openDirectory(await text.text(), key.operator_vkey);
  return { d, vkey: key.operator_vkey, note: body.note };
}

/** The directory once `ok` holds of it (it is re-signed at most once a second). */
async function directoryWhen(url: string, ok: (d: Directory) => boolean) {
  const until = Date.now() + 20_000;
  for (;;) {
    const d = await directoryOf(url);
    if (ok(d.d) || Date.now() > until) return d;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function append(url: string, prefix: string, n: number): Promise<Response> {
  return await fetch(shardUrl(url, prefix, "/v1/log/entries"), {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: validEnvelope(n, S),
  });
}

/** Appends to `prefix`, following a 409 `shard-frozen` to the active shard (as clients do). */
async function appendFollowing(url: string, prefix: string, n: number) {
  let res = await append(url, prefix, n);
  if (res.status === 409) {
    const p = await res.json();
    assert.equal(p.code, "shard-frozen");
    prefix = p.active.prefix;
    res = await append(url, prefix, n);
  }
  assert.equal(res.status, 201, await res.clone().text());
  return { prefix, body: await res.json() };
}

async function rotate(url: string, token = TOKEN): Promise<Response> {
  return await fetch(`${url}/v1/logs/rotate`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
}

/** Every shard's checkpoints open under the directory's vkeys; frozen ones match their roots. */
async function checkShards(url: string, d: Directory): Promise<void> {
  for (const s of d.shards) {
    for (const view of ["blake3", "sha256"] as const) {
      const res = await fetch(shardUrl(url, s.prefix, `/log/${view}/checkpoint`));
      assert.equal(res.status, 200, `${s.id} ${view}`);
      const { checkpoint } = await c2sp.openCheckpoint(await res.text(), s.vkeys[view]);
      assert.equal(checkpoint.origin, `${s.log_name}/${view}`);
      if (s.state === "frozen") {
        assert.equal(checkpoint.size, s.size, `${s.id}: the final checkpoint is at its size`);
        assert.equal(c2sp.toBase64(checkpoint.root), s.root![view], `${s.id} ${view} root`);
      } else {
        assert.ok(checkpoint.size >= s.size);
      }
    }
    const key = await (await fetch(shardUrl(url, s.prefix, "/v1/log/key"))).json();
    assert.equal(key.signer, s.signer);
    assert.deepEqual(key.vkeys, s.vkeys);
  }
}

/** Succession over every directory seen, in order. */
function assertSuccession(seen: Directory[]): void {
  for (let i = 1; i < seen.length; i++) {
    assert.deepEqual(directorySuccession(seen[i - 1], seen[i]), [], `directory ${i}`);
  }
}

Deno.test({
  ...opts,
  name: "shards: rotation by command freezes s0, appends move to /shards/s1, restarts keep it",
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-shards-" });
    const env = { DATA_DIR: dataDir, JC_ADMIN_TOKEN: TOKEN };
    let svc: Service | undefined = await startService(env);
    try {
      const seen: Directory[] = [];
      const d0 = await directoryOf(svc.url);
      seen.push(d0.d);
      assert.equal(d0.d.shards.length, 1);
      assert.equal(d0.d.shards[0].state, "active");
      assert.equal(d0.d.shards[0].first_time, null);
      for (let i = 0; i < 5; i++) assert.equal((await append(svc.url, "/", i)).status, 201);

      // the admin token: missing and wrong are 401, the right one rotates
      const none = await fetch(`${svc.url}/v1/logs/rotate`, { method: "POST" });
      assert.equal(none.status, 401);
      assert.equal((await none.json()).code, "admin-unauthorized");
      const wrong = await rotate(svc.url, TOKEN.replace("0", "1"));
      assert.equal(wrong.status, 401);
      await wrong.body?.cancel();
      const r = await rotate(svc.url);
      assert.equal(r.status, 200);
      const rotated = await r.json();
      const d1 = await openDirectory(rotated.note, d0.vkey);
      assert.equal(d1.shards.length, 2);
      assert.equal(d1.shards[0].state, "frozen");
      assert.equal(d1.shards[0].size, 5);
      assert.equal(d1.shards[1].prefix, "/shards/s1");
      assert.notEqual(d1.shards[1].signer, d1.shards[0].signer, "a new key");
      seen.push(d1);

      // s0 is frozen: the unprefixed append route names the active shard
      const frozen = await append(svc.url, "/", 100);
      assert.equal(frozen.status, 409);
      const p = await frozen.json();
      assert.equal(p.code, "shard-frozen");
      assert.deepEqual(p.active, { id: "s1", prefix: "/shards/s1" });
      // the active prefix takes appends; its Location is below the prefix
      const a = await append(svc.url, "/shards/s1", 100);
      assert.equal(a.status, 201);
      assert.equal(a.headers.get("location"), "/shards/s1/v1/log/entries/0");
      const entry = await fetch(`${svc.url}${a.headers.get("location")}`);
      assert.equal(entry.status, 200);
      await entry.body?.cancel();
      for (let i = 101; i < 103; i++) await appendFollowing(svc.url, "/shards/s1", i);
      // reads of the frozen shard are served; an unknown shard is 404
      const head = await (await fetch(`${svc.url}/v1/log/tree-head`)).json();
      assert.equal(head.size, 5);
      const s9 = await fetch(`${svc.url}/shards/s9/v1/log/tree-head`);
      assert.equal(s9.status, 404);
      await s9.body?.cancel();
      const policy = await (await fetch(`${svc.url}/shards/s1/v1/log/policy`)).text();
      assert.match(policy, new RegExp(`^log \\S+ ${svc.url}/shards/s1/log/sha256$`, "m"));
      const health = await fetch(`${svc.url}/healthz`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
      const s1head = await (await fetch(`${svc.url}/shards/s1/v1/log/tree-head`)).json();
      assert.equal(s1head.size, 3);

      const d2 = await directoryWhen(svc.url, (d) => d.shards[1].size === 3);
      seen.push(d2.d);
      await checkShards(svc.url, d2.d);
      assert.equal(d2.d.shards[1].size, 3);
      assert.ok(d2.d.shards[1].first_time !== null);

      // a graceful restart: still frozen, same shards
      await svc.stop();
      svc = await startService(env);
      const d3 = await directoryOf(svc.url);
      seen.push(d3.d);
      assert.equal(d3.vkey, d0.vkey, "the operator key is kept");
      assert.equal((await append(svc.url, "/", 200)).status, 409);
      await appendFollowing(svc.url, "/shards/s1", 201);
      // a second rotation, then a crash (SIGKILL) and a restart
      assert.equal((await rotate(svc.url)).status, 200);
      await appendFollowing(svc.url, "/shards/s1", 202);
      const d4 = await directoryWhen(svc.url, (d) => d.shards[2]?.size === 1);
      seen.push(d4.d);
      assert.equal(d4.d.shards.length, 3);
      await svc.stop("SIGKILL");
      svc = await startService(env);
      const d5 = await directoryOf(svc.url);
      seen.push(d5.d);
      assert.equal(d5.d.shards.length, 3);
      assert.equal(d5.d.shards[1].state, "frozen");
      assert.equal(d5.d.shards[2].size, 1);
      await checkShards(svc.url, d5.d);
      assertSuccession(seen);
    } finally {
      await svc?.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  ...opts,
  name: "shards: rotation by size and by age; without admin_token the command is 403",
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-shards-" });
    let svc = await startService({ DATA_DIR: dataDir, JC_SHARD_MAX_SIZE: "3" });
    try {
      const off = await rotate(svc.url);
      assert.equal(off.status, 403);
      assert.equal((await off.json()).code, "admin-disabled");
      const seen: Directory[] = [];
      let prefix = "/";
      for (let i = 0; i < 10; i++) {
        prefix = (await appendFollowing(svc.url, prefix, 1000 + i)).prefix;
        seen.push((await directoryOf(svc.url)).d);
      }
      const d = (await directoryOf(svc.url)).d;
      seen.push(d);
      // sequential appends: each shard ends exactly at the size (one batch past it at most)
      assert.ok(d.shards.length >= 3, JSON.stringify(d.shards.map((s) => s.size)));
      for (const s of d.shards.slice(0, -1)) assert.equal(s.size, 3, s.id);
      await checkShards(svc.url, d);
      assertSuccession(seen);
      await svc.stop();

      // by age: one second; an empty active shard never rotates
      svc = await startService({ DATA_DIR: dataDir, JC_SHARD_MAX_AGE: "1" });
      // the active shard left by the size phase is older than a second and not empty: it
      // rotates at once; then the new, empty one stays until it gets an entry
      const before = (await directoryWhen(svc.url, (d) => d.shards.at(-1)!.size === 0)).d;
      assert.equal(before.shards.length, d.shards.length + 1);
      await appendFollowing(svc.url, before.shards.at(-1)!.prefix, 2000);
      const after = (await directoryWhen(
        svc.url,
        (x) => x.shards.length === before.shards.length + 1,
      )).d;
      assert.equal(after.shards.length, before.shards.length + 1, "rotated by age");
      await new Promise((r) => setTimeout(r, 2_000));
      const idle = (await directoryOf(svc.url)).d;
      assert.equal(idle.shards.length, after.shards.length, "the empty shard stays");
      assertSuccession([...seen, before, after, idle]);
      await checkShards(svc.url, idle);
    } finally {
      await svc.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  ...opts,
  name: "shards: a rotation cut short (new shard created, directory not written) leaves the old",
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-shards-" });
    const env = { DATA_DIR: dataDir, JC_ADMIN_TOKEN: TOKEN };
    let svc = await startService(env);
    try {
      await appendFollowing(svc.url, "/", 1);
      const before = (await directoryOf(svc.url)).d;
      await svc.stop();
      // The state a crash between "create the next shard" and "write the directory" leaves:
      // shards/s1 exists with its key and signed empty head, shards.json does not name it.
      const orphan = await openSqliteLog({ dir: `${dataDir}/shards/s1`, logName: "x/s1" });
      await orphan.close();
      svc = await startService(env);
      const after = (await directoryOf(svc.url)).d;
      assert.equal(after.shards.length, 1);
      assert.equal(after.shards[0].state, "active");
      assert.deepEqual(directorySuccession(before, after), []);
      await appendFollowing(svc.url, "/", 2); // s0 still takes appends
      const aside = [...Deno.readDirSync(`${dataDir}/shards/discarded`)].map((e) => e.name);
      assert.equal(aside.length, 1);
      assert.match(aside[0], /^s1-\d+$/);
      assert.match(svc.stderr(), /moved an unlisted shard aside/);

      // SIGKILL while a rotation runs under appends: after a restart the directory opens, holds
      // one or two shards, and the succession from before holds
      const appends = (async () => {
        for (let i = 10; i < 40; i++) {
          const r = await append(svc.url, "/", i).catch(() => undefined);
          await r?.body?.cancel();
          if (!r) return;
        }
      })();
      const rot = rotate(svc.url).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 5));
      await svc.stop("SIGKILL");
      await Promise.all([appends, rot]);
      svc = await startService(env);
      const d = (await directoryOf(svc.url)).d;
      assert.ok(d.shards.length === 1 || d.shards.length === 2);
      assert.deepEqual(directorySuccession(after, d), []);
      await checkShards(svc.url, d);
      await appendFollowing(svc.url, "/", 99);
    } finally {
      await svc.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

// the conformance reading, re-keyed and re-chained, its spans contiguous (tests/_readings.ts)
const { did: AGENT, reading } = readingAgent(new Uint8Array(32).fill(23));

async function postReading(url: string, r: Uint8Array) {
  const res = await fetch(`${url}/v1/readings`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ envelopes: [toHex(r)] }),
  });
  assert.equal(res.status, 200);
  return (await res.json()).results[0];
}

Deno.test({
  ...opts,
  name: "shards: readings go to the active shard; an agent's chain carries across rotations",
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-shards-" });
    const env = { DATA_DIR: dataDir, JC_ADMIN_TOKEN: TOKEN, JC_AGENTS: `${AGENT}=meter` };
    let svc = await startService(env);
    try {
      const r0 = reading(0, meterReading.GENESIS_PREV);
      const r1 = reading(1, toHex(blake3(r0)));
      const r2 = reading(2, toHex(blake3(r1)));
      assert.deepEqual(await postReading(svc.url, r0), { seq: 0, index: 0, verdict: "valid" });
      assert.deepEqual(await postReading(svc.url, r1), { seq: 1, index: 1, verdict: "valid" });
      assert.equal((await rotate(svc.url)).status, 200);
      // the head's state crosses the rotation too: a span over r1's is refused (issue 26)
      const over = await postReading(svc.url, reading(2, toHex(blake3(r1)), 1));
      assert.equal(over.code, "reading-overlap");
      // the chain continues in s1 from the head s0 left (index 0 of the new shard)
      assert.deepEqual(await postReading(svc.url, r2), { seq: 2, index: 0, verdict: "valid" });
      const e = await fetch(`${svc.url}/shards/s1/v1/log/entries/0`, {
        headers: { accept: "application/cose" },
      });
      assert.deepEqual(new Uint8Array(await e.arrayBuffer()), r2);
      // a replay of a reading logged in the frozen shard is refused by the chain
      const replay = await postReading(svc.url, r1);
      assert.equal(replay.code, "reading-seq-replay");
      // refused by the chain, not by the verifier: no verdict class (docs/DECISIONS.md)
      assert.equal(replay.verdict, undefined);
      const agent = await (await fetch(`${svc.url}/v1/agents/${AGENT}`)).json();
      assert.equal(agent.last_seq, 2, JSON.stringify(agent));
      assert.equal(agent.next_seq, 3);
      // and after a restart too
      await svc.stop();
      svc = await startService(env);
      const r3 = reading(3, toHex(blake3(r2)));
      assert.deepEqual(await postReading(svc.url, r3), { seq: 3, index: 1, verdict: "valid" });
    } finally {
      await svc.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
