// Transparency-log figures (issue 3), SQLite backend with durable commits (WAL, synchronous=FULL):
// appends/s through the sequencer (log path only: no receipt verification) beside the raw SQLite
// durable commit rate and the raw BLAKE3 node-hash rate measured in the same run; inclusion and
// consistency proof time and point reads (tile loads) at growing sizes; RSS as the log grows; and
// bytes on disk per entry beyond the entry itself (real file size after a WAL checkpoint).
// Default sizes 10^4 and 10^5; BENCH_LOG_LARGE=1 adds 10^6 (and BENCH_LOG_MAX, e.g. 10000000).
import { DatabaseSync } from "node:sqlite";
import process from "node:process";
import { statSync } from "node:fs";
import v8 from "node:v8";
import vm from "node:vm";
import { blake3Hasher, type LogStorage, openLog, verifyInclusion } from "../../log/mod.ts";
import { LEAF_INDEX_LAG, openPinFile, openSqliteStorage } from "../../log/sqlite/mod.ts";
import { ed25519PublicKey } from "../../verify/mod.ts";
import { count, ms } from "./_short.ts";
import { lookups } from "./_lookups.ts";

const ENTRY_BYTES = 300;

function rawCommitRate(path: string, seconds = ms(1500) / 1000): number {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)");
  const ins = db.prepare("INSERT INTO t (v) VALUES (?)");
  const v = new Uint8Array(ENTRY_BYTES);
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < seconds * 1000) {
    db.exec("BEGIN");
    ins.run(v);
    db.exec("COMMIT");
    n++;
  }
  const rate = n / ((performance.now() - t0) / 1000);
  db.close();
  return Math.round(rate);
}

function rawNodeHashRate(): number {
  const a = new Uint8Array(32), b = new Uint8Array(32).fill(1);
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < ms(500)) {
    for (let i = 0; i < 1000; i++) blake3Hasher.node(a, b);
    n += 1000;
  }
  return Math.round(n / ((performance.now() - t0) / 1000));
}

/** Wraps a store, counting point reads. */
function counting(s: LogStorage) {
  const c = { reads: 0 };
  const wrapped: LogStorage = {
    ...s,
    tile: (l, i, v) => (c.reads++, s.tile(l, i, v)),
    entry: (i) => (c.reads++, s.entry(i)),
    leafCandidates: (h) => (c.reads++, s.leafCandidates(h)),
  };
  return { wrapped, c };
}

const text = new TextEncoder();
const entryOf = (i: number) => {
  const e = new Uint8Array(ENTRY_BYTES);
  text.encodeInto(`bench entry ${i} `, e);
  e.fill(0x61, 24);
  return e;
};

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

const mb = (x: number) => Math.round(x / 1e5) / 10;

/** A full garbage collection (V8's gc, exposed through node:v8 for this process). */
function fullGc(): () => void {
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc") as () => void;
}

/**
 * Appends/s and CPU µs per append of a fresh durable log, `n` entries in flight windows of 4,096,
 * with the SHA-256 view (PUBLICATION.md P1) or without it (the "before" figure: `sha256View:
 * false`, a benchmark-only switch).
 */
async function pairedRun(path: string, n: number, sha256View: boolean) {
  const store = openSqliteStorage(path);
  const log = await openLog(store, { secretKey: new Uint8Array(32).fill(6), sha256View });
  const t0 = performance.now();
  const c0 = cpuUs();
  for (let k = 0; k < n; k += 4096) {
    const ps = [];
    for (let i = k; i < Math.min(n, k + 4096); i++) ps.push(log.append(entryOf(i)));
    await Promise.all(ps);
  }
  const out = {
    appends: n,
    appends_per_s: Math.round(n / ((performance.now() - t0) / 1000)),
    cpu_us_per_append: Math.round((cpuUs() - c0) / n * 10) / 10,
  };
  await log.close();
  return out;
}

/** Before/after in one run: BLAKE3 view only, then both views, each twice (the second kept). */
async function viewsCost(dir: string) {
  const n = Number(Deno.env.get("BENCH_LOG_PAIRED") ?? 20_000);
  const runs: Record<string, Awaited<ReturnType<typeof pairedRun>>> = {};
  for (const round of [0, 1]) {
    runs.blake3_only = await pairedRun(`${dir}/b3-${round}.sqlite`, n, false);
    runs.both_views = await pairedRun(`${dir}/both-${round}.sqlite`, n, true);
  }
  return {
    ...runs,
    added_cpu_us_per_append: Math.round(
      (runs.both_views.cpu_us_per_append - runs.blake3_only.cpu_us_per_append) * 10,
    ) / 10,
    note: "fresh durable logs of the same entries, second of two alternating rounds each",
  };
}

export default async function (): Promise<Record<string, unknown>> {
  const large = Deno.env.get("BENCH_LOG_LARGE") === "1";
  const max = Number(Deno.env.get("BENCH_LOG_MAX") ?? (large ? 1_000_000 : 100_000));
  const checkpoints = [10_000, 100_000, 1_000_000, 10_000_000].filter((n) => n <= max)
    .map((n) => count(n));
  const dir = await Deno.makeTempDir({ prefix: "jc-bench-log-" });
  try {
    const limits = {
      raw_sqlite_durable_commits_per_s: rawCommitRate(`${dir}/raw.sqlite`),
      raw_blake3_node_hashes_per_s: rawNodeHashRate(),
    };
    const views = await viewsCost(dir);
    // issue 24: lookups and search pages at 10^6 entries (BENCH_LOG_LOOKUPS; 0 skips them)
    const lookupFigures = Deno.env.get("BENCH_LOG_LOOKUPS") === "0"
      ? undefined
      : await lookups(dir);
    // BENCH_LOG_LAG: the SQLite leaf index's lag (0 = flushed with every batch, the old layout).
    const lagEnv = Deno.env.get("BENCH_LOG_LAG");
    const leafIndexLag = lagEnv === undefined ? undefined : Number(lagEnv);
    const store = openSqliteStorage(`${dir}/log.sqlite`, { leafIndexLag });
    const { wrapped, c } = counting(store);
    // as the service runs it: every head pinned (one pwrite + fdatasync) before it is served;
    // BENCH_LOG_PIN=0 leaves the pin out (the figure before issue 27)
    const secretKey = new Uint8Array(32).fill(5);
    const pin = Deno.env.get("BENCH_LOG_PIN") === "0"
      ? undefined
      : openPinFile(`${dir}/log-key.hex.pin`, ed25519PublicKey(secretKey), "bench");
    const log = await openLog(wrapped, { secretKey, pin });
    const rss0 = Deno.memoryUsage().rss;
    const rss: Record<string, number> = { "0": mb(rss0) };
    const heap: Record<string, number> = { "0": mb(Deno.memoryUsage().heapUsed) };
    // Where RSS goes: V8's reserved heap (heapTotal) and external buffers vs native (SQLite, malloc).
    const memOf = () => {
      const m = Deno.memoryUsage();
      return {
        rss: mb(m.rss),
        heap_total: mb(m.heapTotal),
        heap_used: mb(m.heapUsed),
        external: mb(m.external),
        native_rest: mb(m.rss - m.heapTotal - m.external),
      };
    };
    const mem: Record<string, ReturnType<typeof memOf>> = { "0": memOf() };
    // After a full GC nothing of the harness is alive (no appends in flight, no results kept):
    // the live heap is the log's own state (bounded caches, the leaf-index tail, O(log n) edge).
    const gc = fullGc();
    const afterGc = () => {
      gc();
      const m = Deno.memoryUsage();
      return {
        rss: mb(m.rss),
        heap_total: mb(m.heapTotal),
        heap_live: mb(m.heapUsed),
        external: mb(m.external),
      };
    };
    const memGc: Record<string, ReturnType<typeof afterGc>> = { "0": afterGc() };
    const sizes: Record<string, unknown> = {};
    let n = 0;
    let appendMs = 0;
    let appendCpuUs = 0;
    // Appends in flight (below the default pendingMax); BENCH_LOG_WINDOW changes it, to tell the
    // harness's share of the memory (its results in flight) from the log's.
    const window = Number(Deno.env.get("BENCH_LOG_WINDOW") ?? 4096);
    let throughput: Record<string, number> | undefined;
    for (const target of checkpoints) {
      const t0 = performance.now();
      const c0 = cpuUs();
      const start = n;
      while (n < target) {
        const k = Math.min(window, target - n);
        const ps = [];
        for (let i = 0; i < k; i++) ps.push(log.append(entryOf(n + i)));
        await Promise.all(ps);
        n += k;
      }
      appendMs += performance.now() - t0;
      appendCpuUs += cpuUs() - c0;
      if (!throughput && n >= count(10_000)) {
        throughput = {
          appends: n - start,
          appends_per_s: Math.round((n - start) / ((performance.now() - t0) / 1000)),
          cpu_us_per_append: Math.round((cpuUs() - c0) / (n - start) * 10) / 10,
        };
      }
      rss[String(n)] = mb(Deno.memoryUsage().rss);
      heap[String(n)] = mb(Deno.memoryUsage().heapUsed);
      mem[String(n)] = memOf();
      memGc[String(n)] = afterGc();
      // Proofs against the latest head: time and point reads (store reads past the log's bounded
      // tile cache), random indices; the cache is warm from the previous checkpoints only.
      const head = await log.latestHead();
      const root = Uint8Array.from(head.root.match(/../g)!, (x) => parseInt(x, 16));
      const K = count(500);
      let reads = 0, maxReads = 0;
      const t1 = performance.now();
      for (let j = 0; j < K; j++) {
        const index = Math.floor(((j * 2654435761) % 2 ** 32) / 2 ** 32 * n);
        const r0 = c.reads;
        const p = await log.inclusionProof(index, n);
        reads += c.reads - r0;
        maxReads = Math.max(maxReads, c.reads - r0);
        if (
          j === 0 &&
          !verifyInclusion(blake3Hasher, index, n, blake3Hasher.leaf(entryOf(index)), p, root)
        ) {
          throw new Error("Cannot bench: inclusion proof does not verify");
        }
      }
      const inclMs = (performance.now() - t1) / K;
      let creads = 0, cmax = 0;
      const t2 = performance.now();
      for (let j = 0; j < K; j++) {
        const first = 1 + Math.floor(((j * 40503 + 7) % 65536) / 65536 * (n - 1));
        const r0 = c.reads;
        await log.consistencyProof(first, n);
        creads += c.reads - r0;
        cmax = Math.max(cmax, c.reads - r0);
      }
      const consMs = (performance.now() - t2) / K;
      store.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      const fileBytes = statSync(store.path).size;
      sizes[String(n)] = {
        inclusion_proof_ms: Math.round(inclMs * 1000) / 1000,
        inclusion_point_reads_mean: reads / K,
        inclusion_point_reads_max: maxReads,
        consistency_proof_ms: Math.round(consMs * 1000) / 1000,
        consistency_point_reads_mean: creads / K,
        consistency_point_reads_max: cmax,
        db_bytes: fileBytes,
        overhead_bytes_per_entry: Math.round((fileBytes - n * ENTRY_BYTES) / n * 10) / 10,
        heads_stored:
          (store.db.prepare("SELECT count(*) AS c FROM heads").get() as { c: number }).c,
      };
    }
    await log.close();
    pin?.close();
    return {
      backend: "sqlite (node:sqlite, WAL, synchronous=FULL)",
      leaf_index_lag: leafIndexLag ?? LEAF_INDEX_LAG,
      entry_bytes: ENTRY_BYTES,
      machine_limits: limits,
      sequencer: {
        ...throughput,
        overall_appends_per_s: Math.round(n / (appendMs / 1000)),
        overall_cpu_us_per_append: Math.round(appendCpuUs / n * 10) / 10,
        appends_total: n,
        in_flight: window,
        signed_head_pin: pin !== undefined,
        note: "both views (BLAKE3 and SHA-256, PUBLICATION.md P1) advanced and their heads and " +
          "checkpoints signed; durable (and pinned, unless BENCH_LOG_PIN=0) before each append " +
          "resolves; no receipt verification",
      },
      sha256_view_cost: views,
      lookups: lookupFigures,
      sizes,
      rss_mb_by_entries: rss,
      // RSS growth from the empty log: at the end of the run, as measured before the GC figures
      // were added (a full GC now runs at every checkpoint, which lowers it), beside the growth
      // of the largest RSS seen at a checkpoint before its GC, and after a full GC (the log's state).
      rss_growth_mb: mb(Deno.memoryUsage().rss - rss0),
      rss_growth_mb_peak_before_gc: Math.round(
        (Math.max(...Object.values(mem).map((m) => m.rss)) - mem["0"].rss) * 10,
      ) / 10,
      rss_growth_mb_after_full_gc: Math.round((memGc[String(n)].rss - memGc["0"].rss) * 10) / 10,
      live_heap_growth_mb_after_full_gc:
        Math.round((memGc[String(n)].heap_live - memGc["0"].heap_live) * 10) / 10,
      heap_used_mb_by_entries: heap,
      memory_mb_by_entries: mem,
      memory_after_full_gc_mb_by_entries: memGc,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
