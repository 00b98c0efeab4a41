// The Worker build under real local workerd (issues 7 and 12): edge/worker/worker.ts bundled as for
// `wrangler deploy`, wrangler.toml's bindings (sequencer and batcher Durable Objects, a local R2
// bucket), durable local state, rate limits off, driven over HTTP on 127.0.0.1 from this process.
// NOT Cloudflare: client, Miniflare, workerd and the simulated R2 share this machine's cores, so
// these are the local runtime's figures; network latency to R2 and between objects is absent.
// Figures, beside the machine's raw WebCrypto Ed25519 verifies/s measured in the same run:
//  - closed loop at concurrency 64 and 256 with 1, 4 and 8 batchers, and with appends straight
//    to the one sequencer object (no batchers: the single-object figure): verified appends/s
//    (only answers whose inclusion proof and head signature verify count) and ack p50/p99;
//  - Durable Object calls per append (front → batcher, batcher → sequencer, from the objects'
//    own counters);
//  - the sequencer's SQLite bytes after 10^5 and 10^6 entries (10^4 and 10^5 in the short
//    mode), measured on the same store code over node:sqlite (the engine Durable Objects run)
//    with an in-memory R2: it must stay flat, not grow with the log;
//  - tile reads/s from R2 through the Worker: first read of each tile (R2, then the Cache API
//    keeps it) and repeated (Cache API hit).
// JC_BENCH_SHORT=1: short mode (a test runs it): fewer configurations, shorter loops.
// JC_BENCH_EDGE_WRITES=1: the write-cost mode (issue 29): only 256 appends in flight through 8
// batchers, a loop of 20 s (1 s short) with the dedup window at its least (256) so the window's
// pruning is counted in steady state; reports R2 puts, SQLite rows and USD per append at the top
// (counted by the sequencer's store) and skips the tile reads and the storage growth; with
// JC_BATCH_AGE_MS set, the sequencer's batch age (its rounds' size against their latency).
import { validEnvelope } from "../../fixtures/app.ts";
import { removeBundle, startWorker } from "../../fixtures/worker.ts";
import { memoryBucket, sqliteDurableStorage } from "../../fixtures/sqlite_durable.ts";
import { blake3Hasher, openLog, verifyInclusion, verifyTreeHead } from "../../log/mod.ts";
import type { TreeHead } from "../../log/mod.ts";
import { openDurableStorage } from "../../log/durable/mod.ts";
import { R2PublishedStorage } from "../../log/r2/r2_storage.ts";
import { ed25519GenerateSecret } from "../../log/crypto.ts";
import { entryLeafHash, fromHex, toHex } from "../../verify/mod.ts";
import { LogClient } from "../../client/mod.ts";
import { rawWebCryptoVerifiesPerSecond } from "./_limits.ts";
import { count, ms, SHORT } from "./_short.ts";

const WRITES = Deno.env.get("JC_BENCH_EDGE_WRITES") === "1";
const ROUND_AGE = Deno.env.get("JC_BATCH_AGE_MS");
const CONCURRENCIES = WRITES ? [256] : SHORT ? [64] : [64, 256];
const BATCHERS = WRITES ? [8] : SHORT ? [0, 8] : [0, 1, 4, 8];
const CLOSED_MS = WRITES ? ms(20_000) : ms(5_000);
// Short mode: a tenfold growth big enough to show SQLite flat (tests/edge/bench_edge_test).
const STORAGE_SIZES = SHORT ? [10_000, 100_000] : [100_000, 1_000_000];
const TILE_READS = count(200, 40);

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100;
}

interface Appended {
  envelope: Uint8Array;
  body: { index: number; leaf_hash: string; tree_head: TreeHead; inclusion_proof: string[] };
}

// Local workerd resets a keep-alive connection reused after a long request (docs/EDGE.md
// "Batchers"); an append is exactly-once, so a reset one is sent again on a connection of its own.
let fresh: Deno.HttpClient | undefined;

async function post(base: URL, envelope: Uint8Array): Promise<Appended> {
  const send = (client?: Deno.HttpClient) =>
    fetch(new URL("/v1/log/entries", base), {
      method: "POST",
      headers: { "content-type": "application/cose", accept: "application/json" },
      body: envelope.slice(),
      client,
    });
  const res = await send().catch(() =>
    send(fresh ??= Deno.createHttpClient({ poolMaxIdlePerHost: 0 }))
  );
  const body = await res.json();
  if (res.status !== 201) throw new Error(`Cannot append: ${res.status} ${JSON.stringify(body)}`);
  return { envelope, body };
}

async function verified(answers: Appended[], signer: string): Promise<number> {
  let ok = 0;
  const heads = new Map<string, boolean>();
  for (const a of answers) {
    const b = a.body;
    if (b.leaf_hash !== toHex(entryLeafHash(a.envelope))) continue;
    const hk = b.tree_head.signature;
    if (!heads.has(hk)) heads.set(hk, await verifyTreeHead(b.tree_head, signer));
    if (!heads.get(hk)) continue;
    if (
      verifyInclusion(
        blake3Hasher,
        b.index,
        b.tree_head.size,
        fromHex(b.leaf_hash),
        b.inclusion_proof.map(fromHex),
        fromHex(b.tree_head.root),
      )
    ) ok++;
  }
  return ok;
}

// deno-lint-ignore no-explicit-any
async function stats(base: URL): Promise<any> {
  return await (await fetch(new URL("/__edge/stats", base))).json();
}

/** One runtime with `batchers` batchers: closed loops at each concurrency. */
async function appendRun(batchers: number, pool: Uint8Array[]) {
  let used = 0;
  let signedDuringRun = 0;
  // Each run is a fresh log: the same pre-signed envelopes serve every run; a machine fast
  // enough to use them all gets more, signed as they are needed (counted in signed_during_run)
  // rather than a crash or a loop cut short.
  const take = () => {
    if (used < pool.length) return pool[used++];
    signedDuringRun++;
    return validEnvelope(900_000 + used++);
  };
  const state = await Deno.makeTempDir({ prefix: "jc-bench-edge-" });
  const rt = await startWorker(state, {
    JC_EDGE_BATCHERS: String(batchers),
    JC_EDGE_CHECKPOINT_MS: "1000", // as deployed: R2's one write per second per key
    JC_BATCH_MAX: "4096",
    ...(WRITES ? { JC_EDGE_DEDUP_WINDOW: "256" } : {}),
    // the write-cost mode's one knob: the sequencer's batch age (cost against latency)
    ...(WRITES && ROUND_AGE ? { JC_BATCH_AGE_MS: ROUND_AGE } : {}),
  });
  try {
    const signer = await new LogClient(rt.url.href).signer();
    for (let i = 0; i < 10; i++) await post(rt.url, take()); // warm the isolate and objects
    const out: Record<string, unknown> = {};
    for (const c of CONCURRENCIES) {
      console.error(`bench edge: batchers ${batchers}, concurrency ${c}`);
      const s0 = await stats(rt.url);
      const lat: number[] = [];
      const answers: Appended[] = [];
      const end = performance.now() + CLOSED_MS;
      const t0 = performance.now();
      await Promise.all(Array.from({ length: c }, async () => {
        while (performance.now() < end) {
          const s = performance.now();
          answers.push(await post(rt.url, take()));
          lat.push(performance.now() - s);
        }
      }));
      const secs = (performance.now() - t0) / 1000;
      const s1 = await stats(rt.url);
      const ok = await verified(answers, signer);
      const seqCalls = s1.sequencer.calls - s0.sequencer.calls - 1; // less the stats call
      const frontCalls = answers.length; // each append: one call from the front Worker
      out[`concurrency_${c}`] = {
        verified_appends_per_s: Math.round(ok / secs),
        appends: answers.length,
        verified: ok,
        ack_ms: { p50: pct(lat, 50), p99: pct(lat, 99) },
        durable_object_calls_per_append: batchers === 0
          ? Math.round((seqCalls / answers.length) * 1000) / 1000
          : Math.round(((frontCalls + seqCalls) / answers.length) * 1000) / 1000,
        sequencer_calls_per_append: Math.round((seqCalls / answers.length) * 1000) / 1000,
        ...writeCosts(s0.sequencer.storage, s1.sequencer.storage, answers.length, {
          doCalls: batchers === 0 ? seqCalls : frontCalls + seqCalls,
        }),
      };
    }
    out.signed_during_run = signedDuringRun;
    return { out, rt, state };
  } catch (e) {
    await rt.stop();
    throw e;
  }
}

/** R2 operations and SQLite rows the sequencer's store counted (R2StorageStats). */
interface StoreCounts {
  r2Gets: number;
  r2Puts: number;
  sqliteRowsWritten: number;
}

/**
 * Issue 29's write figures per append over a window, and its price from docs/EDGE.md's cost model
 * (Cloudflare's published prices, December 2026): Worker requests $0.30/M and ~2 CPU-ms each at
 * $0.02/M CPU-ms, Durable Object requests $0.15/M, SQLite rows written $1.00/M, R2 Class A $4.50/M
 * and Class B $0.36/M; duration and storage (~$0.03/M together) added as the model states them.
 */
function writeCosts(a: StoreCounts, b: StoreCounts, appends: number, o: { doCalls: number }) {
  const per = (n: number) => Math.round((n / appends) * 1000) / 1000;
  const puts = (b.r2Puts - a.r2Puts) / appends, gets = (b.r2Gets - a.r2Gets) / appends;
  const rows = (b.sqliteRowsWritten - a.sqliteRowsWritten) / appends;
  const usd = 0.30 + 0.04 + 0.15 * (o.doCalls / appends) + 1.00 * rows + 4.50 * puts +
    0.36 * gets + 0.03;
  return {
    r2_puts_per_append: per(b.r2Puts - a.r2Puts),
    r2_gets_per_append: per(b.r2Gets - a.r2Gets),
    do_sqlite_rows_per_append: per(b.sqliteRowsWritten - a.sqliteRowsWritten),
    usd_per_million_appends: Math.round(usd * 100) / 100,
  };
}

/** Tile reads through the Worker: first (R2) and repeated (Cache API). */
async function tileReads(base: URL, size: number) {
  const full = Math.floor(size / 256);
  const paths = Array.from(
    { length: TILE_READS },
    (_, k) => `/log/${k % 2 ? "sha256" : "blake3"}/tile/0/${String(k % full).padStart(3, "0")}`,
  );
  const unique = [...new Set(paths)];
  const run = async () => {
    const t0 = performance.now();
    let hits = 0;
    await Promise.all(Array.from({ length: 8 }, async (_, w) => {
      for (let k = w; k < unique.length; k += 8) {
        const r = await fetch(new URL(unique[k], base));
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`Cannot read tile ${unique[k]}: ${r.status}`);
        if (r.headers.get("x-edge-cache") === "HIT") hits++;
      }
    }));
    return { per_s: Math.round(unique.length / ((performance.now() - t0) / 1000)), hits };
  };
  const cold = await run();
  await new Promise((r) => setTimeout(r, 300)); // the Cache API puts run after the answers
  const warm = await run();
  return { tiles: unique.length, cold_r2: cold, warm_cache_api: warm };
}

/** The sequencer store's SQLite bytes as the log grows (node:sqlite, in-memory R2). */
async function storageGrowth() {
  const dir = await Deno.makeTempDir({ prefix: "jc-bench-edge-sql-" });
  const sql = sqliteDurableStorage(`${dir}/do.sqlite`);
  const bucket = memoryBucket();
  const secretKey = ed25519GenerateSecret();
  const store = new R2PublishedStorage(openDurableStorage(sql), bucket, {
    secretKey,
    window: 4096,
    checkpointMs: 1000,
  });
  const log = await openLog(store, { secretKey, batchMax: 4096, batchAgeMs: 1 });
  const out: Record<string, unknown> = {};
  const t0 = performance.now();
  let n = 0;
  const entry = (i: number) => {
    const b = new Uint8Array(200);
    new DataView(b.buffer).setFloat64(0, i);
    b.fill(7, 8);
    return b;
  };
  try {
    for (const target of STORAGE_SIZES) {
      while (n < target) {
        const k = Math.min(4096, target - n);
        await Promise.all(Array.from({ length: k }, (_, j) => log.append(entry(n + j))));
        n += k;
      }
      out[`entries_${target}`] = {
        sqlite_bytes: sql.sql.databaseSize,
        r2_bytes: bucket.bytes(),
        r2_objects: bucket.objects.size,
      };
    }
    out.entry_bytes = 200;
    out.dedup_window = 4096;
    out.seconds = Math.round((performance.now() - t0) / 100) / 10;
    return out;
  } finally {
    await log.close();
    sql.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

export default async () => {
  const rawVerify = await rawWebCryptoVerifiesPerSecond(2000);
  // Envelopes are signed before any clock starts.
  const pool = Array.from(
    { length: WRITES ? count(12_000, 2_000) : count(16_000, 800) },
    (_, k) => validEnvelope(900_000 + k),
  );
  const runs: Record<string, unknown> = {};
  let reads: unknown;
  try {
    for (const b of BATCHERS) {
      const { out, rt, state } = await appendRun(b, pool);
      runs[b === 0 ? "single_object_no_batchers" : `batchers_${b}`] = out;
      try {
        if (!WRITES && b === BATCHERS[BATCHERS.length - 1]) {
          // At least 4 full tiles per view to read (the short mode's loops may log fewer).
          const extra = Array.from({ length: 1100 }, (_, k) => validEnvelope(90_000_000 + k));
          for (let k = 0; k < extra.length; k += 50) {
            await Promise.all(extra.slice(k, k + 50).map((e) => post(rt.url, e)));
          }
          const size = (await (await fetch(new URL("/v1/log/tree-head", rt.url), {
            headers: { accept: "application/json" },
          })).json()).size;
          reads = { log_size: size, ...(await tileReads(rt.url, size)) };
        }
      } finally {
        await rt.stop();
        await Deno.remove(state, { recursive: true }).catch(() => {});
      }
    }
  } finally {
    await removeBundle();
  }
  if (WRITES) {
    // deno-lint-ignore no-explicit-any
    const w = (runs.batchers_8 as any).concurrency_256;
    return {
      runtime:
        "local workerd via Miniflare (edge/serve.mjs) with a local R2 bucket — NOT Cloudflare",
      short_mode: SHORT,
      mode: "writes: 256 appends in flight through 8 batchers, dedup window 256",
      sequencer_batch_age_ms: Number(ROUND_AGE ?? 5),
      raw_webcrypto_ed25519_verifies_per_s: rawVerify,
      closed_loop_ms: CLOSED_MS,
      r2_puts_per_append: w.r2_puts_per_append,
      r2_gets_per_append: w.r2_gets_per_append,
      do_sqlite_rows_per_append: w.do_sqlite_rows_per_append,
      usd_per_million_appends: w.usd_per_million_appends,
      appends: runs,
    };
  }
  return {
    runtime: "local workerd via Miniflare (edge/serve.mjs) with a local R2 bucket — NOT Cloudflare",
    short_mode: SHORT,
    raw_webcrypto_ed25519_verifies_per_s: rawVerify,
    closed_loop_ms: CLOSED_MS,
    appends: runs,
    tile_reads_through_worker: reads,
    sequencer_storage: await storageGrowth(),
  };
};
