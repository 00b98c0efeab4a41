// The machine's own limits, measured in the same run as every figure they are set beside
// (bench/main.ts). Other suites import the helpers; as a suite of its own it reports them.
import process from "node:process";
import { count, ms as short } from "./_short.ts";

const enc = new TextEncoder();

/** One pre-imported WebCrypto Ed25519 (key, signature, message) triple. */
export interface Sample {
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
export async function rawWebCryptoVerifiesPerSecond(full = 2000, concurrency = 1): Promise<number> {
  const ms = short(full);
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

/** One measured slice: operations done, wall milliseconds, process CPU microseconds (all threads). */
export interface Slice {
  ops: number;
  wallMs: number;
  cpuUs: number;
}

function processCpuUs(): number {
  const u = process.cpuUsage(); // user + system, every thread of the process (WebCrypto's too)
  return u.user + u.system;
}

/**
 * Runs `op(i)` with `concurrency` operations in flight for about `ms` milliseconds; returns the
 * count, the wall time and the process CPU time it took. `op` resolves false (or throws) on a
 * result that should not happen, which stops the measurement.
 */
export async function measureSlice(
  op: (i: number) => Promise<boolean> | boolean,
  full: number,
  concurrency = 1,
): Promise<Slice> {
  const ms = short(full);
  let ops = 0;
  const c0 = processCpuUs();
  const t0 = performance.now();
  let now = t0;
  while (now - t0 < ms) {
    if (concurrency === 1) {
      if (!(await op(ops))) throw new Error("Cannot measure: an operation gave a wrong answer");
      ops++;
    } else {
      const batch = [];
      for (let i = 0; i < concurrency; i++) batch.push(op(ops + i));
      if ((await Promise.all(batch)).includes(false)) {
        throw new Error("Cannot measure: an operation gave a wrong answer");
      }
      ops += concurrency;
    }
    now = performance.now();
  }
  return { ops, wallMs: now - t0, cpuUs: processCpuUs() - c0 };
}

/** A raw WebCrypto Ed25519 verification over pre-imported samples, as a measureSlice op. */
export function rawVerifyOp(samples: Sample[]): (i: number) => Promise<boolean> {
  return (i) => {
    const s = samples[i % samples.length];
    return crypto.subtle.verify({ name: "Ed25519" }, s.key, s.sig, s.msg);
  };
}

/** Medians over the slices of one operation. */
export interface Medians {
  per_s: number;
  wall_us_per_op: number;
  cpu_us_per_op: number;
}

/**
 * Measures several operations in interleaved slices (each round runs every operation once, the
 * order rotating), so that load which comes and goes on a shared machine falls on all of them
 * alike; answers the median per-slice figures of each.
 */
export async function interleavedMedians(
  ops: Record<string, (i: number) => Promise<boolean> | boolean>,
  opts: { rounds: number; ms: number; concurrency: number },
): Promise<Record<string, Medians>> {
  const names = Object.keys(ops);
  for (const n of names) await measureSlice(ops[n], Math.min(300, opts.ms), opts.concurrency); // warm-up
  const slices: Record<string, Slice[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < count(opts.rounds, 2); r++) {
    for (let k = 0; k < names.length; k++) {
      const n = names[(k + r) % names.length];
      slices[n].push(await measureSlice(ops[n], opts.ms, opts.concurrency));
    }
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const out: Record<string, Medians> = {};
  for (const n of names) {
    const xs = slices[n];
    out[n] = {
      per_s: Math.round(median(xs.map((x) => x.ops / (x.wallMs / 1000)))),
      wall_us_per_op: +median(xs.map((x) => (x.wallMs * 1000) / x.ops)).toFixed(1),
      cpu_us_per_op: +median(xs.map((x) => x.cpuUs / x.ops)).toFixed(1),
    };
  }
  return out;
}

/** As a suite: the raw limits alone. */
export default async () => ({
  raw_webcrypto_ed25519_verifies_per_s: await rawWebCryptoVerifiesPerSecond(2000),
  raw_webcrypto_ed25519_verifies_per_s_concurrency_32: await rawWebCryptoVerifiesPerSecond(
    2000,
    32,
  ),
});
