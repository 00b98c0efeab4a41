// The HTTP service under load (issue 4): the real service (`deno task start`, SQLite in a fresh
// data dir, rate limits off) driven over HTTP by concurrent clients in this process.
// Figures, each beside the machine's raw WebCrypto Ed25519 verifies/s measured in the same run:
//  - closed loop: verified durable appends/s (every answer carries its head and inclusion proof;
//    only answers whose proof and head then verify are counted) and ack latency p50/p99;
//  - bulk (issue 29, bench/suites/_bulk_http.ts): the same per envelope, envelopes sent in bulks
//    (application/cbor-seq) over a few connections;
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
import { LogClient } from "../../client/mod.ts";
import { startService } from "../../fixtures/service.ts";
import { entryLeafHash, toHex } from "../../verify/mod.ts";
import { rawWebCryptoVerifiesPerSecond } from "./_limits.ts";
import { count, ms } from "./_short.ts";
import { SigningPool } from "./_pool.ts";
import { Conn } from "./_conn.ts";
import { appendSplit, cpuMeter, selfCpu } from "./_server_cpu.ts";
import { bulkLoop } from "./_bulk_http.ts";
import { streamChecksLoop } from "./_stream_checks_http.ts";
import { rotatedIdentityLoop } from "./_keys_http.ts";

export { Conn };
const utf8 = new TextEncoder();

const CONCURRENCY = Number(Deno.env.get("JC_BENCH_CONCURRENCY") ?? 256);
/** The server's JC_VERIFY_WORKERS (docs/CONFIG.md); unset: the server's default ("auto"). */
const VERIFY_WORKERS = Deno.env.get("JC_BENCH_VERIFY_WORKERS");
/** The server's JC_STREAM_CHECKS (issue 24: "off" gives the figure before stream checks). */
const STREAM_CHECKS = Deno.env.get("JC_BENCH_STREAM_CHECKS");
/**
 * Stream checks on against off in one run (issue 24, bench/suites/_stream_checks_http.ts): windows
 * per setting (0 skips it) and each window's length.
 */
const STREAM_ROUNDS = Number(Deno.env.get("JC_BENCH_STREAM_ROUNDS") ?? 4);
const STREAM_MS = ms(3_000);
const CLOSED_MS = ms(8_000);
const OPEN_RATE = 5_000;
const OPEN_MS = ms(2_000);
const PROOF_MS = ms(4_000);
const UNCACHED_PROOF_MS = ms(2_000);
/** Bulk appends (issue 29): the window, envelopes per request, connections. */
const BULK_MS = ms(6_000);
const BULK_SIZE = Number(Deno.env.get("JC_BENCH_BULK_SIZE") ?? 256);
const BULK_CONNS = Number(Deno.env.get("JC_BENCH_BULK_CONNS") ?? 8);
/** Issue 25: receipts under a rotated identity (bench/suites/_keys_http.ts), beside the plain ones. */
const KEYS_MS = ms(4_000);

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100;
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
 * 10^6 for the figure), the real service started over it, random immutable full tiles of
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
  const rawCpu0 = selfCpu();
  const raw = await rawWebCryptoVerifiesPerSecond(2000);
  // CPU µs of one raw verify (this thread's share of the machine does not change it)
  const rawCpuUs = ((selfCpu() - rawCpu0) * 1e6) / (raw * ms(2000) / 1000);
  /**
   * The ratio a quiet 2-core machine would allow if CPU were all that bounded it: both cores'
   * µs over the server's and the client's µs per append, against one core's raw verifies. It
   * holds under load, when the measured ratio does not (the server gets what others leave).
   */
  const cpuBound = (m: { server_cpu_us_per_append: number; client_cpu_s: number }, n: number) =>
    Math.round((2 * rawCpuUs / (m.server_cpu_us_per_append + (m.client_cpu_s * 1e6) / n)) * 1000) /
    1000;
  const bare = await bareDenoServe(ms(2000));
  // The pool is sized from this machine's raw verify rate (the closed loop at 0.6 × raw, the open
  // loop's offered load, 25% spare), signed before the clock starts. Should a faster machine use
  // it up, more are signed while the run goes on (a chunk at a time, ahead of need, counted in
  // signed_during_run): no machine is fast enough to end the run.
  // JC_BENCH_HTTP_POOL overrides the size (tests/bench/short_test.ts: a small pool, so that the
  // top-up path runs).
  const planned = Number(
    Deno.env.get("JC_BENCH_HTTP_POOL") ??
      Math.ceil(
        1.25 * (0.6 * raw * (CLOSED_MS + KEYS_MS + 2 * STREAM_ROUNDS * STREAM_MS) / 1000 +
              OPEN_RATE * OPEN_MS / 1000) + raw * BULK_MS / 1000 + 150,
      ),
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

    // Issue 25: the same closed loop, receipts under a rotated identity (key resolution)
    const keys = await rotatedIdentityLoop({
      url: svc.url,
      conns,
      ms: KEYS_MS,
      n: Math.ceil(1.5 * appendsPerS * KEYS_MS / 1000) + 256,
      request: appendRequest,
    });
    // and right after it, plain receipts for as long (the same machine's moment: a fair pair)
    let plainDone = 0;
    const k0 = performance.now();
    await Promise.all(conns.map(async (conn) => {
      while (performance.now() < k0 + KEYS_MS) {
        await post(conn, await request());
        plainDone++;
      }
    }));
    const plainAfter = Math.round(plainDone / ((performance.now() - k0) / 1000));

    // bulk appends (issue 29), in the same run, over their own few connections
    const bulk = await bulkLoop({
      url: svc.url,
      pid: svc.pid,
      conns: conns.slice(0, BULK_CONNS),
      envelope: async () => (await request()).envelope,
      client,
      raw,
      ms: BULK_MS,
      size: BULK_SIZE,
    });

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

    // issue 24: verified durable appends/s with stream checks on and off, in this same run
    const streamChecks = STREAM_ROUNDS > 0
      ? await streamChecksLoop({
        request,
        concurrency: CONCURRENCY,
        ms: STREAM_MS,
        rounds: STREAM_ROUNDS,
        env: VERIFY_WORKERS === undefined ? {} : { JC_VERIFY_WORKERS: VERIFY_WORKERS },
      })
      : "skipped";

    return {
      raw_webcrypto_ed25519_verifies_per_s: raw,
      raw_verify_cpu_us: Math.round(rawCpuUs * 10) / 10,
      concurrency: CONCURRENCY,
      server_verify_workers: VERIFY_WORKERS ?? "default (auto)",
      closed_loop: {
        verified_durable_appends_per_s: appendsPerS,
        ratio_to_raw_verifies: Math.round((appendsPerS / raw) * 1000) / 1000,
        goal_ratio: 0.5,
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
        cpu_bound_ratio: cpuBound({
          server_cpu_us_per_append: Math.round((closedCpu.server_cpu_s * 1e6) / verified),
          client_cpu_s: closedCpu.client_cpu_s,
        }, verified),
      },
      // issue 25 (docs/KEYS.md): appends/s of receipts under a rotated identity (the chain read
      // and the receipt re-verified under its current key) beside the closed loop's, whose
      // stewards have no chain (the sequencer's head read finds none)
      key_resolution: {
        rotated_identity: keys,
        without_chain_appends_per_s: plainAfter,
        ratio: Math.round(((keys.appends_per_s as number) / plainAfter) * 1000) / 1000,
      },
      bulk: { ...bulk, cpu_bound_ratio: cpuBound(bulk, bulk.appends) },
      stream_checks: streamChecks,
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
      // BENCH_HTTP_SKIP_TILES=1: the appends' figures alone (the tiles' run fills a log first)
      tiles: Deno.env.get("BENCH_HTTP_SKIP_TILES") === "1"
        ? "skipped"
        : await tilesServed(ms(4000)),
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
