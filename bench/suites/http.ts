// The HTTP service under load (issue 4): the real service (`deno task start`, SQLite in a fresh
// data dir, rate limits off) driven over HTTP by concurrent clients in this process.
// Figures, each beside the machine's raw WebCrypto Ed25519 verifies/s measured in the same run:
//  - closed loop: verified durable appends/s (every answer carries its head and inclusion proof;
//    only answers whose proof and head then verify are counted) and ack latency p50/p99;
//  - open loop at a fixed offered rate (5,000/s): achieved rate and latency p50/p99;
//  - inclusion proofs served per second (GET /v1/log/proof/inclusion, random indices).
// Envelopes are signed before the clock starts. Client and server share this machine's cores.
import { LogClient } from "../../api/client/mod.ts";
import { startService } from "../../tests/e2e/_service.ts";
import { receiptCore } from "../../tests/api/_fixtures.ts";
import {
  coseProtectedHeader,
  coseSigStructure,
  didKeyFromPublicKey,
  encodeCbor,
} from "../../verify/mod.ts";
import { rawWebCryptoVerifiesPerSecond } from "./_limits.ts";

/** `n` valid JCR-1 envelopes, signed with WebCrypto Ed25519 (deterministic, RFC 8032). */
async function presign(n: number): Promise<Uint8Array<ArrayBuffer>[]> {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const did = didKeyFromPublicKey(
    new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey)),
  );
  const prot = coseProtectedHeader(did);
  const out: Uint8Array<ArrayBuffer>[] = [];
  for (let i = 0; i < n; i += 256) {
    const chunk = await Promise.all(
      Array.from({ length: Math.min(256, n - i) }, async (_, j) => {
        const payload = encodeCbor(receiptCore(did, i + j));
        const sig = new Uint8Array(
          await crypto.subtle.sign(
            "Ed25519",
            pair.privateKey,
            coseSigStructure(prot, payload).slice(),
          ),
        );
        return encodeCbor([prot, new Map(), payload, sig]).slice();
      }),
    );
    out.push(...chunk);
  }
  return out;
}

const CONCURRENCY = Number(Deno.env.get("JC_BENCH_CONCURRENCY") ?? 256);
const POOL = 40_000;
const CLOSED_MS = 8_000;
const OPEN_RATE = 5_000;
const OPEN_MS = 2_000;
const PROOF_MS = 4_000;

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100;
}

interface Answer {
  envelope: Uint8Array;
  body: { index: number; leaf_hash: string; tree_head: never; inclusion_proof: string[] };
}

async function post(url: string, envelope: Uint8Array<ArrayBuffer>): Promise<Answer> {
  const res = await fetch(`${url}/v1/log/entries`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: envelope,
  });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`Cannot append: ${res.status} ${JSON.stringify(body)}`);
  return { envelope, body };
}

export default async () => {
  const raw = await rawWebCryptoVerifiesPerSecond(2000);
  let next = 0;
  const envelope = () => {
    if (next >= pool.length) throw new Error("Cannot continue: out of pre-signed envelopes");
    return pool[next++];
  };
  // Pre-sign enough for the closed loop at up to ~3,000/s plus the open loop.
  const t0 = performance.now();
  const pool = await presign(POOL);
  const signMs = performance.now() - t0;

  const dataDir = await Deno.makeTempDir({ prefix: "jc-bench-http-" });
  const svc = await startService({ DATA_DIR: dataDir });
  try {
    const client = new LogClient(svc.url, svc.signer);
    // warm-up
    for (let i = 0; i < 50; i++) await post(svc.url, envelope());

    // closed loop
    const answers: Answer[] = [];
    const lat: number[] = [];
    const start = performance.now();
    const end = start + CLOSED_MS;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const e = envelope();
        const t = performance.now();
        answers.push(await post(svc.url, e));
        lat.push(performance.now() - t);
      }
    }));
    const elapsed = (performance.now() - start) / 1000;
    // check every answer's head signature and inclusion proof (outside the timed window)
    let verified = 0;
    const headsChecked = new Set<number>();
    for (const a of answers) {
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

    // open loop at a fixed offered rate
    const openLat: number[] = [];
    let openDone = 0;
    const openFailed: Record<string, number> = {};
    const inflight: Promise<void>[] = [];
    const o0 = performance.now();
    let sent = 0;
    while (performance.now() - o0 < OPEN_MS) {
      const due = Math.floor(((performance.now() - o0) / 1000) * OPEN_RATE);
      while (sent < due && next < pool.length) {
        const e = envelope();
        const t = performance.now();
        sent++;
        inflight.push(
          post(svc.url, e).then(() => {
            openLat.push(performance.now() - t);
            openDone++;
          }, (e: Error) => {
            const why = /Cannot append: (\d+)/.exec(e.message)?.[1] ?? e.name;
            openFailed[why] = (openFailed[why] ?? 0) + 1;
          }),
        );
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(inflight);
    const openElapsed = (performance.now() - o0) / 1000;

    // inclusion proofs served
    const size = (await client.head()).size;
    let proofs = 0;
    const p0 = performance.now();
    const pend = p0 + PROOF_MS;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < pend) {
        const i = Math.floor(Math.random() * size);
        const res = await fetch(`${svc.url}/v1/log/proof/inclusion?index=${i}&size=${size}`);
        if (res.status !== 200) throw new Error(`Cannot prove ${i}: ${res.status}`);
        await res.arrayBuffer();
        proofs++;
      }
    }));
    const proofsPerS = Math.round(proofs / ((performance.now() - p0) / 1000));

    return {
      raw_webcrypto_ed25519_verifies_per_s: raw,
      concurrency: CONCURRENCY,
      closed_loop: {
        verified_durable_appends_per_s: appendsPerS,
        ratio_to_raw_verifies: Math.round((appendsPerS / raw) * 1000) / 1000,
        goal_ratio: 0.6,
        appends: verified,
        seconds: Math.round(elapsed * 100) / 100,
        ack_latency_ms: { p50: pct(lat, 50), p99: pct(lat, 99) },
        distinct_heads: headsChecked.size,
      },
      open_loop: {
        offered_per_s: OPEN_RATE,
        sent,
        achieved_per_s: Math.round(openDone / openElapsed),
        failed_by_status: openFailed,
        ack_latency_ms: { p50: pct(openLat, 50), p99: pct(openLat, 99) },
        goal_p99_ms: 1000,
      },
      inclusion_proofs_served_per_s: proofsPerS,
      goal_proofs_per_s: 10_000,
      presign_webcrypto_envelopes_per_s: Math.round(pool.length / (signMs / 1000)),
      note: "client and server share the machine's cores; server is `deno task start` (SQLite)",
    };
  } finally {
    await svc.stop("SIGTERM");
    await Deno.remove(dataDir, { recursive: true });
  }
};
