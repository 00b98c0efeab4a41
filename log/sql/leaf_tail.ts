// The in-memory part of the SQL store's leaf index (docs/STORAGE.md "Lagging leaf index"):
// leaf-hash prefixes (log/storage.ts `leafPrefix`) of the newest entries, those at or past
// `base`, which the `leaves` table does not hold yet. The durable truth for them is the level-0
// tiles (the leaf hashes themselves), from which the tail is rebuilt on open; it is flushed to
// `leaves` in one large sorted insert, so each index page is written once per flush instead of
// once per batch.

/** Leaf-hash prefixes of the entries `base, base+1, ...` not yet in the SQLite leaf index. */
export class LeafTail {
  #base: number;
  #prefixes: number[] = [];
  // prefix → index, or the indices when prefixes collide (rare: 6 random bytes)
  readonly #byPrefix = new Map<number, number | number[]>();

  /** An empty tail starting at entry `base` (the first index not in the SQLite index). */
  constructor(base: number) {
    this.#base = base;
  }

  /** The first index the tail covers (every smaller index is in the SQLite index). */
  get base(): number {
    return this.#base;
  }

  /** Number of entries held. */
  get size(): number {
    return this.#prefixes.length;
  }

  /** Appends the prefix of entry `base + size`. */
  push(prefix: number): void {
    const index = this.#base + this.#prefixes.length;
    this.#prefixes.push(prefix);
    const had = this.#byPrefix.get(prefix);
    if (had === undefined) this.#byPrefix.set(prefix, index);
    else if (typeof had === "number") this.#byPrefix.set(prefix, [had, index]);
    else had.push(index);
  }

  /** Whether some entry in the tail has the prefix `prefix`. */
  has(prefix: number): boolean {
    return this.#byPrefix.has(prefix);
  }

  /** Indices in the tail whose prefix is `prefix` (appended to `out`). */
  candidates(prefix: number, out: number[]): void {
    const had = this.#byPrefix.get(prefix);
    if (had === undefined) return;
    if (typeof had === "number") out.push(had);
    else out.push(...had);
  }

  /** The held (prefix, index) pairs sorted by prefix, then index: the order of the B-tree key. */
  sorted(): { prefix: number; index: number }[] {
    const rows = this.#prefixes.map((prefix, k) => ({ prefix, index: this.#base + k }));
    return rows.sort((a, b) => a.prefix - b.prefix || a.index - b.index);
  }

  /** Forgets everything held: the entries before `base` are in the SQLite index now. */
  reset(base: number): void {
    this.#base = base;
    this.#prefixes = [];
    this.#byPrefix.clear();
  }
}
