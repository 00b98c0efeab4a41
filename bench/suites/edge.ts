// The Worker build under real local workerd (issue 7): api/worker.ts bundled as for
// `wrangler deploy`, wrangler.toml's bindings, the log in a SQLite-backed Durable Object with
// durable local state, rate limits off, driven over HTTP on 127.0.0.1 from this process.
// Figures, beside the machine's raw WebCrypto Ed25519 verifies/s measured in the same run:
//  - ack latency of one client appending alone (p50/p99): request → verified, durable, signed;
//  - closed loop, CONCURRENCY clients: verified appends/s (only answers whose inclusion proof and
//    head signature verify afterwards are counted) and ack latency p50/p99 under load;
//  - immutable reads (inclusion proof at a fixed size): first time (app + Durable Object) vs
//    repeated (edge cache), per second.
// Envelopes are signed before any clock starts. Client, Miniflare and workerd share this
// machine's cores, so these are the local runtime's figures, not Cloudflare's.
import { LogClient } from "../../api/client/mod.ts";
import { validEnvelope } from "../../tests/api/_fixtures.ts";
import { removeBundle, startWorker } from "../../tests/edge/_worker.ts";
import { blake3Hasher, verifyInclusion, verifyTreeHead } from "../../log/mod.ts";
import type { TreeHead } from "../../log/mod.ts";
import { entryLeafHash, fromHex, toHex } from "../../verify/mod.ts";
import { rawWebCryptoVerifiesPerSecond } from "./_limits.ts";
import { count, ms } from "./_short.ts";

const CONCURRENCY = Number(Deno.env.get("JC_BENCH_CONCURRENCY") ?? 32);
const SOLO = count(100, 5);
const CLOSED_MS = ms(6_000);
const READS = count(300, 10);

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100;
}

interface Appended {
  envelope: Uint8Array;
  body: { index: number; leaf_hash: string; tree_head: TreeHead; inclusion_proof: string[] };
}

async function post(base: URL, envelope: Uint8Array): Promise<Appended> {
  const res = await fetch(new URL("/v1/log/entries", base), {
    method: "POST",
    headers: { "content-type": "application/cose", accept: "application/json" },
    body: envelope.slice(),
  });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`Cannot append: ${res.status} ${JSON.stringify(body)}`);
  return { envelope, body };
}

async function verified(answers: Appended[], signer: string): Promise<number> {
  let ok = 0;
  for (const a of answers) {
    const b = a.body;
    if (b.leaf_hash !== toHex(entryLeafHash(a.envelope))) continue;
    if (!(await verifyTreeHead(b.tree_head, signer))) continue;
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

export default async () => {
  const rawVerify = await rawWebCryptoVerifiesPerSecond(2000);
  let next = 0;
  // Pre-signed before any clock starts; a machine fast enough to use them all gets more, signed
  // as they are needed (counted in signed_during_run) rather than a crash.
  const pool = Array.from({ length: count(8_000, 400) }, () => validEnvelope(900_000 + next++));
  let used = 0;
  let signedDuringRun = 0;
  const take = () => {
    if (used < pool.length) return pool[used++];
    signedDuringRun++;
    return validEnvelope(900_000 + next++);
  };
  const state = await Deno.makeTempDir({ prefix: "jc-bench-edge-" });
  const t0 = performance.now();
  const rt = await startWorker(state);
  const startupMs = performance.now() - t0;
  try {
    const signer = await new LogClient(rt.url.href).signer();
    for (let i = 0; i < 20; i++) await post(rt.url, take()); // warm the isolate and the object

    const solo: number[] = [];
    const soloAnswers: Appended[] = [];
    for (let i = 0; i < SOLO; i++) {
      const s = performance.now();
      soloAnswers.push(await post(rt.url, take()));
      solo.push(performance.now() - s);
    }

    const loaded: number[] = [];
    const answers: Appended[] = [];
    const end = performance.now() + CLOSED_MS;
    const c0 = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const s = performance.now();
        answers.push(await post(rt.url, take()));
        loaded.push(performance.now() - s);
      }
    }));
    const closedS = (performance.now() - c0) / 1000;
    const okClosed = await verified(answers, signer);
    const okSolo = await verified(soloAnswers, signer);

    const size = (await new LogClient(rt.url.href, signer).head()).size;
    const idx = Array.from({ length: READS }, (_, i) => (i * 7919) % size);
    const read = async () => {
      const s = performance.now();
      for (const i of idx) {
        const r = await fetch(new URL(`/v1/log/proof/inclusion?index=${i}&size=${size}`, rt.url));
        if (r.status !== 200) throw new Error(`Cannot read proof ${i}: ${r.status}`);
        await r.arrayBuffer();
      }
      return Math.round(READS / ((performance.now() - s) / 1000));
    };
    const firstReads = await read();
    const cachedReads = await read();

    return {
      runtime: "local workerd via Miniflare (edge/serve.mjs), Durable Object SQLite storage",
      raw_webcrypto_ed25519_verifies_per_s: rawVerify,
      bundle_and_start_ms: Math.round(startupMs),
      solo_ack_latency_ms: { p50: pct(solo, 50), p99: pct(solo, 99), n: solo.length },
      solo_verified: `${okSolo}/${soloAnswers.length}`,
      concurrency: CONCURRENCY,
      verified_appends_per_s: Math.round(okClosed / closedS),
      appends_total: answers.length,
      appends_verified: okClosed,
      loaded_ack_latency_ms: { p50: pct(loaded, 50), p99: pct(loaded, 99) },
      ratio_appends_to_raw_verify: Math.round((okClosed / closedS / rawVerify) * 1000) / 1000,
      proof_reads_per_s_first: firstReads,
      proof_reads_per_s_edge_cached: cachedReads,
      log_size_at_end: size,
      signed_during_run: signedDuringRun,
    };
  } finally {
    await rt.stop();
    await removeBundle();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
};
