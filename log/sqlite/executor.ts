// node:sqlite as the SQL store's executor (log/sql/executor.ts): statements prepared once and
// kept by their text; a transaction is BEGIN IMMEDIATE ... COMMIT (the write lock taken up front,
// so two processes' writers queue on busy_timeout instead of failing mid-transaction).
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import type { SqlExecutor, SqlParam, SqlRow } from "../sql/executor.ts";

/** Options of `openSqliteExecutor`. */
export interface SqliteExecutorOptions {
  /**
   * NORMAL (the log store: its WAL is fdatasync'ed off the event loop after each commit,
   * log/sqlite/wal_sync.ts) or FULL (synced by SQLite at COMMIT: the witness state).
   */
  synchronous: "NORMAL" | "FULL";
  /** Maps the database (reads without a copy through the page cache); default no. */
  mmap?: boolean;
}

/** node:sqlite's DatabaseSync as a SqlExecutor, with the database for what only it can do. */
export class SqliteExecutor implements SqlExecutor {
  readonly #stmts = new Map<string, StatementSync>();

  constructor(readonly db: DatabaseSync) {}

  #prepare(sql: string): StatementSync {
    let st = this.#stmts.get(sql);
    if (!st) this.#stmts.set(sql, st = this.db.prepare(sql));
    return st;
  }

  all(sql: string, ...params: SqlParam[]): SqlRow[] {
    return this.#prepare(sql).all(...(params as SQLInputValue[])) as SqlRow[];
  }

  run(sql: string, ...params: SqlParam[]): number {
    return Number(this.#prepare(sql).run(...(params as SQLInputValue[])).changes);
  }

  transaction<T>(fn: () => T): T {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const out = fn();
      this.db.exec("COMMIT");
      return out;
    } catch (err) {
      // A failed COMMIT (SQLITE_FULL) may already have rolled back: keep the first error.
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      throw err;
    }
  }

  close(): void {
    this.#stmts.clear();
    if (this.db.isOpen) this.db.close();
  }
}

/** Opens (creating when absent) a SQLite file in WAL mode as an executor. */
export function openSqliteExecutor(path: string, o: SqliteExecutorOptions): SqliteExecutor {
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(`PRAGMA synchronous = ${o.synchronous}`);
    db.exec("PRAGMA busy_timeout = 5000");
    if (o.mmap) db.exec("PRAGMA mmap_size = 1073741824");
  } catch (err) {
    db.close();
    throw err;
  }
  return new SqliteExecutor(db);
}
