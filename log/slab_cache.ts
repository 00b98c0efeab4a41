// A least-recently-used cache of equal-sized byte strings held in one buffer, allocated on the
// first put (docs/PERFORMANCE.md "Serving tiles"). The published-tile cache of log/store_source.ts: a
// cache of separately allocated 8 KiB arrays keeps them alive long enough to reach V8's old
// generation, so every eviction left garbage for a full collection (measured: more main-thread
// CPU per tile than no cache at all when most requests miss). Here a put copies into a slot and a
// get copies out, so the cache allocates nothing after its first put and what it hands out is
// the caller's own, short-lived array. Pure.

/** An LRU of `maxSlots` byte strings of exactly `slotBytes` each. */
export class SlabCache {
  readonly #bytes: number;
  readonly #max: number;
  #slab: Uint8Array | undefined;
  // key → slot, least recently used first (Map keeps insertion order)
  readonly #where = new Map<string, number>();

  constructor(slotBytes: number, maxSlots: number) {
    if (!Number.isSafeInteger(slotBytes) || slotBytes < 1) {
      throw new RangeError(`Cannot make a slab cache: slotBytes ${slotBytes}`);
    }
    if (!Number.isSafeInteger(maxSlots) || maxSlots < 0) {
      throw new RangeError(`Cannot make a slab cache: maxSlots ${maxSlots}`);
    }
    this.#bytes = slotBytes;
    this.#max = maxSlots;
  }

  /** Cached byte strings. */
  get size(): number {
    return this.#where.size;
  }

  /** A copy of the bytes cached under `key` (now the most recently used), or undefined. */
  get(key: string): Uint8Array | undefined {
    const at = this.#where.get(key);
    if (at === undefined) return undefined;
    this.#where.delete(key);
    this.#where.set(key, at);
    return this.#slab!.slice(at * this.#bytes, (at + 1) * this.#bytes);
  }

  /** Caches a copy of `bytes` (exactly slotBytes long) under `key`, evicting the oldest if full. */
  put(key: string, bytes: Uint8Array): void {
    if (bytes.length !== this.#bytes) {
      throw new RangeError(`Cannot cache ${bytes.length} bytes in slots of ${this.#bytes}`);
    }
    if (this.#max === 0 || this.#where.has(key)) return;
    let at = this.#where.size;
    if (at >= this.#max) {
      const [oldest, slot] = this.#where.entries().next().value!;
      this.#where.delete(oldest);
      at = slot;
    }
    this.#slab ??= new Uint8Array(this.#bytes * this.#max);
    this.#slab.set(bytes, at * this.#bytes);
    this.#where.set(key, at);
  }
}
