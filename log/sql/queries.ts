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
  const full = rows > 1 ? args.length - (args.length % (2 * rows)) : 0;
  for (let off = 0; off < full; off += 2 * rows) x.run(many, ...args.slice(off, off + 2 * rows));
  for (let off = full; off < args.length; off += 2) x.run(one, args[off], args[off + 1]);
}
