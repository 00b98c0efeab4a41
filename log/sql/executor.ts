// The three-method SQL executor the one SQL store (log/sql/store.ts) and the witness state
// (log/sql/witness_state.ts) run on (issue 22 "One SQL store"). node:sqlite (log/sqlite/executor.ts)
// and a Durable Object's `ctx.storage.sql` (log/durable/executor.ts) both satisfy it, so one
// schema, one set of queries and one migration path serve both. BLOBs are Uint8Array both ways.

/** A value bound to a statement. */
export type SqlParam = number | string | null | Uint8Array;

/** A value read back: BLOBs as Uint8Array (the executor converts what its engine hands back). */
export type SqlCell = number | string | null | Uint8Array;

/** A row, by column name. */
export type SqlRow = Record<string, SqlCell>;

/** Runs SQL on one SQLite database. Every method is synchronous (both engines are). */
export interface SqlExecutor {
  /** Every row a query answers. */
  all(sql: string, ...params: SqlParam[]): SqlRow[];
  /** Runs a statement; the number of rows it inserted, updated or deleted. */
  run(sql: string, ...params: SqlParam[]): number;
  /**
   * Runs `fn` as one transaction: every write it made is committed when it returns, none when it
   * throws (the error is rethrown). Not nested.
   */
  transaction<T>(fn: () => T): T;
}
