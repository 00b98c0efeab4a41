// A SQLite-backed Durable Object's `ctx.storage` as the SQL store's executor (log/sql/executor.ts):
// `sql.exec` for statements (BLOBs come back as ArrayBuffer, handed on as Uint8Array) and
// `transactionSync` for transactions (rolled back when the function throws).
import type { SqlExecutor, SqlParam, SqlRow } from "../sql/executor.ts";
import type { DurableSqlStorage, SqlValue } from "./sql_types.ts";

const cell = (v: SqlValue) => v instanceof ArrayBuffer ? new Uint8Array(v) : v;

/** `ctx.storage` as a SqlExecutor, with the database's size. */
export class DurableExecutor implements SqlExecutor {
  /** Rows written so far by this executor's statements (SQLite's count, what is billed). */
  rowsWritten = 0;
  constructor(readonly storage: DurableSqlStorage) {}

  all(sql: string, ...params: SqlParam[]): SqlRow[] {
    const c = this.storage.sql.exec<Record<string, SqlValue>>(sql, ...params);
    const rows = c.toArray();
    this.rowsWritten += c.rowsWritten;
    const out: SqlRow[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const r: SqlRow = {};
      for (const k in rows[i]) r[k] = cell(rows[i][k]);
      out[i] = r;
    }
    return out;
  }

  run(sql: string, ...params: SqlParam[]): number {
    const c = this.storage.sql.exec(sql, ...params);
    c.toArray(); // run to completion before reading the count
    this.rowsWritten += c.rowsWritten;
    return c.rowsWritten;
  }

  transaction<T>(fn: () => T): T {
    return this.storage.transactionSync(fn);
  }

  /** Bytes the object's database occupies (`ctx.storage.sql.databaseSize`). */
  databaseBytes(): number {
    return this.storage.sql.databaseSize;
  }
}
