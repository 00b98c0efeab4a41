// A round's entries as one row (issue 29, docs/EDGE.md "SQLite rows per round"): the Durable
// Object bills SQLite per row written (a delete included), so the sequencer's store keeps each
// committed batch's entries and their content identities as one row of `entry_rounds` instead of
// a row per entry in `entries` and `content_ids` (and their deletes when the window moves on).
// The window's content identities are held in memory, rebuilt from the rows on open; the leaf
// index needs no rows at all (the store's in-memory tail over the level-0 tiles, log/sql/store.ts).
// Rows an older object wrote per entry stay readable in their tables until the window prunes them.
import { StorageConflictError } from "../storage.ts";
import type { SqlExecutor, SqlRow } from "./executor.ts";

const ID = 32;
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** One entry of a batch as the store receives it. */
export interface RoundEntry {
  index: number;
  bytes: Uint8Array;
  contentId?: Uint8Array;
}

function encode(entries: RoundEntry[]): { bytes: Uint8Array; ids: Uint8Array } {
  const n = entries.reduce((s, e) => s + 4 + e.bytes.length, 0);
  const bytes = new Uint8Array(n);
  const bv = new DataView(bytes.buffer);
  const withId = entries.filter((e) => e.contentId);
  const ids = new Uint8Array(withId.length * (4 + ID));
  const iv = new DataView(ids.buffer);
  let o = 0, j = 0;
  entries.forEach((e, k) => {
    bv.setUint32(o, e.bytes.length);
    bytes.set(e.bytes, o + 4);
    o += 4 + e.bytes.length;
    if (!e.contentId) return;
    if (e.contentId.length !== ID) {
      throw new RangeError("Cannot store a content identity: not 32 bytes");
    }
    iv.setUint32(j, k);
    ids.set(e.contentId, j + 4);
    j += 4 + ID;
  });
  return { bytes, ids };
}

function decodeEntries(b: Uint8Array, n: number): Uint8Array[] {
  const v = new DataView(b.buffer, b.byteOffset, b.length);
  const out: Uint8Array[] = [];
  for (let o = 0; out.length < n && o + 4 <= b.length;) {
    const len = v.getUint32(o);
    out.push(b.slice(o + 4, o + 4 + len));
    o += 4 + len;
  }
  return out;
}

function decodeIds(first: number, b: Uint8Array): { index: number; contentId: Uint8Array }[] {
  const v = new DataView(b.buffer, b.byteOffset, b.length);
  const out = [];
  for (let o = 0; o + 4 + ID <= b.length; o += 4 + ID) {
    out.push({ index: first + v.getUint32(o), contentId: b.slice(o + 4, o + 4 + ID) });
  }
  return out;
}

const blob = (v: unknown) => (v instanceof Uint8Array ? v : new Uint8Array(0));

/** The `entry_rounds` table of a store, and the window's content identities in memory. */
export class EntryRounds {
  readonly #x: SqlExecutor;
  readonly #t: string;
  readonly #ids = new Map<string, number>();
  // the last rows read, decoded (a bundle's or a proof's reads come in runs)
  readonly #decoded = new Map<number, Uint8Array[]>();

  constructor(x: SqlExecutor, prefix: string) {
    this.#x = x;
    this.#t = `${prefix}entry_rounds`;
    x.run(
      `CREATE TABLE IF NOT EXISTS ${this.#t} (first INTEGER PRIMARY KEY, n INTEGER NOT NULL,` +
        " bytes BLOB NOT NULL, ids BLOB NOT NULL)",
    );
    for (const r of x.all(`SELECT first, ids FROM ${this.#t}`)) {
      for (const c of decodeIds(r.first as number, blob(r.ids))) {
        this.#ids.set(hex(c.contentId), c.index);
      }
    }
  }

  /**
   * Writes a batch's entries as one row (in the caller's transaction); a content identity already
   * held, or twice in the batch, refuses it (unique, as `content_ids`). Returns what `remember`
   * takes once the transaction committed.
   */
  insert(entries: RoundEntry[]): [string, number][] {
    if (entries.length === 0) return [];
    const fresh: [string, number][] = [];
    const seen = new Set<string>();
    for (const e of entries) {
      if (!e.contentId) continue;
      const h = hex(e.contentId);
      if (this.#ids.has(h) || seen.has(h)) {
        throw new StorageConflictError(
          `Cannot commit batch: the content of entry ${e.index} is already stored`,
        );
      }
      seen.add(h);
      fresh.push([h, e.index]);
    }
    const { bytes, ids } = encode(entries);
    this.#x.run(
      `INSERT INTO ${this.#t} (first, n, bytes, ids) VALUES (?, ?, ?, ?)`,
      entries[0].index,
      entries.length,
      bytes,
      ids,
    );
    return fresh;
  }

  /** Takes in `insert`'s content identities once their transaction committed. */
  remember(fresh: [string, number][]): void {
    for (const [h, i] of fresh) this.#ids.set(h, i);
  }

  #row(index: number): { first: number; entries: Uint8Array[] } | undefined {
    const r: SqlRow | undefined = this.#x.all(
      `SELECT first, n, bytes FROM ${this.#t} WHERE first <= ? ORDER BY first DESC LIMIT 1`,
      index,
    )[0];
    if (!r) return undefined;
    const first = r.first as number, n = r.n as number;
    if (index >= first + n) return undefined;
    let es = this.#decoded.get(first);
    if (!es) {
      es = decodeEntries(blob(r.bytes), n);
      this.#decoded.set(first, es);
      if (this.#decoded.size > 8) this.#decoded.delete(this.#decoded.keys().next().value!);
    }
    return { first, entries: es };
  }

  /** Entry `index`, if a round row holds it. */
  entry(index: number): Uint8Array | undefined {
    const r = this.#row(index);
    return r?.entries[index - r.first];
  }

  /** Consecutive entries from `start` (at most `limit`) that round rows hold. */
  entries(start: number, limit: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    while (out.length < limit) {
      const r = this.#row(start + out.length);
      if (!r) break;
      const from = start + out.length - r.first;
      out.push(...r.entries.slice(from, from + limit - out.length));
    }
    return out;
  }

  /** The index of a content identity in the window, if held. */
  contentIndex(id: Uint8Array): number | undefined {
    return this.#ids.get(hex(id));
  }

  /** Content identities of entries `from` .. `to - 1` the rows hold. */
  contentIdsIn(from: number, to: number): { index: number; contentId: Uint8Array }[] {
    const rows = this.#x.all(
      `SELECT first, ids FROM ${this.#t} WHERE first < ? AND first + n > ? ORDER BY first`,
      to,
      from,
    );
    return rows.flatMap((r) => decodeIds(r.first as number, blob(r.ids)))
      .filter((c) => c.index >= from && c.index < to);
  }

  /** The first index a row holds, if any. */
  first(): number | undefined {
    const v = this.#x.all(`SELECT min(first) AS f FROM ${this.#t}`)[0]?.f;
    return typeof v === "number" ? v : undefined;
  }

  /** Deletes the rows wholly below `keepFrom` (a round across it stays whole), in a transaction. */
  prune(keepFrom: number): void {
    this.#x.run(`DELETE FROM ${this.#t} WHERE first + n <= ?`, keepFrom);
  }

  /**
   * Forgets what no row holds any more, once `prune`'s transaction committed (a held identity is
   * never wrong, the log being append-only: this only bounds the memory).
   */
  forget(): void {
    const cut = this.first() ?? Infinity;
    for (const [h, i] of this.#ids) if (i < cut) this.#ids.delete(h);
    for (const f of this.#decoded.keys()) if (f < cut) this.#decoded.delete(f);
  }
}
