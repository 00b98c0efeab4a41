// Bulk appends under load (issue 29), the `bulk` figure of `deno task bench http`: the same real
// service as the closed loop, driven by a few keep-alive connections each sending bulks of
// pre-signed envelopes (`application/cbor-seq`, POST /v1/log/entries) one after another. Counted
// are the envelopes whose answer item is a 201 with an inclusion proof that closes against the
// answer's signed head (checked after the timed window), per second, beside raw WebCrypto
// verifies in the same run; the server's CPU per envelope is split as the closed loop's is.
import type { LogClient } from "../../client/mod.ts";
import { entryLeafHash, toHex } from "../../verify/mod.ts";
import type { Conn } from "./_conn.ts";
import { appendSplit, cpuMeter } from "./_server_cpu.ts";

const utf8 = new TextEncoder();

/** The bytes of a POST of `envelopes` as one application/cbor-seq body. */
export function bulkRequest(envelopes: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const e of envelopes) n += e.length;
  const head = utf8.encode(
    "POST /v1/log/entries HTTP/1.1\r\nhost: bench\r\ncontent-type: application/cbor-seq\r\n" +
      `content-length: ${n}\r\n\r\n`,
  );
  const out = new Uint8Array(head.length + n);
  out.set(head);
  let o = head.length;
  for (const e of envelopes) out.set(e, o), o += e.length;
  return out;
}

interface BulkAnswer {
  tree_head: { size: number; root: string };
  results: { status: number; index: number; leaf_hash: string; inclusion_proof: string[] }[];
}

/** What the bulk run needs from the suite. */
export interface BulkRun {
  url: string;
  pid: number;
  conns: Conn[];
  /** The next pre-signed envelope. */
  envelope: () => Promise<Uint8Array>;
  client: LogClient;
  raw: number;
  ms: number;
  /** Envelopes per request. */
  size: number;
}

/** Runs bulks for `ms` over `conns` (one in flight each) and checks every answer after. */
export async function bulkLoop(o: BulkRun) {
  const next = async () => {
    const envs: Uint8Array[] = [];
    for (let i = 0; i < o.size; i++) envs.push(await o.envelope());
    return { envs, req: bulkRequest(envs) };
  };
  // requests built before the clock: enough for 1.0 × raw for the window, then built as needed
  const ready = await Promise.all(
    Array.from({ length: Math.ceil((o.raw * o.ms / 1000) / o.size) + o.conns.length }, next),
  );
  const answers: { envs: Uint8Array[]; body: BulkAnswer }[] = [];
  const lat: number[] = [];
  const cpu = cpuMeter(o.pid);
  const split = await appendSplit(o.url, o.pid);
  const start = performance.now();
  const end = start + o.ms;
  await Promise.all(o.conns.map(async (conn) => {
    while (performance.now() < end) {
      const b = ready.pop() ?? await next();
      const t = performance.now();
      const { status, body } = await conn.send(b.req);
      lat.push(performance.now() - t);
      if (status !== 200) throw new Error(`Cannot bulk append: ${status}`);
      answers.push({ envs: b.envs, body: JSON.parse(new TextDecoder().decode(body)) });
    }
  }));
  const elapsed = (performance.now() - start) / 1000;
  const used = cpu();
  let verified = 0;
  const heads = new Set<number>();
  for (const a of answers) {
    const h = a.body.tree_head;
    if (!heads.has(h.size)) {
      await o.client.checkHead(h as never);
      heads.add(h.size);
    }
    a.body.results.forEach((r, k) => {
      if (r.status !== 201) throw new Error(`Cannot bench: item refused ${JSON.stringify(r)}`);
      if (r.leaf_hash !== toHex(entryLeafHash(a.envs[k]))) {
        throw new Error(`Cannot bench: entry ${r.index} answered with another leaf hash`);
      }
      o.client.checkInclusion(r.index, r.leaf_hash, r.inclusion_proof, h as never);
      verified++;
    });
  }
  const perS = Math.round(verified / elapsed);
  const pct = (p: number) => {
    const s = [...lat].sort((a, b) => a - b);
    return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100;
  };
  return {
    verified_durable_appends_per_s: perS,
    ratio_to_raw_verifies: Math.round((perS / o.raw) * 1000) / 1000,
    goal_ratio: 0.8,
    envelopes_per_request: o.size,
    connections: o.conns.length,
    appends: verified,
    requests: answers.length,
    seconds: Math.round(elapsed * 100) / 100,
    request_latency_ms: { p50: pct(50), p99: pct(99) },
    distinct_heads: heads.size,
    ...used,
    server_cpu_us_per_append: Math.round((used.server_cpu_s * 1e6) / verified),
    server_main_thread_cpu_us_per_append: Math.round(
      (used.server_main_thread_cpu_s * 1e6) / verified,
    ),
    server_cpu_us_per_append_split: await split(verified),
  };
}
