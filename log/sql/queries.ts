// The one set of queries of the SQL store (log/sql/store.ts) under a table-name prefix, built once
// per store. Multi-row inserts take `rows` rows a statement: one call into SQLite instead of
// `rows` (the per-call cost dominates on node:sqlite); a Durable Object binds at most 100
// parameters a statement, so it uses fewer.
import type { SqlExecutor, SqlParam } from "./executor.ts";

/** The store's statements (SQL text), by what they do. */
export function queries(p: string, rows: number) {
  const many = (table: string, cols: string) =>
    `INSERT INTO ${p}${table} (${cols}) VALUES ${"(?, ?), ".repeat(rows - 1)}(?, ?)`;
  const head = "SELECT size, root, ts, sig, sha_root FROM " + p + "heads";
  return {
    rows,
    latest: `${head} ORDER BY size DESC LIMIT 1`,
    head: `${head} WHERE size = ?`,
    heads: `${head} WHERE size >= ? ORDER BY size LIMIT ?`,
    latestSize: `SELECT size FROM ${p}heads ORDER BY size DESC LIMIT 1`,
    entry: `SELECT bytes FROM ${p}entries WHERE idx = ?`,
    entries: `SELECT idx, bytes FROM ${p}entries WHERE idx >= ? ORDER BY idx LIMIT ?`,
    firstEntry: `SELECT min(idx) AS idx FROM ${p}entries`,
    leaf: `SELECT idx FROM ${p}leaves WHERE lp = ?`,
    // one statement for a whole batch: the prefixes as a JSON array, answered by index lookups
    leafMany:
      `SELECT j.key AS k, l.idx AS idx FROM json_each(?) j JOIN ${p}leaves l ON l.lp = j.value`,
    insEntry: `INSERT INTO ${p}entries (idx, bytes) VALUES (?, ?)`,
    insEntries: many("entries", "idx, bytes"),
    insLeaf: `INSERT INTO ${p}leaves (lp, idx) VALUES (?, ?)`,
    insLeaves: many("leaves", "lp, idx"),
    dropLeaf: `DELETE FROM ${p}leaves WHERE lp = ? AND idx = ?`,
    // one snapshot of how far `leaves` and the log reach (the tail between them is in memory)
    reach: `SELECT (SELECT CAST(v AS INTEGER) FROM ${p}meta WHERE k = 'leaves_upto') AS upto, ` +
      `(SELECT max(size) FROM ${p}heads) AS size`,
    setUpto: `UPDATE ${p}meta SET v = ? WHERE k = 'leaves_upto'`,
    insHead: `INSERT INTO ${p}heads (size, root, ts, sig, sha_root) VALUES (?, ?, ?, ?, ?)`,
    setShaRoot: `UPDATE ${p}heads SET sha_root = ? WHERE size = ?`,
    getMeta: `SELECT v FROM ${p}meta WHERE k = ?`,
    putMeta: `INSERT OR REPLACE INTO ${p}meta (k, v) VALUES (?, ?)`,
    addMeta: `INSERT INTO ${p}meta (k, v) VALUES (?, ?)`,
    contentId: `SELECT idx FROM ${p}content_ids WHERE id = ?`,
    contentIdsIn: `SELECT id, idx FROM ${p}content_ids WHERE idx >= ? AND idx < ? ORDER BY idx`,
    insContentId: `INSERT INTO ${p}content_ids (id, idx) VALUES (?, ?)`,
    insContentIds: many("content_ids", "id, idx"),
    backfillContentId: `INSERT OR IGNORE INTO ${p}content_ids (id, idx) VALUES (?, ?)`,
    setContentReach: `UPDATE ${p}meta SET v = ? WHERE k = 'content_ids_upto'`,
    agent:
      `SELECT h.did AS did, h.seq AS seq, h.prev AS prev, h.idx AS idx, s.span_end AS span_end,` +
      ` s.calibrations AS calibrations FROM ${p}agent_heads h LEFT JOIN ${p}agent_state s` +
      ` ON s.did = h.did AND s.idx = h.idx WHERE h.did = ?`,
    putAgentState:
      `INSERT INTO ${p}agent_state (did, idx, span_end, calibrations) VALUES (?, ?, ?, ?) ` +
      "ON CONFLICT (did) DO UPDATE SET idx = excluded.idx, span_end = excluded.span_end, " +
      `calibrations = excluded.calibrations WHERE excluded.idx > ${p}agent_state.idx`,
    // per agent the larger index wins (a backfill never moves a head back)
    putAgent: `INSERT INTO ${p}agent_heads (did, seq, prev, idx) VALUES (?, ?, ?, ?) ` +
      "ON CONFLICT (did) DO UPDATE SET seq = excluded.seq, prev = excluded.prev, " +
      `idx = excluded.idx WHERE excluded.idx > ${p}agent_heads.idx`,
    pruneHeads: `DELETE FROM ${p}heads WHERE size < ?`,
    pruneEntries: `DELETE FROM ${p}entries WHERE idx < ?`,
    pruneContentIds: `DELETE FROM ${p}content_ids WHERE idx < ?`,
    pruneLeaves: `DELETE FROM ${p}leaves WHERE idx < ?`,
  };
}

/** The statements of one store. */
export type Queries = ReturnType<typeof queries>;

/** Runs `many` (q.rows rows a call) then `one` over the flat (a, b) pairs in `args`. */
export function insertPairs(
  x: SqlExecutor,
  rows: number,
  many: string,
  one: string,
  args: SqlParam[],
): void {
  insertRows(x, rows, 2, many, one, args);
}

// `one` with its single row of placeholders repeated n times, by (one, n)
const manyOf = new Map<string, string>();

/**
 * Runs `many` (`rows` rows of `cols` values a call) over the flat rows in `args`, then the rest in
 * statements of 32, 16, ..., 1 rows (`one`'s VALUES tuple repeated): a batch's remainder costs at
 * most log2(rows) + 1 calls instead of one per row.
 */
export function insertRows(
  x: SqlExecutor,
  rows: number,
  cols: number,
  many: string,
  one: string,
  args: SqlParam[],
): void {
  if (args.length % cols !== 0) {
    throw new RangeError(`insertRows: ${args.length} values are not rows of ${cols}`);
  }
  for (let off = 0, n = rows; off < args.length; off += n * cols) {
    while (n > 1 && off + n * cols > args.length) n >>= 1;
    const sql = n === rows ? many : n === 1 ? one : repeated(one, n);
    x.run(sql, ...args.slice(off, off + n * cols));
  }
}

/** `one` (an INSERT ending in one VALUES tuple) with that tuple repeated `n` times. */
function repeated(one: string, n: number): string {
  const key = `${n}\u0000${one}`;
  let sql = manyOf.get(key);
  if (sql === undefined) {
    const at = one.lastIndexOf("VALUES ");
    if (at < 0) throw new Error(`insertRows: not an INSERT ... VALUES (...): ${one}`);
    const tuple = one.slice(at + 7).trim();
    sql = one.slice(0, at + 7) + Array.from({ length: n }, () => tuple).join(", ");
    manyOf.set(key, sql);
  }
  return sql;
}
