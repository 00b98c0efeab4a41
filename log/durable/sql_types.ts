// The part of Cloudflare's Durable Object storage API (SQLite-backed objects) that the log's
// durable backend uses, declared here so the log stays free of a dependency on
// @cloudflare/workers-types and type-checks under Deno. Shapes follow the Workers runtime
// reference: `ctx.storage.sql.exec(query, ...bindings)` returns a cursor; BLOBs come back as
// ArrayBuffer; `ctx.storage.transactionSync(fn)` runs `fn` atomically (rolled back if it throws).

/** A value SQLite hands back or takes as a binding. */
export type SqlValue = ArrayBuffer | string | number | null;

/** A binding: SqlValue, or bytes (stored as a BLOB). */
export type SqlBinding = SqlValue | Uint8Array;

/** The cursor `exec` returns (iterable rows). */
export interface SqlCursor<T extends Record<string, SqlValue>> extends Iterable<T> {
  toArray(): T[];
  /** Exactly one row, else throws. */
  one(): T;
  readonly rowsWritten: number;
}

/** `ctx.storage.sql`. */
export interface SqlStorage {
  exec<T extends Record<string, SqlValue>>(query: string, ...bindings: SqlBinding[]): SqlCursor<T>;
  /** Bytes the object's database occupies. */
  readonly databaseSize: number;
}

/** `ctx.storage` of a SQLite-backed Durable Object (the parts used here). */
export interface DurableSqlStorage {
  readonly sql: SqlStorage;
  transactionSync<T>(fn: () => T): T;
}
