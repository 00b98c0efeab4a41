// Full verification throughput: verifyEnvelope (all six report steps, JCR-1 §6) over a mix of the
// published positive conformance vectors, beside the raw WebCrypto Ed25519 verifies/s measured in
// the same run at the same concurrency. Target: ratio >= 0.8 — everything but the signature must be
// cheap. Measurements are interleaved in rounds so machine noise hits both figures alike.

import { fromHex, optionsFromConfig, verifyEnvelope } from "../../verify/mod.ts";
import type { VerifierOptions } from "../../verify/mod.ts";
import { rawWebCryptoVerifiesPerSecond } from "./_limits.ts";

const dir = new URL("../../conformance/vectors/", import.meta.url);

async function positives(): Promise<{ envs: Uint8Array[]; opts: VerifierOptions }> {
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

async function receiptsPerSecond(
  envs: Uint8Array[],
  opts: VerifierOptions,
  ms: number,
  concurrency: number,
): Promise<number> {
  let done = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    const batch = [];
    for (let i = 0; i < concurrency; i++) {
      batch.push(verifyEnvelope(envs[(done + i) % envs.length], opts));
    }
    for (const r of await Promise.all(batch)) {
      if (!r.valid) throw new Error("Cannot measure: a positive vector did not verify");
    }
    done += concurrency;
  }
  return done / ((performance.now() - t0) / 1000);
}

/** The suite: receipts/s and the raw limit at concurrency 1 and 32, plus the pure-JS path. */
export default async (): Promise<Record<string, unknown>> => {
  const { envs, opts } = await positives();
  await receiptsPerSecond(envs, opts, 300, 1); // warm-up: JIT, key caches
  const rounds = 3, ms = 1500;
  const out: Record<string, unknown> = {
    positive_vectors_in_mix: envs.length,
    rounds,
    ms_per_round: ms,
  };
  for (const c of [1, 32]) {
    let full = 0, raw = 0;
    for (let r = 0; r < rounds; r++) {
      full += await receiptsPerSecond(envs, opts, ms, c);
      raw += await rawWebCryptoVerifiesPerSecond(ms, c);
    }
    full /= rounds;
    raw /= rounds;
    out[`receipts_verified_per_s_concurrency_${c}`] = Math.round(full);
    out[`raw_webcrypto_ed25519_verifies_per_s_concurrency_${c}`] = Math.round(raw);
    out[`ratio_concurrency_${c}`] = Number((full / raw).toFixed(3));
    // what the five non-signature steps and the report cost per receipt, beside one raw verify
    out[`overhead_us_per_receipt_concurrency_${c}`] = Number(
      ((1e6 / full) - (1e6 / raw)).toFixed(1),
    );
  }
  out.receipts_verified_per_s_pure_ed25519 = Math.round(
    await receiptsPerSecond(envs, { ...opts, pureEd25519: true }, ms, 1),
  );
  out.target_ratio = 0.8;
  return out;
};
