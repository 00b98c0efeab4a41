// Transparency-log figures (issue 3), SQLite backend with durable commits (WAL, synchronous=FULL):
// appends/s through the sequencer (log path only: no receipt verification) beside the raw SQLite
// durable commit rate and the raw BLAKE3 node-hash rate measured in the same run; inclusion and
// consistency proof time and point reads (tile loads) at growing sizes; RSS as the log grows; and
// bytes on disk per entry beyond the entry itself (real file size after a WAL checkpoint).
// Default sizes 10^4 and 10^5; BENCH_LOG_LARGE=1 adds 10^6 (and BENCH_LOG_MAX, e.g. 10000000).
import { DatabaseSync } from "node:sqlite";
import process from "node:process";
import { statSync } from "node:fs";
import { blake3Hasher, type LogStorage, openLog, verifyInclusion } from "../../log/mod.ts";
import { openSqliteStorage } from "../../log/sqlite/mod.ts";

const ENTRY_BYTES = 300;

function rawCommitRate(path: string, seconds = 1.5): number {
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
  while (performance.now() - t0 < 500) {
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
    tile: (l, i) => (c.reads++, s.tile(l, i)),
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

export default async function (): Promise<Record<string, unknown>> {
  const large = Deno.env.get("BENCH_LOG_LARGE") === "1";
  const max = Number(Deno.env.get("BENCH_LOG_MAX") ?? (large ? 1_000_000 : 100_000));
  const checkpoints = [10_000, 100_000, 1_000_000, 10_000_000].filter((n) => n <= max);
  const dir = await Deno.makeTempDir({ prefix: "jc-bench-log-" });
  try {
    const limits = {
      raw_sqlite_durable_commits_per_s: rawCommitRate(`${dir}/raw.sqlite`),
      raw_blake3_node_hashes_per_s: rawNodeHashRate(),
    };
    const store = openSqliteStorage(`${dir}/log.sqlite`);
    const { wrapped, c } = counting(store);
    const log = await openLog(wrapped, { secretKey: new Uint8Array(32).fill(5) });
    const rss0 = Deno.memoryUsage().rss;
    const rss: Record<string, number> = { "0": mb(rss0) };
    const heap: Record<string, number> = { "0": mb(Deno.memoryUsage().heapUsed) };
    const sizes: Record<string, unknown> = {};
    let n = 0;
    let appendMs = 0;
    let appendCpuUs = 0;
    const window = 4096; // appends in flight (below the default pendingMax)
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
      if (!throughput && n >= 10_000) {
        throughput = {
          appends: n - start,
          appends_per_s: Math.round((n - start) / ((performance.now() - t0) / 1000)),
          cpu_us_per_append: Math.round((cpuUs() - c0) / (n - start) * 10) / 10,
        };
      }
      rss[String(n)] = mb(Deno.memoryUsage().rss);
      heap[String(n)] = mb(Deno.memoryUsage().heapUsed);
      // Proofs against the latest head: time and point reads (store reads past the log's bounded
      // tile cache), random indices; the cache is warm from the previous checkpoints only.
      const head = await log.latestHead();
      const root = Uint8Array.from(head.root.match(/../g)!, (x) => parseInt(x, 16));
      const K = 500;
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
    return {
      backend: "sqlite (node:sqlite, WAL, synchronous=FULL)",
      entry_bytes: ENTRY_BYTES,
      machine_limits: limits,
      sequencer: {
        ...throughput,
        overall_appends_per_s: Math.round(n / (appendMs / 1000)),
        overall_cpu_us_per_append: Math.round(appendCpuUs / n * 10) / 10,
        appends_total: n,
        in_flight: window,
        note: "durable + signed head before each append resolves; no receipt verification",
      },
      sizes,
      rss_mb_by_entries: rss,
      rss_growth_mb: mb(Deno.memoryUsage().rss - rss0),
      heap_used_mb_by_entries: heap,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
