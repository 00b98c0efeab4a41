// The lagging search index (docs/STREAMS.md "Lookups", docs/STORAGE.md "Lagging search index"):
// an entry's search keys (log/streams/check.ts) are random bytes, so writing them straight into
// the `search_keys` B-tree dirties about one index page per key in every commit: four to six
// pages per entry, each written to the WAL and checkpointed, which cost a log with the stream
// checks on most of its append rate. Instead a batch writes one row per entry to `search_tail`
// (its keys in one BLOB), keyed by entry: appended in log order, so a commit dirties the last
// page or two. Once the tail would hold more than the lag's entries, the writer inserts the whole
// tail and the batch into `search_keys` sorted by key (each index page written once per move)
// and empties the tail, in the commit of the batch that passed the lag. The tail is durable in
// the entries' own transaction: nothing is recomputed after a crash, and an entry's keys are
// always all in one of the two tables.
//
// Every connection (the writer's and each reader's) holds the tail's rows in memory, and the keys
// the checks look up by key, and brings them up to the table before it answers: rows past the
// last one it read, or the whole tail again once its generation (`meta`, bumped by every move and
// by a backfill's replacement of the tables) changed. A check's lookup is then one index seek in
// `search_keys` and a map read here; a search, one index seek and a scan of at most the lag's rows.
import type { SqlExecutor, SqlParam } from "./executor.ts";
import { insertPairs } from "./queries.ts";

/** Entries whose keys the tail holds, at most, before a move (the default lag). */
export const SEARCH_KEY_LAG = 4096;

/** A search key (a kind byte and 8 or 16 bytes) as a map key: one char per byte. */
export function keyString(k: Uint8Array): string {
  return String.fromCharCode.apply(null, k as unknown as number[]);
}

/** Appends `index` to the ascending list of `key` in `m` (once). */
export function addIndex(m: Map<string, number[]>, key: string, index: number): void {
  const l = m.get(key);
  if (!l) m.set(key, [index]);
  else if (l[l.length - 1] < index) l.push(index);
  else if (!l.includes(index)) {
    l.push(index);
    l.sort((a, b) => a - b);
  }
}

/** The first position in ascending `l` whose value is above `after`. */
function firstAbove(l: number[], after: number): number {
  let lo = 0, hi = l.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (l[mid] > after) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The tail's statements under the stream tables' prefix `p` (the store's meta under `m`). */
export function tailQueries(p: string, m: string, rows: number) {
  const genKey = `search_tail_gen:${p}`;
  return {
    gen: `SELECT v FROM ${m}meta WHERE k = '${genKey}'`,
    bump: `INSERT INTO ${m}meta (k, v) VALUES ('${genKey}', '1') ON CONFLICT (k)` +
      " DO UPDATE SET v = CAST(CAST(v AS INTEGER) + 1 AS TEXT)",
    rowsFrom: `SELECT idx, keys FROM ${p}search_tail WHERE idx >= ? ORDER BY idx`,
    put: `INSERT INTO ${p}search_tail (idx, keys) VALUES (?, ?)`,
    putMany: `INSERT INTO ${p}search_tail (idx, keys) VALUES ${"(?, ?), ".repeat(rows - 1)}(?, ?)`,
    empty: `DELETE FROM ${p}search_tail`,
    rows,
  };
}

type TailQueries = ReturnType<typeof tailQueries>;

/** Bumps the tail's generation: every connection reads the tail again (a backfill's swap). */
export function bumpTailGen(x: SqlExecutor, p: string, m: string): void {
  x.run(tailQueries(p, m, 1).bump);
}

/** A held entry: its index and its row's keys. */
interface Held {
  idx: number;
  keys: Uint8Array;
}

/** The length byte's flag of a key the checks look up (`StreamTx.keyed`). */
const CHECKED = 0x80;

/** Calls `fn` with each key of a row (a view) and whether the checks look it up. */
function eachKey(b: Uint8Array, fn: (k: Uint8Array, checked: boolean) => void): void {
  for (let o = 0; o < b.length;) {
    const n = b[o] & ~CHECKED;
    fn(b.subarray(o + 1, o + 1 + n), (b[o] & CHECKED) !== 0);
    o += 1 + n;
  }
}

/**
 * One connection's copy of `search_tail`: its rows, in entry order, and the checked keys by key
 * (what a commit's checks look up). A search scans the rows (at most the lag's entries: a bounded
 * pass over bytes, never a map of every key built on a request's time).
 */
export class SearchTail {
  readonly #q: TailQueries;
  #rows: Held[] = [];
  /** checked key → the tail entries under it, ascending */
  #checked = new Map<string, number[]>();
  /** the generation read; undefined: never read */
  #gen: string | undefined = undefined;
  /** the next entry to read from the table */
  #next = 0;

  constructor(p: string, m: string, rows: number) {
    this.#q = tailQueries(p, m, rows);
  }

  /** Entries whose keys are held. */
  get entries(): number {
    return this.#rows.length;
  }

  #clear(gen: string | undefined, next: number): void {
    this.#rows = [];
    this.#checked = new Map();
    this.#gen = gen;
    this.#next = next;
  }

  #hold(h: Held): void {
    this.#rows.push(h);
    eachKey(h.keys, (k, checked) => {
      if (checked) addIndex(this.#checked, keyString(k), h.idx);
    });
  }

  /** Brings the copy up to the table (inside the caller's transaction or read snapshot). */
  sync(x: SqlExecutor): void {
    const gen = (x.all(this.#q.gen)[0]?.v as string | undefined) ?? "0";
    if (gen !== this.#gen) this.#clear(gen, 0);
    for (const r of x.all(this.#q.rowsFrom, this.#next)) {
      const idx = Number(r.idx);
      this.#hold({ idx, keys: r.keys as Uint8Array });
      this.#next = idx + 1;
    }
  }

  /** The held entries under checked key `key` after `after`, ascending, at most `limit`. */
  checked(key: string, after: number, limit: number): number[] {
    return slice(this.#checked.get(key), after, limit);
  }

  /** The held entries after `after` that have every one of `keys`, ascending, at most `limit`. */
  find(keys: Uint8Array[], after: number, limit: number): number[] {
    const rows = this.#rows, out: number[] = [];
    let lo = 0, hi = rows.length; // the first row past `after` (rows ascend by entry)
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (rows[mid].idx > after) hi = mid;
      else lo = mid + 1;
    }
    for (let r = lo; r < rows.length && out.length < limit; r++) {
      if (keys.every((k) => holds(rows[r].keys, k))) out.push(rows[r].idx);
    }
    return out;
  }

  /**
   * Writes a batch's keys to the tail, one row per entry (`keys` of each entry first: the
   * checked ones, flagged), and moves the whole tail into `search_keys` when it would then hold
   * more than `lag` entries (`toKeys` writes flat (key, entry) pairs into `search_keys`). Inside
   * the commit transaction, after `sync`; `adopt`, once the transaction committed, brings the copy
   * up to it.
   */
  write(
    x: SqlExecutor,
    batch: { idx: number; keys: Uint8Array[]; checked: number }[],
    lag: number,
    toKeys: (pairs: SqlParam[]) => void,
  ): {
    adopt(): void;
  } {
    const q = this.#q;
    const held: Held[] = batch.map((e) => {
      let len = 0;
      for (const k of e.keys) len += 1 + k.length;
      const b = new Uint8Array(len);
      let o = 0;
      e.keys.forEach((k, j) => {
        if (k.length >= CHECKED) throw new RangeError(`Cannot hold a ${k.length}-byte search key`);
        b[o] = k.length | (j < e.checked ? CHECKED : 0);
        b.set(k, o + 1);
        o += 1 + k.length;
      });
      return { idx: e.idx, keys: b };
    });
    const moved = this.#rows.length + held.length > lag;
    if (moved) {
      // the whole tail (this copy, brought up to the table in this transaction) and the batch,
      // sorted by key then entry: the B-tree's order, each of its pages written once
      const pairs: { name: string; key: Uint8Array; idx: number }[] = [];
      for (const h of [...this.#rows, ...held]) {
        eachKey(h.keys, (key) => pairs.push({ name: keyString(key), key, idx: h.idx }));
      }
      pairs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.idx - b.idx));
      const flat: SqlParam[] = [];
      for (const p of pairs) flat.push(p.key, p.idx);
      toKeys(flat);
      x.run(q.empty);
      x.run(q.bump);
    } else {
      const flat: SqlParam[] = [];
      for (const h of held) flat.push(h.idx, h.keys);
      insertPairs(x, q.rows, q.putMany, q.put, flat);
    }
    const last = held.length ? held[held.length - 1].idx : -1;
    return {
      adopt: () => {
        // moved: the tail is empty at the generation this commit wrote
        if (moved) this.#clear(String(Number(this.#gen ?? "0") + 1), last + 1);
        else {
          for (const h of held) this.#hold(h);
          if (last >= this.#next) this.#next = last + 1;
        }
      },
    };
  }
}

/** Whether a row's keys include `k`. */
function holds(b: Uint8Array, k: Uint8Array): boolean {
  for (let o = 0; o < b.length;) {
    const n = b[o] & ~CHECKED;
    if (n === k.length) {
      let j = 0;
      while (j < n && b[o + 1 + j] === k[j]) j++;
      if (j === n) return true;
    }
    o += 1 + n;
  }
  return false;
}

/** The entries of ascending `l` after `after`, at most `limit`. */
function slice(l: number[] | undefined, after: number, limit: number): number[] {
  if (!l) return [];
  const from = firstAbove(l, after);
  return l.slice(from, from + limit);
}
