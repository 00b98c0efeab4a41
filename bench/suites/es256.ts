// ES256 (JCR-1 §4 alg -7; docs/DECISIONS.md "ES256"): full verification throughput of ES256
// receipts — verifyEnvelope, all six report steps, over the positive vectors of
// conformance/vectors/es256.json (every profile) — beside raw WebCrypto ECDSA P-256 / SHA-256
// verifies of the very same (key, Sig_structure, signature) triples, keys pre-imported, measured in
// the same run in interleaved slices (bench/suites/_limits.ts). Target: ratio >= 0.8. Also the
// strict primitive alone (es256Verify) and the pure @noble/curves path.
// BENCH_ES256_ROUNDS / BENCH_ES256_MS shorten the run (defaults 10 rounds of 300 ms slices).
import { p256 } from "@noble/curves/nist.js";
import {
  coseSigStructure,
  es256Verify,
  es256VerifyPure,
  fromHex,
  optionsFromConfig,
  p256Compress,
  parseCoseSign1,
  resolveDidKey,
  verifyEnvelope,
} from "../../verify/mod.ts";
import { interleavedMedians, measureSlice } from "./_limits.ts";

const dir = new URL("../../conformance/vectors/", import.meta.url);

export default async (): Promise<Record<string, unknown>> => {
  const envs: Uint8Array[] = [];
  for (const v of JSON.parse(await Deno.readTextFile(new URL("es256.json", dir))).vectors) {
    if (v.expected.valid) envs.push(fromHex(v.cose_sign1_hex));
  }
  const opts = optionsFromConfig(
    JSON.parse(await Deno.readTextFile(new URL("operator-config.json", dir))),
  );
  // the same signatures, as raw WebCrypto inputs: uncompressed key imported once, r ‖ s, message
  const triples = await Promise.all(envs.map(async (e) => {
    const p = parseCoseSign1(e);
    const pub = resolveDidKey(p.kid).pub;
    const msg = coseSigStructure(p.protectedBytes, p.payload);
    const raw = p256.Point.fromBytes(p256Compress(pub)).toBytes(false);
    const key = await crypto.subtle.importKey(
      "raw",
      raw,
      { name: "ECDSA", namedCurve: "P-256" },
      false,
      ["verify"],
    );
    return { key, pub, msg, sig: p.signature };
  }));
  const n = envs.length;
  const ECDSA = { name: "ECDSA", hash: "SHA-256" } as const;
  const raw = (i: number) => {
    const t = triples[i % n];
    return crypto.subtle.verify(ECDSA, t.key, t.sig as BufferSource, t.msg as BufferSource);
  };
  const full = async (i: number) => (await verifyEnvelope(envs[i % n], opts)).valid;
  const primitive = (i: number) => {
    const t = triples[i % n];
    return es256Verify(t.sig, t.msg, t.pub);
  };
  const rounds = Number(Deno.env.get("BENCH_ES256_ROUNDS") ?? 10);
  const ms = Number(Deno.env.get("BENCH_ES256_MS") ?? 300);
  const out: Record<string, unknown> = {
    es256_positive_vectors_in_mix: n,
    mean_envelope_bytes: Math.round(envs.reduce((a, e) => a + e.length, 0) / n),
    rounds,
    ms_per_slice: ms,
  };
  for (const c of [1, 32]) {
    const m = await interleavedMedians({ full, primitive, raw }, { rounds, ms, concurrency: c });
    out[`es256_receipts_verified_per_s_concurrency_${c}`] = m.full.per_s;
    out[`es256_verify_primitive_per_s_concurrency_${c}`] = m.primitive.per_s;
    out[`raw_webcrypto_ecdsa_p256_verifies_per_s_concurrency_${c}`] = m.raw.per_s;
    out[`ratio_concurrency_${c}`] = +(m.full.per_s / m.raw.per_s).toFixed(3);
    out[`cpu_us_per_receipt_concurrency_${c}`] = m.full.cpu_us_per_op;
    out[`cpu_us_per_raw_verify_concurrency_${c}`] = m.raw.cpu_us_per_op;
    out[`ratio_by_cpu_concurrency_${c}`] = +(m.raw.cpu_us_per_op / m.full.cpu_us_per_op).toFixed(3);
  }
  const pure = await measureSlice(
    async (i) => (await verifyEnvelope(envs[i % n], { ...opts, pureEs256: true })).valid,
    Math.max(500, ms * 3),
  );
  out.es256_receipts_verified_per_s_pure = Math.round(pure.ops / (pure.wallMs / 1000));
  const purePrim = await measureSlice((i) => {
    const t = triples[i % n];
    return es256VerifyPure(t.sig, t.msg, t.pub);
  }, Math.max(500, ms * 3));
  out.es256_verify_pure_primitive_per_s = Math.round(purePrim.ops / (purePrim.wallMs / 1000));
  out.target_ratio = 0.8;
  out.load_average_1m = Deno.loadavg()[0];
  return out;
};
