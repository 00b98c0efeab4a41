// The SQL store's stream state (issue 24; docs/STREAMS.md): the tables the stream checks
// (log/streams/check.ts) read and write inside a batch's commit transaction, and the reads of
// GET /v1/streams, the lookups and the search. One schema for node:sqlite and the Durable Object
// (the store's table prefix), additive: a store written before it gains the tables on open, and
// its `streams_upto` mark says from which index on its entries were checked.
import type {
  FindingCode,
  StoredLink,
  StreamFinding,
  StreamSummary,
  StreamTx,
} from "../streams/mod.ts";
import type { SqlExecutor, SqlParam, SqlRow } from "./executor.ts";
import { insertPairs } from "./queries.ts";
import { addIndex, keyString, SearchTail } from "./search_tail.ts";

/** Options of `SqlStreams`. */
export interface SqlStreamsOptions {
  /** Rows per multi-row INSERT. */
  rows: number;
  /**
   * Entries whose search keys wait in `search_tail` before one sorted move into `search_keys`
   * (log/sql/search_tail.ts); 0 writes them straight into `search_keys` (a Durable Object, billed
   * per row written: a move would write each key twice).
   */
  lag: number;
  /** The store's own table prefix (its `meta`), when the stream tables' differs (the backfill). */
  metaPrefix?: string;
}

/** The tables (CREATE ... IF NOT EXISTS, like the content index). */
export function streamSchema(p: string): string[] {
  return [
    ...streamTables(p),
    // Each batch's first index and its head (the first signed head covering it: issue 24's
    // integration time), never pruned: a Durable Object prunes old heads (R2 holds them).
    `CREATE TABLE IF NOT EXISTS ${p}integrations (first_idx INTEGER PRIMARY KEY,` +
    ` size INTEGER NOT NULL, ts INTEGER NOT NULL)`,
    // JCP §5.3: each activity entry's outcome (log/outcomes.ts), one row per bound activity
    `CREATE TABLE IF NOT EXISTS ${p}activity_bindings (activity INTEGER PRIMARY KEY,` +
    ` outcome INTEGER NOT NULL)`,
    // From which index on entries were checked: "all" for a store created with the tables.
    `INSERT OR IGNORE INTO ${p}meta (k, v) SELECT 'streams_upto', CASE WHEN coalesce(max(size),` +
    ` 0) = 0 THEN 'all' ELSE CAST(max(size) AS TEXT) END FROM ${p}heads`,
    // The (steward, id) keys of `receipt-id-reused` (log/streams/check.ts receiptIdKey): a store
    // whose entries were checked before them lacks theirs, and a reuse of an id logged then
    // would go unseen. Such a store has its checks recomputed once by the backfill (a rebuild
    // under way restarts: its tables lack them too); `stream_keys` marks a store that has them.
    `UPDATE ${p}meta SET v = (SELECT CAST(max(size) AS TEXT) FROM ${p}heads)` +
    ` WHERE k = 'streams_upto' AND ${
      noKeys(p)
    } AND EXISTS (SELECT 1 FROM ${p}heads WHERE size > 0)`,
    `DELETE FROM ${p}meta WHERE k = 'streams_rebuilt' AND ${noKeys(p)}`,
    `INSERT OR IGNORE INTO ${p}meta (k, v) VALUES ('stream_keys', '2')`,
  ];
}

/** Whether the store lacks the (steward, id) keys' mark. */
const noKeys = (p: string) => `NOT EXISTS (SELECT 1 FROM ${p}meta WHERE k = 'stream_keys')`;

/** The tables the checks write (`STREAM_TABLES`) and the findings' indexes, under prefix `p`. */
export function streamTables(p: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${p}streams (sid INTEGER PRIMARY KEY, steward TEXT NOT NULL,` +
    ` skey TEXT NOT NULL, length INTEGER NOT NULL, last_seq INTEGER NOT NULL,` +
    ` first_idx INTEGER NOT NULL, last_idx INTEGER NOT NULL, UNIQUE (steward, skey))`,
    `CREATE TABLE IF NOT EXISTS ${p}stream_links (sid INTEGER NOT NULL, seq INTEGER NOT NULL,` +
    ` idx INTEGER NOT NULL, cid BLOB NOT NULL, prev BLOB NOT NULL, PRIMARY KEY (sid, seq, idx))` +
    ` WITHOUT ROWID`,
    // search keys (log/streams/check.ts searchKey, receiptIdKey): a kind byte and 8 or 16 bytes
    `CREATE TABLE IF NOT EXISTS ${p}search_keys (k BLOB NOT NULL, idx INTEGER NOT NULL,` +
    ` PRIMARY KEY (k, idx)) WITHOUT ROWID`,
    // the newest entries' keys, in log order, until they move to search_keys (search_tail.ts)
    // (an entry's keys in one BLOB, each after its length byte)
    `CREATE TABLE IF NOT EXISTS ${p}search_tail (idx INTEGER PRIMARY KEY, keys BLOB NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${p}audit_heads (steward TEXT NOT NULL, engine TEXT NOT NULL,` +
    ` seq INTEGER NOT NULL, idx INTEGER NOT NULL, PRIMARY KEY (steward, engine))`,
    `CREATE TABLE IF NOT EXISTS ${p}stream_findings (id INTEGER PRIMARY KEY, steward TEXT NOT NULL,` +
    ` skey TEXT, code TEXT NOT NULL, idx INTEGER NOT NULL, seq INTEGER, other INTEGER,` +
    ` cleared INTEGER)`,
    `CREATE INDEX IF NOT EXISTS ${p}stream_findings_steward ON ${p}stream_findings (steward, id)`,
    `CREATE INDEX IF NOT EXISTS ${p}stream_findings_idx ON ${p}stream_findings (idx)`,
    `CREATE INDEX IF NOT EXISTS ${p}stream_findings_other ON ${p}stream_findings (other)`,
    // an entry's findings include the gap it cleared (the SPARQL store re-reads a finding when
    // the entry that changed it is loaded: docs/RDF.md "Stream findings")
    `CREATE INDEX IF NOT EXISTS ${p}stream_findings_cleared ON ${p}stream_findings (cleared)`,
  ];
}

/** The tables `streamTables` creates, and the findings' indexes (log/sql/streams_backfill.ts). */
export const STREAM_TABLES = [
  "streams",
  "stream_links",
  "search_keys",
  "search_tail",
  "audit_heads",
  "stream_findings",
] as const;
export const STREAM_INDEXES = ["steward", "idx", "other", "cleared"].map((c) =>
  `stream_findings_${c}`
);

const num = (v: unknown) => (v === null || v === undefined ? undefined : Number(v));

function toFinding(r: SqlRow): StreamFinding {
  const f: StreamFinding = {
    id: Number(r.id),
    code: r.code as FindingCode,
    steward: r.steward as string,
    index: Number(r.idx),
  };
  if (r.skey !== null) f.stream = r.skey as string;
  if (r.seq !== null) f.seq = Number(r.seq);
  if (r.other !== null) f.other = Number(r.other);
  if (r.cleared !== null) f.cleared_by = Number(r.cleared);
  return f;
}

/** The stream state's statements and reads over one executor. */
export class SqlStreams {
  readonly #x: SqlExecutor;
  readonly #q: ReturnType<typeof streamQueries>;
  readonly #lag: number;
  readonly #tail: SearchTail;
  constructor(x: SqlExecutor, p: string, o: SqlStreamsOptions) {
    if (!Number.isSafeInteger(o.lag) || o.lag < 0) {
      throw new RangeError(
        `Cannot open the stream state: lag must be an integer >= 0, got ${o.lag}`,
      );
    }
    this.#x = x;
    this.#q = streamQueries(p, o.rows);
    this.#lag = o.lag;
    this.#tail = new SearchTail(p, o.metaPrefix ?? p, o.rows);
  }

  /**
   * The check's view of the state; valid inside the caller's transaction only. Search keys are
   * held until `flush` and written as multi-row inserts (to the tail, or with lag 0 to
   * `search_keys`); the batch's own keys are answered from memory meanwhile. `committed`, once
   * the transaction committed, brings this connection's copy of the tail up to it.
   */
  tx(): StreamTx & { flush(): void; committed(): void } {
    const x = this.#x, q = this.#q, tail = this.#tail, lag = this.#lag;
    tail.sync(x);
    const batch: { idx: number; keys: Uint8Array[]; checked: number }[] = [];
    const mem = new Map<string, number[]>();
    // prefetched first indices in search_keys (which the checks do not write before `flush`)
    const first = new Map<string, number | undefined>();
    let adopt = () => {};
    return {
      countLink: (steward, key, seq, index) => {
        x.run(q.countLink, steward, key, seq, index, index);
        return Number(x.all(q.sid, steward, key)[0].sid);
      },
      links: (sid, seq) =>
        x.all(q.links, sid, seq).map((r): StoredLink => ({
          index: Number(r.idx),
          cid: r.cid as Uint8Array,
          prev: r.prev as Uint8Array,
        })),
      putLink: (sid, seq, l) => void x.run(q.putLink, sid, seq, l.index, l.cid, l.prev),
      prefetch: (keys) => {
        for (let off = 0; off < keys.length; off += q.rows) {
          const part = keys.slice(off, off + q.rows);
          for (const r of x.all(q.firstMany(part.length), ...part)) {
            first.set(keyString(r.k as Uint8Array), Number(r.idx));
          }
          for (const k of part) {
            const s = keyString(k);
            if (!first.has(s)) first.set(s, undefined);
          }
        }
      },
      keyed: (k, limit) => {
        const s = keyString(k);
        const known = limit === 1 && first.has(s);
        const at = known ? first.get(s) : undefined;
        const out = known
          ? (at === undefined ? [] : [at])
          : x.all(q.keyed, k, -1, limit).map((r) => Number(r.idx));
        if (out.length < limit) out.push(...tail.checked(s, -1, limit - out.length));
        const more = mem.get(s);
        return more ? [...out, ...more].slice(0, limit) : out;
      },
      putKeys: (index, keys, plain = []) => {
        batch.push({ idx: index, keys: [...keys, ...plain], checked: keys.length });
        for (const k of keys) addIndex(mem, keyString(k), index);
      },
      flush: () => {
        const toKeys = (pairs: SqlParam[]) => insertPairs(x, q.rows, q.putKeys, q.putKey, pairs);
        if (lag > 0) {
          adopt = tail.write(x, batch, lag, toKeys).adopt;
          return;
        }
        const pairs: SqlParam[] = [];
        for (const e of batch) for (const k of e.keys) pairs.push(k, e.idx);
        toKeys(pairs);
      },
      committed: () => adopt(),
      auditHead: (steward, engine) => {
        const r = x.all(q.audit, steward, engine)[0];
        return r && { seq: Number(r.seq), index: Number(r.idx) };
      },
      putAuditHead: (steward, engine, seq, index) =>
        void x.run(q.putAudit, steward, engine, seq, index),
      addFinding: (f) => {
        const at = [f.steward, f.stream ?? null, f.code, f.index, f.seq ?? null, f.other ?? null];
        f.id = Number(x.all(q.addFinding, ...at)[0].id);
      },
      clearGap: (index, by) => void x.run(q.clearGap, by, index),
      bind: (activity, outcome) => void x.run(q.bind, activity, outcome),
    };
  }

  /** A steward's streams. */
  streams(steward: string): StreamSummary[] {
    return this.#x.all(this.#q.streams, steward).map((r) => ({
      key: r.skey as string,
      length: Number(r.length),
      last_seq: Number(r.last_seq),
      first_index: Number(r.first_idx),
      last_index: Number(r.last_idx),
    }));
  }

  /** A steward's findings after finding `after`, at most `limit`, in the order they were made. */
  findings(steward: string, after: number, limit: number): StreamFinding[] {
    return this.#x.all(this.#q.findings, steward, after, limit).map(toFinding);
  }

  /** The findings about one entry (by it, naming it as the other side, or cleared by it). */
  entryFindings(index: number): StreamFinding[] {
    return this.#x.all(this.#q.entryFindings, index, index, index).map(toFinding);
  }

  /**
   * Indices under every key (1-3), after `after`, ascending, at most `limit`: an index seek in
   * `search_keys` and a bounded scan of the tail (an entry's keys are all in one of the two).
   */
  search(keys: Uint8Array[], after: number, limit: number): number[] {
    const sql = this.#q.search[keys.length - 1];
    if (!sql) throw new RangeError(`Cannot search: ${keys.length} keys, 1 to 3`);
    // the tail first: a move between the two reads then shows its keys twice (deduplicated
    // below), never in neither
    const tail = this.#tail;
    tail.sync(this.#x);
    const found = this.#x.all(sql, keys[0], after, ...keys.slice(1), limit).map((r) =>
      Number(r.idx)
    );
    if (tail.entries === 0) return found;
    const more = tail.find(keys, after, limit);
    if (more.length === 0) return found;
    const all = [...new Set([...found, ...more])].sort((a, b) => a - b);
    return all.slice(0, limit);
  }

  /** Records a committed batch's first index and its head (inside the commit transaction). */
  putIntegration(firstIndex: number, size: number, ts: number): void {
    this.#x.run(this.#q.putIntegration, firstIndex, size, ts);
  }

  /** The head that integrated entry `index`, if the batch that logged it was recorded. */
  integration(index: number): { size: number; timestamp: number } | undefined {
    const r = this.#x.all(this.#q.integration, index)[0];
    return r && Number(r.size) > index
      ? { size: Number(r.size), timestamp: Number(r.ts) }
      : undefined;
  }

  /** JCP §5.3: the outcome each activity is bound to (one point read each). */
  boundOutcomes(activities: number[]): (number | undefined)[] {
    return activities.map((a) => num(this.#x.all(this.#q.bound, a)[0]?.outcome));
  }

  /** From which index on entries were checked ("all": every entry). */
  reach(): number | "all" {
    const v = this.#x.all(this.#q.reach)[0]?.v;
    return v === undefined || v === "all" ? "all" : num(v)!;
  }
}

function streamQueries(p: string, rows: number) {
  const firstMany: string[] = [];
  const and = (n: number) =>
    Array.from(
      { length: n },
      () => ` AND EXISTS (SELECT 1 FROM ${p}search_keys o WHERE o.k = ? AND o.idx = s.idx)`,
    ).join("");
  const search = (n: number) =>
    `SELECT s.idx AS idx FROM ${p}search_keys s WHERE s.k = ? AND s.idx > ?${and(n)}` +
    " ORDER BY s.idx LIMIT ?";
  return {
    countLink: `INSERT INTO ${p}streams (steward, skey, length, last_seq, first_idx, last_idx)` +
      " VALUES (?1, ?2, 1, ?3, ?4, ?5) ON CONFLICT (steward, skey) DO UPDATE SET" +
      " length = length + 1, last_seq = max(last_seq, excluded.last_seq)," +
      " last_idx = excluded.last_idx",
    sid: `SELECT sid FROM ${p}streams WHERE steward = ? AND skey = ?`,
    links: `SELECT idx, cid, prev FROM ${p}stream_links WHERE sid = ? AND seq = ? ORDER BY idx`,
    putLink: `INSERT INTO ${p}stream_links (sid, seq, idx, cid, prev) VALUES (?, ?, ?, ?, ?)`,
    keyed: `SELECT idx FROM ${p}search_keys WHERE k = ? AND idx > ? ORDER BY idx LIMIT ?`,
    // the first index under each of n keys: one seek each (the primary key's order)
    firstMany: (n: number) =>
      firstMany[n] ??= `SELECT k, min(idx) AS idx FROM ${p}search_keys WHERE k IN (` +
        `${Array.from({ length: n }, () => "?").join(", ")}) GROUP BY k`,
    rows,
    putKey: `INSERT OR IGNORE INTO ${p}search_keys (k, idx) VALUES (?, ?)`,
    putKeys: `INSERT OR IGNORE INTO ${p}search_keys (k, idx) VALUES ` +
      `${"(?, ?), ".repeat(rows - 1)}(?, ?)`,
    audit: `SELECT seq, idx FROM ${p}audit_heads WHERE steward = ? AND engine = ?`,
    putAudit: `INSERT OR REPLACE INTO ${p}audit_heads (steward, engine, seq, idx)` +
      " VALUES (?, ?, ?, ?)",
    addFinding: `INSERT INTO ${p}stream_findings (steward, skey, code, idx, seq, other)` +
      " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
    clearGap: `UPDATE ${p}stream_findings SET cleared = ? WHERE idx = ? AND code = 'stream-gap'` +
      " AND cleared IS NULL",
    streams: `SELECT skey, length, last_seq, first_idx, last_idx FROM ${p}streams` +
      " WHERE steward = ? ORDER BY sid",
    findings: `SELECT * FROM ${p}stream_findings WHERE steward = ? AND id > ? ORDER BY id LIMIT ?`,
    // a revocation is the other side of every allow after it (issue 25): those are listed at
    // each allow and its steward, not here, so an entry's list stays bounded
    entryFindings: `SELECT * FROM ${p}stream_findings WHERE idx = ? UNION` +
      ` SELECT * FROM ${p}stream_findings WHERE other = ? AND code <> 'grant-revoked' UNION` +
      ` SELECT * FROM ${p}stream_findings WHERE cleared = ? ORDER BY id`,
    search: [search(0), search(1), search(2)],
    reach: `SELECT v FROM ${p}meta WHERE k = 'streams_upto'`,
    // a plain INSERT: a second binding of one activity fails the commit (the sequencer refuses
    // it before sequencing: log/outcomes.ts; this is the store's own guard)
    bind: `INSERT INTO ${p}activity_bindings (activity, outcome) VALUES (?, ?)`,
    bound: `SELECT outcome FROM ${p}activity_bindings WHERE activity = ?`,
    putIntegration: `INSERT INTO ${p}integrations (first_idx, size, ts) VALUES (?, ?, ?)`,
    integration: `SELECT size, ts FROM ${p}integrations WHERE first_idx <= ?` +
      " ORDER BY first_idx DESC LIMIT 1",
  };
}
