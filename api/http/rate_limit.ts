// Per-client token-bucket rate limiting (API.md "Limits"): each client key has a bucket of
// `burst` tokens refilled at `perSecond`; a request takes one token or is refused with the wait
// until the next token (429 + Retry-After, RFC 6585 §4). Memory is bounded: at most `maxClients`
// buckets, and a bucket that has refilled completely carries no state and is dropped first. Pure.
import type { RateSpec } from "../services/config.ts";

/** Outcome of `take`: allowed, or refused with the milliseconds until a token is available. */
export type TakeResult = { ok: true } | { ok: false; retryAfterMs: number };

interface Bucket {
  tokens: number;
  at: number; // ms of last refill
}

/** A set of token buckets, one per client key. */
export class TokenBuckets {
  #buckets = new Map<string, Bucket>();
  constructor(
    readonly spec: RateSpec,
    readonly maxClients = 100_000,
  ) {}

  /** Takes one token for `key` at time `now` (ms). perSecond 0 means unlimited. */
  take(key: string, now: number): TakeResult {
    const { perSecond, burst } = this.spec;
    if (perSecond <= 0) return { ok: true };
    let b = this.#buckets.get(key);
    if (!b) {
      if (this.#buckets.size >= this.maxClients) this.#evict(now);
      b = { tokens: burst, at: now };
      this.#buckets.set(key, b);
    } else {
      b.tokens = Math.min(burst, b.tokens + ((now - b.at) * perSecond) / 1000);
      b.at = now;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterMs: Math.ceil(((1 - b.tokens) * 1000) / perSecond) };
  }

  /** Number of buckets held (for tests of the memory bound). */
  get size(): number {
    return this.#buckets.size;
  }

  #evict(now: number) {
    const { perSecond, burst } = this.spec;
    for (const [k, b] of this.#buckets) {
      if (b.tokens + ((now - b.at) * perSecond) / 1000 >= burst) this.#buckets.delete(k);
    }
    // Still full (every client is mid-burst): drop the oldest tenth, in insertion order.
    if (this.#buckets.size >= this.maxClients) {
      let n = Math.max(1, Math.floor(this.maxClients / 10));
      for (const k of this.#buckets.keys()) {
        this.#buckets.delete(k);
        if (--n === 0) break;
      }
    }
  }
}
