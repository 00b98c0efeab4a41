// Full verification throughput: verifyEnvelope (all six report steps, JCR-1 §6) over a mix of the
// published positive conformance vectors, beside the raw WebCrypto Ed25519 verifies/s measured in
// the same run at the same concurrency. Target: ratio >= 0.8 — everything but the signature must be
// cheap. Both are measured in interleaved slices (bench/suites/_limits.ts interleavedMedians) and
// reported as medians, by wall clock and by process CPU time, because the machine is shared.
// Then the CPU cost of each step on its own (microbenchmarks over the same mix), each beside the
// implementation it replaced where there was one (noble BLAKE3, re-encode-and-compare, WebCrypto
// HMAC), so the per-step figures carry their own baseline.

import process from "node:process";
import { blake3 as nobleBlake3 } from "@noble/hashes/blake3.js";
import {
  type CborMap,
  coseSigStructure,
  decodeCbor,
  encodeCbor,
  entryLeafHash,
  fromHex,
  optionsFromConfig,
  toHex,
  toJson,
  verifyEnvelope,
} from "../../verify/mod.ts";
import type { VerifierOptions } from "../../verify/mod.ts";
import { encodesTo } from "../../verify/cbor_match.ts";
import { parseCoseSign1Views } from "../../verify/cose.ts";
import { dispatch } from "../../verify/profiles/mod.ts";
import { hmacSha256 } from "../../verify/sha256.ts";
import {
  interleavedMedians,
  measureSlice,
  rawVerifyOp,
  webCryptoEd25519Samples,
} from "./_limits.ts";
import { count, ms } from "./_short.ts";

const dir = new URL("../../conformance/vectors/", import.meta.url);

export async function positives(): Promise<{ envs: Uint8Array[]; opts: VerifierOptions }> {
  const envs: Uint8Array[] = [];
  for (const f of ["jcr1.json", "siblings.json"]) {
    for (const v of JSON.parse(await Deno.readTextFile(new URL(f, dir))).vectors) {
      if (v.expected.valid) envs.push(fromHex(v.cose_sign1_hex));
    }
  }
  const opts = optionsFromConfig(
    JSON.parse(await Deno.readTextFile(new URL("operator-config.json", dir))),
  );
  return { envs, opts };
}

function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** Median CPU µs per call of a synchronous step over `n` inputs, in 7 slices of ~150 ms. */
function stepCpuUs(n: number, f: (i: number) => unknown): number {
  for (let i = 0; i < count(2000); i++) f(i % n); // warm-up: JIT
  const per: number[] = [];
  for (let s = 0; s < 7; s++) {
    let k = 0;
    const c0 = cpuUs();
    const t0 = performance.now();
    while (performance.now() - t0 < ms(150)) {
      for (let j = 0; j < 64; j++, k++) f(k % n);
    }
    per.push((cpuUs() - c0) / k);
  }
  per.sort((a, b) => a - b);
  return +per[3].toFixed(2);
}

/** CPU µs per receipt of each non-signature step, over the positive mix. */
async function stepCosts(envs: Uint8Array[], opts: VerifierOptions) {
  const n = envs.length;
  const env = envs.map(parseCoseSign1Views);
  const cores = env.map((e) => decodeCbor(e.payload) as CborMap);
  const profiles = cores.map((c) => {
    const d = dispatch(c);
    if (d.kind !== "profile") throw new Error("Cannot measure: a positive vector has no profile");
    return d.profile;
  });
  // steps 4-6 as the report runs them (step 4 is synchronous for every profile but meter-reading/1)
  const steps456 = async (i: number) => {
    const tr = profiles[i].toolReceipts(cores[i], opts);
    if (tr instanceof Promise) await tr;
    profiles[i].honesty(cores[i], opts);
    profiles[i].joules(cores[i], opts);
  };
  for (let i = 0; i < 200; i++) await steps456(i % n);
  let k = 0;
  const c0 = cpuUs();
  const t0 = performance.now();
  while (performance.now() - t0 < 600) await steps456(k++ % n);
  const profileSteps = +((cpuUs() - c0) / k).toFixed(2);

  const key = new Uint8Array(32).fill(7);
  const hmacMsg = new TextEncoder().encode(
    "iac:aws.ec2.describe\0" + "4200\0HwShunt\0" + "2026-05-31T18:04:22Z\0gw-edge-7",
  );
  const webKey = await crypto.subtle.importKey(
    "raw",
    key,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const webHmac = await measureSlice(
    async () => (await crypto.subtle.sign("HMAC", webKey, hmacMsg)).byteLength === 32,
    600,
  );
  return {
    leaf_hash: stepCpuUs(n, (i) => toHex(entryLeafHash(envs[i]))),
    leaf_hash_noble_blake3_for_comparison: stepCpuUs(
      n,
      (i) => toHex(nobleBlake3.create().update(Uint8Array.of(0)).update(envs[i]).digest()),
    ),
    cose_parse: stepCpuUs(n, (i) => parseCoseSign1Views(envs[i])),
    core_decode: stepCpuUs(n, (i) => decodeCbor(env[i].payload)),
    structure: stepCpuUs(n, (i) => {
      const d = dispatch(cores[i]);
      if (d.kind === "profile") d.profile.structure(cores[i]);
    }),
    canonical: stepCpuUs(n, (i) => encodesTo(cores[i], env[i].payload)),
    canonical_reencode_for_comparison: stepCpuUs(n, (i) => encodeCbor(cores[i])),
    sig_structure: stepCpuUs(n, (i) => coseSigStructure(env[i].protectedBytes, env[i].payload)),
    steps_4_to_6: profileSteps,
    projection: stepCpuUs(n, (i) => toJson(cores[i])),
    one_tool_receipt_hmac: stepCpuUs(1, () => hmacSha256(key, hmacMsg)),
    one_tool_receipt_hmac_webcrypto_for_comparison: +(webHmac.cpuUs / webHmac.ops).toFixed(2),
  };
}

/** The suite: receipts/s and the raw limit at concurrency 1 and 32, per-step CPU, pure path. */
export default async (): Promise<Record<string, unknown>> => {
  const { envs, opts } = await positives();
  const raw = rawVerifyOp(await webCryptoEd25519Samples());
  const full = async (i: number) => (await verifyEnvelope(envs[i % envs.length], opts)).valid;
  const rounds = 10, ms = 300;
  const out: Record<string, unknown> = {
    positive_vectors_in_mix: envs.length,
    mean_envelope_bytes: Math.round(envs.reduce((a, e) => a + e.length, 0) / envs.length),
    rounds,
    ms_per_slice: ms,
  };
  for (const c of [1, 32]) {
    const m = await interleavedMedians({ full, raw }, { rounds, ms, concurrency: c });
    out[`receipts_verified_per_s_concurrency_${c}`] = m.full.per_s;
    out[`raw_webcrypto_ed25519_verifies_per_s_concurrency_${c}`] = m.raw.per_s;
    out[`ratio_concurrency_${c}`] = +(m.full.per_s / m.raw.per_s).toFixed(3);
    // process CPU (all threads) per receipt and per raw verify: the figure load disturbs least
    out[`cpu_us_per_receipt_concurrency_${c}`] = m.full.cpu_us_per_op;
    out[`cpu_us_per_raw_verify_concurrency_${c}`] = m.raw.cpu_us_per_op;
    out[`ratio_by_cpu_concurrency_${c}`] = +(m.raw.cpu_us_per_op / m.full.cpu_us_per_op).toFixed(3);
  }
  out.cpu_us_per_receipt_by_step = await stepCosts(envs, opts);
  const pure = await measureSlice(
    async (i) =>
      (await verifyEnvelope(envs[i % envs.length], { ...opts, pureEd25519: true })).valid,
    1500,
  );
  out.receipts_verified_per_s_pure_ed25519 = Math.round(pure.ops / (pure.wallMs / 1000));
  out.target_ratio = 0.8;
  out.load_average_1m = Deno.loadavg()[0];
  return out;
};
