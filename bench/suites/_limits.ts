// The machine's own limits, measured in the same run as every figure they are set beside
// (bench/main.ts). Other suites import the helpers; as a suite of its own it reports them.
const enc = new TextEncoder();

interface Sample {
  key: CryptoKey;
  sig: Uint8Array<ArrayBuffer>;
  msg: Uint8Array<ArrayBuffer>;
}

/** `n` distinct WebCrypto Ed25519 (public key, message, signature) triples, keys pre-imported. */
export async function webCryptoEd25519Samples(n = 64): Promise<Sample[]> {
  const out: Sample[] = [];
  for (let i = 0; i < n; i++) {
    const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
      "sign",
      "verify",
    ]) as CryptoKeyPair;
    const msg = enc.encode(`limit sample ${i} `.repeat(20)); // ~300 bytes, a receipt core's size
    const sig = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, pair.privateKey, msg));
    out.push({ key: pair.publicKey, sig, msg });
  }
  return out;
}

/**
 * Raw WebCrypto Ed25519 verifications per second (no checks of ours): imported keys, `concurrency`
 * verifications in flight at a time, for about `ms` milliseconds. The ceiling for any strict
 * verifier built on WebCrypto in this runtime on this machine.
 */
export async function rawWebCryptoVerifiesPerSecond(ms = 2000, concurrency = 1): Promise<number> {
  const samples = await webCryptoEd25519Samples();
  let done = 0;
  const t0 = performance.now();
  let now = t0;
  while (now - t0 < ms) {
    if (concurrency === 1) {
      const s = samples[done % samples.length];
      if (!(await crypto.subtle.verify({ name: "Ed25519" }, s.key, s.sig, s.msg))) {
        throw new Error("Cannot measure: a valid signature failed");
      }
      done++;
    } else {
      const batch = [];
      for (let i = 0; i < concurrency; i++) {
        const s = samples[(done + i) % samples.length];
        batch.push(crypto.subtle.verify({ name: "Ed25519" }, s.key, s.sig, s.msg));
      }
      if ((await Promise.all(batch)).includes(false)) {
        throw new Error("Cannot measure: a valid signature failed");
      }
      done += concurrency;
    }
    if ((done & 63) === 0 || concurrency > 1) now = performance.now();
  }
  return Math.round(done / ((performance.now() - t0) / 1000));
}

/** As a suite: the raw limits alone. */
export default async () => ({
  raw_webcrypto_ed25519_verifies_per_s: await rawWebCryptoVerifiesPerSecond(2000),
  raw_webcrypto_ed25519_verifies_per_s_concurrency_32: await rawWebCryptoVerifiesPerSecond(
    2000,
    32,
  ),
});
