// Envelopes for the suites that append (http, witness): a pool signed before the clock starts,
// sized by the suite from a calibration, and topped up while the run goes on, a chunk at a time
// ahead of need, so that no machine is fast enough to run out (issue 28: `bench witness` crashed
// with "out of envelopes" on a faster machine). What was signed during the run is counted
// (`signedDuringRun`), since those signatures share the machine with what is measured.
import { receiptCore } from "../../fixtures/app.ts";
import {
  coseProtectedHeader,
  coseSigStructure,
  didKeyFromPublicKey,
  encodeCbor,
} from "../../verify/mod.ts";

/** `n` valid JCR-1 envelopes, signed with WebCrypto Ed25519 (deterministic, RFC 8032). */
export async function presign(n: number): Promise<Uint8Array<ArrayBuffer>[]> {
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

/** Envelopes prepared by `prepare`, signed ahead of need: `take` never runs out. */
export class SigningPool<T> {
  #items: T[];
  #next = 0;
  #refill: Promise<void> | undefined;
  /** Envelopes signed after the pool was created (0 when the calibrated size sufficed). */
  signedDuringRun = 0;

  private constructor(items: T[], readonly prepare: (envelope: Uint8Array) => T) {
    this.#items = items;
  }

  /** A pool of `size` envelopes signed now (the suite's calibrated estimate of its need). */
  static async create<T>(size: number, prepare: (e: Uint8Array) => T): Promise<SigningPool<T>> {
    return new SigningPool((await presign(size)).map(prepare), prepare);
  }

  /** Envelopes signed before the run (the calibrated size). */
  get presigned(): number {
    return this.#items.length - this.signedDuringRun;
  }

  /** Envelopes taken so far. */
  get used(): number {
    return this.#next;
  }

  /** The next unused envelope; below LOW_WATER left, a chunk more is signed in the background. */
  async take(): Promise<T> {
    if (this.#items.length - this.#next < LOW_WATER) void this.#topUp();
    while (this.#next >= this.#items.length) await this.#topUp();
    return this.#items[this.#next++];
  }

  #topUp(): Promise<void> {
    // A fresh key per chunk, so that a chunk never repeats a signed content already logged.
    this.#refill ??= presign(CHUNK).then((envs) => {
      this.#items.push(...envs.map(this.prepare));
      this.signedDuringRun += envs.length;
      this.#refill = undefined;
    });
    return this.#refill;
  }
}

/** Unused envelopes below which signing ahead starts, and how many each top-up signs. */
const LOW_WATER = 2048;
const CHUNK = 1024;
