// Serialized inclusion-proof bodies (API.md `GET /v1/log/proof/inclusion`; RFC 6962 §2.1.1):
// the proof of entry `index` in the tree of size `size` never changes once a head at `size` is
// signed (the log is append-only, SPEC §22), so its JSON body is kept in a bounded LRU per log
// and served again without touching the log or JSON.stringify. Bodies are written directly as
// the JSON text JSON.stringify gives for {index, size, leaf_hash, path} (tests check the two are
// byte-identical). Platform-neutral.
import type { Log } from "../../log/mod.ts";
import { toHex } from "../../verify/mod.ts";

/** Most bodies kept per log (each ~0.1-1.5 KB: a 2^20 tree's path is 20 hashes). */
export const PROOF_CACHE_MAX = 8192;

/** A bounded least-recently-used map of serialized bodies, by string key. */
export class BodyLru {
  #m = new Map<string, string>();
  constructor(readonly max: number = PROOF_CACHE_MAX) {}

  /** The body under `key`, marked most recently used; undefined when absent. */
  get(key: string): string | undefined {
    const v = this.#m.get(key);
    if (v !== undefined) {
      this.#m.delete(key);
      this.#m.set(key, v);
    }
    return v;
  }

  /** Keeps `body` under `key`, dropping the least recently used body past `max`. */
  set(key: string, body: string): void {
    this.#m.delete(key);
    this.#m.set(key, body);
    if (this.#m.size > this.max) this.#m.delete(this.#m.keys().next().value!);
  }

  get size(): number {
    return this.#m.size;
  }
}

const caches = new WeakMap<Log, BodyLru>();

/** The proof-body cache of `log` (one per log object, so two apps never share answers). */
export function proofCacheOf(log: Log): BodyLru {
  let c = caches.get(log);
  if (!c) caches.set(log, c = new BodyLru());
  return c;
}

/**
 * The JSON text of {index, size, leaf_hash, path: [hex...]}, exactly as JSON.stringify writes
 * it (integers and lowercase hex need no escaping), built in one string.
 */
export function inclusionProofJson(
  index: number,
  size: number,
  leafHash: string,
  path: Uint8Array[],
): string {
  let s = `{"index":${index},"size":${size},"leaf_hash":"${leafHash}","path":[`;
  for (let i = 0; i < path.length; i++) s += (i ? ',"' : '"') + toHex(path[i]) + '"';
  return s + "]}";
}
