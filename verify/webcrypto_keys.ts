// The WebCrypto fast path shared by the strict signature verifiers (verify/ed25519.ts Ed25519,
// verify/p256.ts ES256): after their strict checks in JS, the signature is checked by WebCrypto
// under an imported public key. Imports are cached per key encoding (bounded, oldest out first;
// an import in flight is shared), the first answer tells whether this runtime's WebCrypto has the
// algorithm at all (NotSupportedError: it does not, and every later call takes the pure path),
// and a key WebCrypto refuses to import is decided by the pure path too. One mechanism, one
// instance per algorithm.

/** How many imported keys (and keys being imported) each verifier keeps. */
export const KEY_CACHE_MAX = 4096;

/** A cache key for a public key's bytes (one UTF-16 unit per byte: cheap to build and compare). */
export function keyId(pub: Uint8Array): string {
  return String.fromCharCode.apply(null, pub as unknown as number[]);
}

/** Sets `k` in a map bounded to `max` entries, dropping the oldest first (FIFO). */
export function setBounded<K, V>(m: Map<K, V>, k: K, v: V, max = KEY_CACHE_MAX): void {
  if (m.size >= max) m.delete(m.keys().next().value!);
  m.set(k, v);
}

/** Which path a verifier took last: WebCrypto, the pure fallback, or none yet. */
export type Backend = "webcrypto" | "pure" | "unprobed";

/** The imported keys and the usability probe of one WebCrypto algorithm. */
export class WebCryptoKeys {
  readonly #pending = new Map<string, Promise<CryptoKey | null>>(); // imports in flight or done
  readonly #ready = new Map<string, CryptoKey>(); // imported keys: no await on the hot path
  #usable: boolean | undefined; // undefined: not probed yet

  /**
   * @param importAlg the algorithm `importKey("raw", …)` is given (e.g. `{ name: "Ed25519" }`)
   * @param verifyAlg the algorithm `verify` is given (e.g. `{ name: "ECDSA", hash: "SHA-256" }`)
   */
  constructor(
    readonly importAlg: AlgorithmIdentifier | EcKeyImportParams,
    readonly verifyAlg: AlgorithmIdentifier | EcdsaParams,
  ) {}

  /** Whether the pure path must answer (WebCrypto lacks the algorithm, or it was disabled). */
  disabled(): boolean {
    return this.#usable === false;
  }

  /** The imported key `id` names, when it is imported already (no await on the hot path). */
  ready(id: string): CryptoKey | undefined {
    return this.#ready.get(id);
  }

  /** WebCrypto's verdict on `sig` over `msg` under `key` (and the probe's answer: usable). */
  verify(key: CryptoKey, sig: Uint8Array, msg: Uint8Array): Promise<boolean> {
    this.#usable = true;
    return crypto.subtle.verify(this.verifyAlg, key, sig as BufferSource, msg as BufferSource);
  }

  /**
   * Imports the key `id` names from its raw bytes (built by `raw`), once, sharing an import in
   * flight; null when WebCrypto cannot use it (then the pure path decides).
   */
  import(id: string, raw: () => Uint8Array): Promise<CryptoKey | null> {
    let p = this.#pending.get(id);
    if (p) return p;
    p = crypto.subtle.importKey("raw", raw() as BufferSource, this.importAlg, false, ["verify"])
      .then(
        (k) => {
          setBounded(this.#ready, id, k);
          return k;
        },
        (err: unknown) => {
          this.#pending.delete(id);
          if (err instanceof DOMException && err.name === "NotSupportedError") {
            this.#usable = false;
          }
          return null; // unusable here (unsupported or rejected key): the pure path decides
        },
      );
    setBounded(this.#pending, id, p);
    return p;
  }

  /** Forces the pure path (`false`), or lets the next call probe WebCrypto again (`true`). */
  setEnabled(enabled: boolean): void {
    this.#usable = enabled ? undefined : false;
  }

  /** Which path the last call took ("unprobed" before the first). */
  backend(): Backend {
    return this.#usable === undefined ? "unprobed" : this.#usable ? "webcrypto" : "pure";
  }
}
