// Witnessing (docs/WITNESS.md), each figure beside the machine's raw WebCrypto Ed25519 verifies/s
// measured in the same run:
//  - add-checkpoint handled per second by the witness role: a chain of checkpoints of a ~10^6-leaf
//    SHA-256 tree, each with a consistency proof of 20-30 hashes from the previous one (one log
//    signature verified, one proof checked, one cosignature signed, one compare-and-swap each), in
//    process over memory and over the durable SQLite state, and over HTTP to the real service;
//  - verified durable appends/s of the HTTP service with two witnesses configured (the collector
//    running against two real witness processes) vs none, same run, alternating: the collector is
//    off the append path, so the ratio should be >= 0.95.
// JC_BENCH_WITNESS_MS sets each timed window (default 3000; short mode, bench/suites/_short.ts:
// a twentieth).
import { signCheckpoint } from "../../log/c2sp/checkpoint.ts";
import { ed25519Vkey } from "../../log/c2sp/note.ts";
import { createWitness } from "../../log/c2sp/witness_role.ts";
import { formatAddCheckpoint } from "../../log/c2sp/witness.ts";
import { memoryWitnessState } from "../../log/c2sp/witness_state.ts";
import { openSqliteWitnessState } from "../../log/sqlite/witness_state.ts";
import { initLogPin } from "../../log/sqlite/mod.ts";
import { consistencyProof, type NodeId, sha256Hasher, treeRoot } from "../../log/mod.ts";
import { ed25519GenerateSecret, toHex } from "../../verify/mod.ts";
import { startService } from "../../fixtures/service.ts";
import { rawWebCryptoVerifiesPerSecond } from "./_limits.ts";
import { ms } from "./_short.ts";
import { appendRequest, Conn, post, type Prepared } from "./http.ts";
import { SigningPool } from "./_pool.ts";

const MS = Number(Deno.env.get("JC_BENCH_WITNESS_MS") ?? ms(3000));
const LEAVES = 1 << 20;
const ORIGIN_BASE = "bench.witness.test/log";

/** A SHA-256 tree over LEAVES random leaf hashes, every level kept. */
function bigTree() {
  const h = sha256Hasher;
  const leaves = new Uint8Array(LEAVES * 32);
  for (let o = 0; o < leaves.length; o += 65536) {
    crypto.getRandomValues(leaves.subarray(o, o + 65536));
  }
  const levels: Uint8Array[] = [leaves];
  for (let n = LEAVES >> 1; n >= 1; n >>= 1) {
    const prev = levels[levels.length - 1];
    const row = new Uint8Array(n * 32);
    for (let k = 0; k < n; k++) {
      row.set(
        h.node(prev.subarray(64 * k, 64 * k + 32), prev.subarray(64 * k + 32, 64 * k + 64)),
        32 * k,
      );
    }
    levels.push(row);
  }
  const read = (ids: NodeId[]) =>
    Promise.resolve(
      ids.map(({ level, index }) => levels[level].subarray(32 * index, 32 * index + 32)),
    );
  return {
    root: (n: number) => treeRoot(h, n, read),
    proof: (a: number, b: number) => consistencyProof(h, a, b, read),
  };
}

/**
 * About `n` add-checkpoint bodies over `origins` logs (one key, distinct origins): per origin a
 * chain of checkpoints, each extending the previous with a consistency proof of 20-30 hashes
 * (jumps of about the tree's size, so the chains are short), interleaved round-robin.
 */
async function chains(n: number, origins: number, secret: Uint8Array) {
  const rnd = () => Math.floor(Math.random() * LEAVES);
  const t = bigTree();
  const enc = new TextEncoder();
  const perOrigin: Uint8Array[][] = [];
  let hashes = 0;
  let proofs = 0;
  let total = 0;
  for (let o = 0; o < origins && total < n; o++) {
    const origin = `${ORIGIN_BASE}/${o}`;
    const note = async (size: number) =>
      enc.encode(signCheckpoint({ origin, size, root: await t.root(size) }, secret));
    // Consistency proofs are about popcount(old) + log2(new) hashes: sizes with many bits set
    // (three random numbers OR-ed) give 20-30 hashes in a 2^20 tree.
    const dense = (lo: number) => lo + 1 + ((rnd() | rnd() | rnd()) % (LEAVES - lo - 1));
    let cur = Math.min(dense(1 << 16), LEAVES / 2);
    const list = [formatAddCheckpoint(0, [], await note(cur))];
    for (let tries = 0; tries < 100 && cur < LEAVES - 2; tries++) {
      const next = dense(cur);
      const proof = await t.proof(cur, next);
      if (proof.length < 20 || proof.length > 30) continue;
      list.push(formatAddCheckpoint(cur, proof, await note(next)));
      hashes += proof.length;
      proofs++;
      cur = next;
    }
    perOrigin.push(list);
    total += list.length;
  }
  const bodies: Uint8Array[] = [];
  for (let k = 0; bodies.length < total; k++) {
    for (const list of perOrigin) if (k < list.length) bodies.push(list[k]);
  }
  return {
    bodies,
    origins: perOrigin.length,
    meanProofHashes: Math.round((hashes / proofs) * 10) / 10,
  };
}

async function rate(bodies: Uint8Array[], handle: (b: Uint8Array) => Promise<void>) {
  let i = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < MS && i < bodies.length) await handle(bodies[i++]);
  // A window cut short by the last body still gives a rate (over the time it ran), said so.
  return {
    handled_per_s: Math.round(i / ((performance.now() - t0) / 1000)),
    handled: i,
    ...(i === bodies.length ? { ran_out_of_bodies: true } : {}),
  };
}

async function appendsPerSecond(env: Record<string, string>, pool: SigningPool<Prepared>) {
  const svc = await startService(env);
  const port = Number(new URL(svc.url).port);
  const conns = await Promise.all(Array.from({ length: 64 }, () => Conn.open(port)));
  try {
    for (let i = 0; i < 20; i++) await post(conns[0], await pool.take());
    let done = 0;
    const t0 = performance.now();
    await Promise.all(conns.map(async (c) => {
      while (performance.now() - t0 < MS) {
        await post(c, await pool.take());
        done++;
      }
    }));
    const perS = Math.round(done / ((performance.now() - t0) / 1000));
    const health = await (await fetch(`${svc.url}/healthz`)).json();
    return { perS, health };
  } finally {
    conns.forEach((c) => c.close());
    await svc.stop();
  }
}

export default async () => {
  const raw = await rawWebCryptoVerifiesPerSecond(2000);
  const logSecret = ed25519GenerateSecret();
  // As many bodies as raw verifies fit in a window (each add-checkpoint verifies a signature and
  // signs one, so it cannot be faster), at most what 512 chains hold.
  const { bodies, origins, meanProofHashes } = await chains(
    Math.max(200, Math.ceil(raw * MS / 1000)),
    512,
    logSecret,
  );
  const vkeys = Array.from(
    { length: origins },
    (_, o) => ed25519Vkey(`${ORIGIN_BASE}/${o}`, logSecret),
  );
  const witnessOpts = { name: "bench.witness.test/w", secret: ed25519GenerateSecret() };
  const logs = vkeys.map((vkey) => ({ vkey, hash: "sha256" as const }));

  const mem = createWitness({ ...witnessOpts, logs, state: memoryWitnessState() });
  const inMemory = await rate(bodies, async (b) => void await mem.addCheckpoint(b));
  const dir = await Deno.makeTempDir({ prefix: "jc-bench-witness-" });
  const sqlState = openSqliteWitnessState(`${dir}/witness.sqlite`);
  const sql = createWitness({ ...witnessOpts, logs, state: sqlState });
  const durable = await rate(bodies, async (b) => void await sql.addCheckpoint(b));
  await sqlState.close();
  const svc = await startService({ DATA_DIR: `${dir}/svc`, JC_WITNESS_LOGS: vkeys.join(",") });
  let http;
  try {
    // warm-up: the first request of a fresh process pays for compilation
    await (await fetch(`${svc.url}/v1/log/key`)).arrayBuffer();
    http = await rate(bodies, async (b) => {
      const res = await fetch(`${svc.url}/add-checkpoint`, { method: "POST", body: b.slice() });
      await res.arrayBuffer();
      if (res.status !== 200) {
        throw new Error(`Cannot bench: add-checkpoint answered ${res.status}`);
      }
    });
  } finally {
    await svc.stop();
  }

  // Appends/s with two witnesses vs none.
  const aSecret = ed25519GenerateSecret();
  const keyFile = `${dir}/a-key.hex`;
  // A log key is private to its owner (key-file-permissions, docs/CONFIG.md "key_file").
  await Deno.writeTextFile(keyFile, toHex(aSecret) + "\n", { mode: 0o600 });
  // A fresh log per run with witnesses, under its own name: the same origin with another tree
  // would be a fork to the witnesses (and the collector's alarm).
  const aName = (round: number) => `bench.witness.test/a${round}`;
  const aVkeys = [0, 1].map((r) => ed25519Vkey(`${aName(r)}/sha256`, aSecret)).join(",");
  const wEnv = (n: string) => ({ DATA_DIR: `${dir}/${n}`, JC_WITNESS_LOGS: aVkeys });
  const b = await startService(wEnv("b"));
  const c = await startService(wEnv("c"));
  try {
    const wv = async (u: string) => (await (await fetch(`${u}/v1/log/key`)).json()).witness_vkey;
    const witnesses = `${b.url} ${await wv(b.url)},${c.url} ${await wv(c.url)}`;
    // Sized from this machine's raw verify rate (an append costs at least one verify; four
    // timed windows and their warm-ups), topped up while the runs go on (bench/suites/_pool.ts).
    // JC_BENCH_WITNESS_POOL overrides the size (tests/bench/short_test.ts: a small pool, so that
    // the top-up path runs).
    const planned = Number(
      Deno.env.get("JC_BENCH_WITNESS_POOL") ?? Math.ceil(4 * (raw * MS / 1000 + 20)),
    );
    const pool = await SigningPool.create(planned, (envelope) => ({
      envelope,
      req: appendRequest(envelope),
    }));
    // Each run is a new log under the key made above: its own signed-head pin, made explicitly
    // (a key made beforehand with no pin is refused log-store-missing; one pin shared by the
    // runs would hold a fresh store behind the last run's head, store-behind-signed-head).
    const aEnv = async (n: string, round: number, extra: Record<string, string>) => ({
      DATA_DIR: `${dir}/${n}`,
      JC_KEY_FILE: keyFile,
      JC_PIN_FILE: await initLogPin(keyFile, `${dir}/${n}.pin`),
      JC_LOG_NAME: aName(round),
      ...extra,
    });
    const runs: { none: number[]; two: number[] } = { none: [], two: [] };
    let lastHealth: unknown;
    for (let round = 0; round < 2; round++) {
      const n = await appendsPerSecond(await aEnv(`a0-${round}`, round, {}), pool);
      runs.none.push(n.perS);
      const w = await appendsPerSecond(
        await aEnv(`a2-${round}`, round, { JC_WITNESSES: witnesses }),
        pool,
      );
      runs.two.push(w.perS);
      lastHealth = w.health;
    }
    const sum = (xs: number[]) => xs.reduce((a, x) => a + x, 0);
    return {
      raw_webcrypto_ed25519_verifies_per_s: raw,
      add_checkpoint: {
        tree_leaves: LEAVES,
        origins,
        requests: bodies.length,
        mean_proof_hashes: meanProofHashes,
        in_process_memory_state: inMemory,
        in_process_sqlite_state: durable,
        http_sequential: http,
        ratio_memory_to_raw_verifies: Math.round((inMemory.handled_per_s / raw) * 1000) / 1000,
      },
      appends_with_witnesses: {
        none_per_s: runs.none,
        two_witnesses_per_s: runs.two,
        ratio: Math.round((sum(runs.two) / sum(runs.none)) * 1000) / 1000,
        goal_ratio: 0.95,
        presigned: pool.presigned,
        signed_during_run: pool.signedDuringRun,
        collector_health_after_last_run: lastHealth,
      },
    };
  } finally {
    await b.stop();
    await c.stop();
  }
};
