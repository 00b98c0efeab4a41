// A byte-bounded least-recently-used cache of immutable values (docs/EDGE.md "R2"): what a
// transparency log has published never changes (SPEC §22.3), so the Worker's R2 reader
// (r2_log.ts) keeps tiles, bundles, heads and leaf indices per isolate, bounded by bytes.

/** A byte-bounded least-recently-used map (Map keeps insertion order). */
export class ImmutableCache {
  readonly #map = new Map<string, { value: unknown; bytes: number }>();
  readonly #maxBytes: number;
  #bytes = 0;
  hits = 0;
  misses = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get<T>(key: string): T | undefined {
    const e = this.#map.get(key);
    if (!e) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.#map.delete(key);
    this.#map.set(key, e);
    return e.value as T;
  }

  set(key: string, value: unknown, bytes: number): void {
    if (bytes > this.#maxBytes) return;
    const old = this.#map.get(key);
    if (old) {
      this.#bytes -= old.bytes;
      this.#map.delete(key);
    }
    this.#map.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [k, e] of this.#map) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#map.delete(k);
      this.#bytes -= e.bytes;
    }
  }

  get size(): number {
    return this.#map.size;
  }
  get bytes(): number {
    return this.#bytes;
  }
}
