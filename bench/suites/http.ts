// The HTTP service under load (issue 4): the real service (`deno task start`, SQLite in a fresh
// data dir, rate limits off) driven over HTTP by concurrent clients in this process.
// Figures, each beside the machine's raw WebCrypto Ed25519 verifies/s measured in the same run:
//  - closed loop: verified durable appends/s (every answer carries its head and inclusion proof;
//    only answers whose proof and head then verify are counted) and ack latency p50/p99;
//  - open loop at a fixed offered rate (5,000/s): achieved rate and latency p50/p99;
//  - inclusion proofs served per second (GET /v1/log/proof/inclusion): 4,096 random indices
//    sent again and again (cache hits after the first pass), and distinct (index, size) pairs
//    (every one a miss of the server's proof-body cache);
//  - a bare Deno.serve driven by the same client: the machine's floor for any route.
// Envelopes are signed before the clock starts, and every request's bytes are built before it:
// the client is a minimal HTTP/1.1 keep-alive client over TCP (one request in flight per
// connection, responses framed by Content-Length), so that it spends its share of the machine's
// two cores on as little as possible (`fetch` cost more CPU per request than the server did).
// The CPU seconds of the server process and of this client are reported beside each figure.
import process from "node:process";
import { LogClient } from "../../client/mod.ts";
import { startService } from "../../tests/e2e/_service.ts";
import { entryLeafHash, toHex } from "../../verify/mod.ts";
import { rawWebCryptoVerifiesPerSecond } from "./_limits.ts";
import { count, ms } from "./_short.ts";
import { SigningPool } from "./_pool.ts";

const CONCURRENCY = Number(Deno.env.get("JC_BENCH_CONCURRENCY") ?? 256);
/** The server's JC_VERIFY_WORKERS (docs/CONFIG.md); unset: the server's default ("auto"). */
const VERIFY_WORKERS = Deno.env.get("JC_BENCH_VERIFY_WORKERS");
/** The server's JC_STREAM_CHECKS (issue 24: "off" gives the figure before stream checks). */
const STREAM_CHECKS = Deno.env.get("JC_BENCH_STREAM_CHECKS");
const CLOSED_MS = ms(8_000);
const OPEN_RATE = 5_000;
const OPEN_MS = ms(2_000);
const PROOF_MS = ms(4_000);
const UNCACHED_PROOF_MS = ms(2_000);

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100;
}

/** One keep-alive HTTP/1.1 connection: sends pre-built requests, one at a time. */
export class Conn {
  #buf = new Uint8Array(1 << 16);
  #len = 0;
  private constructor(readonly c: Deno.TcpConn) {}

  static async open(port: number): Promise<Conn> {
    const c = await Deno.connect({ hostname: "127.0.0.1", port });
    c.setNoDelay(true);
    return new Conn(c);
  }

  /** Writes `req` and reads one response: its status and body bytes. */
  async send(req: Uint8Array): Promise<{ status: number; body: Uint8Array }> {
    for (let o = 0; o < req.length;) o += await this.c.write(req.subarray(o));
    for (;;) {
      const end = headEnd(this.#buf, this.#len);
      if (end >= 0) {
        const head = latin1.decode(this.#buf.subarray(0, end));
        const m = /\r\ncontent-length: *(\d+)/i.exec(head);
        if (!m) throw new Error(`Cannot read response: no Content-Length in ${head}`);
        const total = end + 4 + Number(m[1]);
        while (this.#len < total) await this.#fill();
        const status = Number(head.slice(9, 12));
        const body = this.#buf.slice(end + 4, total);
        this.#buf.copyWithin(0, total, this.#len);
        this.#len -= total;
        return { status, body };
      }
      await this.#fill();
    }
  }

  async #fill(): Promise<void> {
    if (this.#len === this.#buf.length) {
      const bigger = new Uint8Array(this.#buf.length * 2);
      bigger.set(this.#buf);
      this.#buf = bigger;
    }
    const n = await this.c.read(this.#buf.subarray(this.#len));
    if (n === null) throw new Error("Cannot read response: connection closed");
    this.#len += n;
  }

  close(): void {
    try {
      this.c.close();
    } catch { /* closed */ }
  }
}

const latin1 = new TextDecoder("latin1");
const utf8 = new TextEncoder();

function headEnd(b: Uint8Array, len: number): number {
  for (let i = 3; i < len; i++) {
    if (b[i] === 10 && b[i - 1] === 13 && b[i - 2] === 10 && b[i - 3] === 13) return i - 3;
  }
  return -1;
}

/** The bytes of a POST of `envelope` as application/cose. */
export function appendRequest(envelope: Uint8Array): Uint8Array {
  const head = utf8.encode(
    "POST /v1/log/entries HTTP/1.1\r\nhost: bench\r\ncontent-type: application/cose\r\n" +
      `content-length: ${envelope.length}\r\n\r\n`,
  );
  const out = new Uint8Array(head.length + envelope.length);
  out.set(head);
  out.set(envelope, head.length);
  return out;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number, tid?: number): number {
  const stat = Deno.readTextFileSync(tid ? `/proc/${pid}/task/${tid}/stat` : `/proc/${pid}/stat`);
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** CPU seconds so far of a process's threads, grouped by thread name (/proc/<pid>/task/*). */
function threadCpu(pid: number): Record<string, number> {
  const out: Record<string, number> = { main: 0, verify_workers: 0, v8_gc_and_compile: 0, io: 0 };
  for (const t of Deno.readDirSync(`/proc/${pid}/task`)) {
    const tid = Number(t.name);
    let comm: string, cpu: number;
    try {
      comm = Deno.readTextFileSync(`/proc/${pid}/task/${tid}/comm`).trim();
      cpu = cpuSeconds(pid, tid);
    } catch {
      continue; // the thread ended
    }
    const group = tid === pid
      ? "main"
      : comm.startsWith("worker-")
      ? "verify_workers"
      : comm.startsWith("V8")
      ? "v8_gc_and_compile"
      : "io"; // tokio: sockets, file I/O, the WAL fdatasync
    out[group] += cpu;
  }
  return out;
}

/** The server's sequencer CPU seconds by phase (jc_sequencer_cpu_seconds_total on /metrics). */
async function sequencerCpu(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (
    const m of text.matchAll(/^jc_sequencer_cpu_seconds_total\{phase="(\w+)"\} ([\d.e+-]+)$/gm)
  ) {
    out[m[1]] = Number(m[2]);
  }
  return out;
}

/**
 * Server CPU µs per append over a window, split: HTTP (the event loop's thread outside the
 * sequencer: parsing, routing, body, JSON), verify (the verifier workers' threads), sequence,
 * commit (the store's commit call on the event loop) and response (proofs and answers), plus the
 * threads that are neither: V8's GC/compiler threads and tokio's I/O threads (sockets, fdatasync).
 */
async function appendSplit(url: string, pid: number) {
  const t0 = threadCpu(pid), s0 = await sequencerCpu(url);
  return async (appends: number) => {
    const t1 = threadCpu(pid), s1 = await sequencerCpu(url);
    const us = (s: number) => Math.round((s * 1e6) / appends * 10) / 10;
    const seq = (k: string) => (s1[k] ?? 0) - (s0[k] ?? 0);
    const main = t1.main - t0.main;
    return {
      http: us(main - seq("sequence") - seq("commit") - seq("answer")),
      verify: us(t1.verify_workers - t0.verify_workers),
      sequence: us(seq("sequence")),
      commit: us(seq("commit")),
      response: us(seq("answer")),
      v8_gc_and_compile_threads: us(t1.v8_gc_and_compile - t0.v8_gc_and_compile),
      io_threads_sockets_and_fdatasync: us(t1.io - t0.io),
      note: "µs of server CPU per verified durable append, by thread and sequencer phase; " +
        "main-thread phases from /proc/thread-self/schedstat, threads from /proc/<pid>/task",
    };
  };
}

const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

export interface Answer {
  envelope: Uint8Array;
  body: { index: number; leaf_hash: string; tree_head: never; inclusion_proof: string[] };
}

/** A pre-signed envelope and the request that appends it. */
export interface Prepared {
  envelope: Uint8Array;
  req: Uint8Array;
}

const prepared = (envelope: Uint8Array): Prepared => ({ envelope, req: appendRequest(envelope) });

export async function post(conn: Conn, p: Prepared): Promise<Answer> {
  const { status, body } = await conn.send(p.req);
  const json = JSON.parse(new TextDecoder().decode(body));
  if (status !== 201) throw new Error(`Cannot append: ${status} ${JSON.stringify(json)}`);
  return { envelope: p.envelope, body: json };
}

/**
 * CPU seconds used by the server (all its threads, and its main thread: the event loop, whose
 * saturation bounds the rate) and by this client over a measured window.
 */
function cpuMeter(pid: number) {
  const s0 = cpuSeconds(pid), m0 = cpuSeconds(pid, pid), c0 = selfCpu();
  return () => ({
    server_cpu_s: Math.round((cpuSeconds(pid) - s0) * 100) / 100,
    server_main_thread_cpu_s: Math.round((cpuSeconds(pid, pid) - m0) * 100) / 100,
    client_cpu_s: Math.round((selfCpu() - c0) * 100) / 100,
  });
}

/**
 * The floor of this machine's HTTP serving: a bare `Deno.serve` (its own process, no Hono, no
 * log) answering every GET with a constant ~700-byte JSON body (an inclusion proof's size), driven
 * by the same client for `ms`. What no route can beat on this machine in the same run.
 */
async function bareDenoServe(ms: number, tileHeaders?: [string, string][]) {
  const code = tileHeaders
    // A full tile's size (8,192 bytes) with the given headers.
    ? `const body = new Uint8Array(8192).fill(7);
    const headers = ${JSON.stringify(tileHeaders)};
    Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: (a) => console.log(a.port) },
      () => new Response(body, { headers }));`
    : `const body = JSON.stringify({ index: 1, size: 2, leaf_hash: "a".repeat(64),
      path: Array.from({ length: 10 }, () => "b".repeat(64)) });
    Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: (a) => console.log(a.port) },
      () => new Response(body, { headers: { "content-type": "application/json" } }));`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("Cannot measure bare Deno.serve: it exited");
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const conns = await Promise.all(
    Array.from({ length: CONCURRENCY }, () => Conn.open(Number(out.trim()))),
  );
  try {
    const get = utf8.encode("GET /x HTTP/1.1\r\nhost: bench\r\n\r\n");
    let n = 0;
    const cpu = cpuMeter(child.pid);
    const t0 = performance.now();
    await Promise.all(conns.map(async (conn) => {
      while (performance.now() - t0 < ms) {
        if ((await conn.send(get)).status !== 200) throw new Error("Cannot measure: not 200");
        n++;
      }
    }));
    const s = (performance.now() - t0) / 1000;
    const used = cpu();
    return {
      requests_per_s: Math.round(n / s),
      ...used,
      server_cpu_us_per_request: Math.round((used.server_cpu_s * 1e6) / n),
    };
  } finally {
    for (const c of conns) c.close();
    child.kill("SIGTERM");
    await child.status;
    await child.stdout.cancel().catch(() => {});
  }
}

/** Fills a SQLite log in `dir` with `n` entries of 300 bytes, through the log itself. */
export async function fillTileLog(dir: string, n: number): Promise<void> {
  const { openSqliteLog } = await import("../../log/sqlite/mod.ts");
  const log = await openSqliteLog({ dir, logName: "bench.example/jc" });
  const e = new Uint8Array(300);
  for (let k = 0; k < n; k += 4096) {
    const ps = [];
    for (let i = k; i < Math.min(n, k + 4096); i++) {
      const x = e.slice();
      utf8.encodeInto(`tile bench entry ${i} `, x);
      ps.push(log.append(x));
    }
    await Promise.all(ps);
  }
  await log.close();
}

/**
 * `count` raw GETs of random full tiles of a tree of `n` leaves, both views alternating, one in
 * 16 at level 1 where the tree has a full one.
 */
export function randomTileGets(n: number, count: number): Uint8Array[] {
  const tileIndex = (i: number) => {
    let s = String(i % 1000).padStart(3, "0");
    for (let r = Math.floor(i / 1000); r > 0; r = Math.floor(r / 1000)) {
      s = `x${String(r % 1000).padStart(3, "0")}/${s}`;
    }
    return s;
  };
  const full0 = Math.floor(n / 256), full1 = Math.floor(n / 65536);
  return Array.from({ length: count }, (_, j) => {
    const view = j % 2 ? "sha256" : "blake3";
    const level = full1 > 0 && j % 16 === 0 ? 1 : 0;
    const index = Math.floor(Math.random() * (level ? full1 : full0));
    return utf8.encode(
      `GET /log/${view}/tile/${level}/${tileIndex(index)} HTTP/1.1\r\nhost: bench\r\n\r\n`,
    );
  });
}

/**
 * Tiles served per second by the embedded server (PUBLICATION.md; API.md "Publication"): a data
 * directory filled through the log itself (BENCH_TILES_SIZE entries of 300 bytes, default 10^5;
 * 10^6 for the issue's figure), the real service started over it, random immutable full tiles of
 * both views (levels 0 and 1) fetched by the same raw keep-alive client, beside a bare
 * Deno.serve answering an 8 KiB body in the same run (goal: at least half of it), twice: with
 * `content-type` alone, and with exactly the headers the service's tile answers carry (read from
 * one of them: content-type, cache-control, Link, CORS). Deno answers a Response of one header
 * by a fast path that a Response of two or more never takes (docs/PERFORMANCE.md "Serving
 * tiles"), so the second is the floor of any server that must send those headers.
 */
async function tilesServed(ms: number) {
  const n = Number(Deno.env.get("BENCH_TILES_SIZE") ?? 100_000);
  const dataDir = await Deno.makeTempDir({ prefix: "jc-bench-tiles-" });
  try {
    await fillTileLog(dataDir, n);
    const svc = await startService({ DATA_DIR: dataDir });
    const port = Number(new URL(svc.url).port);
    const conns = await Promise.all(Array.from({ length: CONCURRENCY }, () => Conn.open(port)));
    try {
      const gets = randomTileGets(n, 8192);
      const probe = await fetch(`${svc.url}/log/blake3/tile/0/000`);
      await probe.body?.cancel();
      if (probe.status !== 200) throw new Error(`Cannot bench tiles: ${probe.status}`);
      const tileHeaders = [...probe.headers].filter(([k]) =>
        k !== "content-length" && k !== "date" && k !== "vary"
      );
      const bare = await bareDenoServe(ms, [["content-type", "application/octet-stream"]]);
      const same = await bareDenoServe(ms, tileHeaders);
      let served = 0;
      const cpu = cpuMeter(svc.pid);
      const t0 = performance.now();
      await Promise.all(conns.map(async (conn, k) => {
        for (let j = k; performance.now() - t0 < ms; j += conns.length) {
          const r = await conn.send(gets[j % gets.length]);
          if (r.status !== 200 || r.body.length !== 8192) {
            throw new Error(`Cannot bench tiles: ${r.status}, ${r.body.length} bytes`);
          }
          served++;
        }
      }));
      const used = cpu();
      const perS = Math.round(served / ((performance.now() - t0) / 1000));
      return {
        tree_size: n,
        tiles_served_per_s: perS,
        bare_deno_serve_8kib_per_s: bare.requests_per_s,
        ratio_to_bare: Math.round((perS / bare.requests_per_s) * 1000) / 1000,
        bare_same_headers_per_s: same.requests_per_s,
        ratio_to_bare_same_headers: Math.round((perS / same.requests_per_s) * 1000) / 1000,
        goal_ratio: 0.5,
        tile_headers: tileHeaders.map(([k]) => k),
        ...used,
        server_cpu_us_per_tile: Math.round((used.server_cpu_s * 1e6) / served),
        bare_server_cpu_us_per_request: bare.server_cpu_us_per_request,
        bare_same_headers_server_cpu_us_per_request: same.server_cpu_us_per_request,
        note: "random full tiles of both views (1 in 16 at level 1 where the tree has one)",
      };
    } finally {
      for (const c of conns) c.close();
      await svc.stop("SIGTERM");
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}

export default async () => {
  if (Deno.env.get("BENCH_HTTP_TILES_ONLY") === "1") return { tiles: await tilesServed(4000) };
  const raw = await rawWebCryptoVerifiesPerSecond(2000);
  const bare = await bareDenoServe(ms(2000));
  // The pool is sized from this machine's raw verify rate (the closed loop at 0.6 × raw, the open
  // loop's offered load, 25% spare), signed before the clock starts. Should a faster machine use
  // it up, more are signed while the run goes on (a chunk at a time, ahead of need, counted in
  // signed_during_run): no machine is fast enough to end the run.
  // JC_BENCH_HTTP_POOL overrides the size (tests/bench/short_test.ts: a small pool, so that the
  // top-up path runs).
  const planned = Number(
    Deno.env.get("JC_BENCH_HTTP_POOL") ??
      Math.ceil(1.25 * (0.6 * raw * CLOSED_MS / 1000 + OPEN_RATE * OPEN_MS / 1000) + 50),
  );
  const t0 = performance.now();
  const pool = await SigningPool.create(planned, prepared);
  const signMs = performance.now() - t0;
  const request = () => pool.take();

  const dataDir = await Deno.makeTempDir({ prefix: "jc-bench-http-" });
  const svc = await startService({
    DATA_DIR: dataDir,
    ...(VERIFY_WORKERS === undefined ? {} : { JC_VERIFY_WORKERS: VERIFY_WORKERS }),
    ...(STREAM_CHECKS === undefined ? {} : { JC_STREAM_CHECKS: STREAM_CHECKS }),
  });
  const port = Number(new URL(svc.url).port);
  const conns = await Promise.all(Array.from({ length: CONCURRENCY }, () => Conn.open(port)));
  try {
    const client = new LogClient(svc.url, svc.signer);
    // warm-up
    for (let i = 0; i < 50; i++) await post(conns[0], await request());

    // closed loop
    const answers: Answer[] = [];
    const lat: number[] = [];
    let cpu = cpuMeter(svc.pid);
    const split = await appendSplit(svc.url, svc.pid);
    const start = performance.now();
    const end = start + CLOSED_MS;
    await Promise.all(conns.map(async (conn) => {
      while (performance.now() < end) {
        const r = await request();
        const t = performance.now();
        answers.push(await post(conn, r));
        lat.push(performance.now() - t);
      }
    }));
    const elapsed = (performance.now() - start) / 1000;
    const closedCpu = cpu();
    const closedSplit = await split(answers.length);
    // check every answer's head signature and inclusion proof (outside the timed window)
    let verified = 0;
    const headsChecked = new Set<number>();
    for (const a of answers) {
      if (toHex(entryLeafHash(a.envelope)) !== a.body.leaf_hash) {
        throw new Error(`Cannot bench: entry ${a.body.index} answered with another leaf hash`);
      }
      const h = a.body.tree_head as unknown as { size: number };
      if (!headsChecked.has(h.size)) {
        await client.checkHead(a.body.tree_head);
        headsChecked.add(h.size);
      }
      client.checkInclusion(
        a.body.index,
        a.body.leaf_hash,
        a.body.inclusion_proof,
        a.body.tree_head,
      );
      verified++;
    }
    const appendsPerS = Math.round(verified / elapsed);

    // Open loop at a fixed offered rate: each request has a due time; it goes out on the first
    // idle connection, and its latency runs from the due time (no coordinated omission).
    const openLat: number[] = [];
    let openDone = 0;
    const openFailed: Record<string, number> = {};
    const idle = [...conns];
    const waiting: (() => void)[] = [];
    const inflight: Promise<void>[] = [];
    cpu = cpuMeter(svc.pid);
    const o0 = performance.now();
    let sent = 0;
    const fire = async (req: Prepared, due: number) => {
      while (idle.length === 0) await new Promise<void>((r) => waiting.push(r));
      const conn = idle.pop()!;
      try {
        await post(conn, req);
        openLat.push(performance.now() - due);
        openDone++;
      } catch (e) {
        const why = /Cannot append: (\d+)/.exec((e as Error).message)?.[1] ?? (e as Error).name;
        openFailed[why] = (openFailed[why] ?? 0) + 1;
      } finally {
        idle.push(conn);
        waiting.shift()?.();
      }
    };
    while (performance.now() - o0 < OPEN_MS) {
      const due = Math.floor(((performance.now() - o0) / 1000) * OPEN_RATE);
      while (sent < due) {
        const at = o0 + (sent * 1000) / OPEN_RATE;
        inflight.push(request().then((r) => fire(r, at)));
        sent++;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(inflight);
    const openElapsed = (performance.now() - o0) / 1000;
    const openCpu = cpu();

    // inclusion proofs served (requests built beforehand)
    const size = (await client.head()).size;
    const proofGet = (index: number, at: number) =>
      utf8.encode(
        `GET /v1/log/proof/inclusion?index=${index}&size=${at} HTTP/1.1\r\nhost: bench\r\n\r\n`,
      );
    /** Sends `gets` round-robin over every connection for `ms` (each once when `once`). */
    const proofRun = async (gets: Uint8Array[], ms: number, once: boolean) => {
      let proofs = 0;
      const cpu = cpuMeter(svc.pid);
      const p0 = performance.now();
      await Promise.all(conns.map(async (conn, k) => {
        for (
          let j = k;
          performance.now() < p0 + ms && (!once || j < gets.length);
          j += conns.length
        ) {
          const res = await conn.send(gets[j % gets.length]);
          if (res.status !== 200) throw new Error(`Cannot prove: ${res.status}`);
          proofs++;
        }
      }));
      const used = cpu();
      return {
        served_per_s: Math.round(proofs / ((performance.now() - p0) / 1000)),
        proofs,
        ...used,
        server_cpu_us_per_proof: Math.round((used.server_cpu_s * 1e6) / proofs),
        server_main_thread_cpu_us_per_proof: Math.round(
          (used.server_main_thread_cpu_s * 1e6) / proofs,
        ),
      };
    };
    // Every (index, size) distinct: none is in the server's proof-body cache. Sizes are those of
    // signed heads (the answers' heads): proofs are served at a signed head's size.
    const signedSizes = [...headsChecked];
    const distinct = await proofRun(
      Array.from({ length: count(32_768) }, () => {
        const at = signedSizes[Math.floor(Math.random() * signedSizes.length)];
        return proofGet(Math.floor(Math.random() * at), at);
      }),
      UNCACHED_PROOF_MS,
      true,
    );
    // 4,096 random indices at the latest size, sent again and again (a monitor's or a
    // wallet's re-fetches): after the first pass each is a cache hit.
    const repeated = await proofRun(
      Array.from({ length: count(4096) }, () => proofGet(Math.floor(Math.random() * size), size)),
      PROOF_MS,
      false,
    );

    return {
      raw_webcrypto_ed25519_verifies_per_s: raw,
      concurrency: CONCURRENCY,
      server_verify_workers: VERIFY_WORKERS ?? "default (auto)",
      closed_loop: {
        verified_durable_appends_per_s: appendsPerS,
        ratio_to_raw_verifies: Math.round((appendsPerS / raw) * 1000) / 1000,
        goal_ratio: 0.6,
        appends: verified,
        seconds: Math.round(elapsed * 100) / 100,
        ack_latency_ms: { p50: pct(lat, 50), p99: pct(lat, 99) },
        distinct_heads: headsChecked.size,
        ...closedCpu,
        server_cpu_us_per_append: Math.round((closedCpu.server_cpu_s * 1e6) / verified),
        server_main_thread_cpu_us_per_append: Math.round(
          (closedCpu.server_main_thread_cpu_s * 1e6) / verified,
        ),
        server_cpu_us_per_append_split: closedSplit,
      },
      open_loop: {
        offered_per_s: OPEN_RATE,
        sent,
        achieved_per_s: Math.round(openDone / openElapsed),
        failed_by_status: openFailed,
        ack_latency_ms: { p50: pct(openLat, 50), p99: pct(openLat, 99) },
        goal_p99_ms: 1000,
        ...openCpu,
      },
      inclusion_proofs: { goal_per_s: 10_000, ...repeated },
      inclusion_proofs_distinct_uncached: distinct,
      bare_deno_serve_same_client: bare,
      tiles: await tilesServed(ms(4000)),
      presign_webcrypto_envelopes_per_s: Math.round(planned / (signMs / 1000)),
      presigned: planned,
      signed_during_run: pool.signedDuringRun,
      note:
        "client and server share the machine's 2 cores; server is `deno task start` (SQLite); " +
        "client: raw HTTP/1.1 keep-alive, pre-built requests",
    };
  } finally {
    for (const c of conns) c.close();
    await svc.stop("SIGTERM");
    await Deno.remove(dataDir, { recursive: true });
  }
};
