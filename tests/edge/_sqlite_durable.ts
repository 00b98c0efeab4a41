// Test and bench helper: the slice of a SQLite-backed Durable Object's storage API that
// log/durable/ uses (`sql.exec`, `transactionSync`, `databaseSize`; log/durable/sql_types.ts),
// over a real SQLite file through node:sqlite — the same engine the Durable Object runs, so the
// sequencer's store (log/r2/r2_storage.ts) can be driven to 10^6 entries in Deno without
// workerd. BLOBs come back as ArrayBuffer as on Cloudflare. Plus an R2 bucket kept in memory.
import { DatabaseSync } from "node:sqlite";
import type { DurableSqlStorage, SqlBinding, SqlCursor, SqlValue } from "../../log/durable/mod.ts";
import type { R2BucketLike, R2PutOptions } from "../../log/r2/r2.ts";

/** A DurableSqlStorage over a SQLite file (or ":memory:"). */
export function sqliteDurableStorage(path: string): DurableSqlStorage & { close(): void } {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL");
  const value = (v: unknown): SqlValue =>
    v instanceof Uint8Array ? v.slice().buffer as ArrayBuffer : v as SqlValue;
  return {
    sql: {
      exec<T extends Record<string, SqlValue>>(q: string, ...b: SqlBinding[]): SqlCursor<T> {
        const st = db.prepare(q);
        const args = b as (string | number | null | Uint8Array)[];
        // a statement that returns no columns is a write: its count is `rowsWritten`
        const written = st.columns().length === 0 ? Number(st.run(...args).changes) : 0;
        const read = st.columns().length === 0 ? [] : st.all(...args) as Record<string, unknown>[];
        const rows = read.map((r) =>
          Object.fromEntries(Object.entries(r).map(([k, v]) => [k, value(v)])) as T
        );
        return {
          toArray: () => rows,
          one: () => {
            if (rows.length !== 1) throw new Error(`expected one row, got ${rows.length}`);
            return rows[0];
          },
          rowsWritten: written,
          [Symbol.iterator]: () => rows[Symbol.iterator](),
        };
      },
      get databaseSize() {
        const p = db.prepare("PRAGMA page_count").get() as { page_count: number };
        const s = db.prepare("PRAGMA page_size").get() as { page_size: number };
        return p.page_count * s.page_size;
      },
    },
    transactionSync<T>(fn: () => T): T {
      db.exec("BEGIN");
      try {
        const r = fn();
        db.exec("COMMIT");
        return r;
      } catch (e) {
        db.exec("ROLLBACK");
        throw e;
      }
    },
    close: () => db.close(),
  };
}

/** An R2 bucket in memory (conditional puts as R2 does them); `bytes` is what it holds. */
export function memoryBucket(): R2BucketLike & {
  objects: Map<string, Uint8Array>;
  bytes(): number;
} {
  const objects = new Map<string, Uint8Array>();
  const enc = new TextEncoder();
  return {
    objects,
    bytes: () => [...objects.values()].reduce((n, b) => n + b.length, 0),
    get(key: string) {
      const b = objects.get(key);
      return Promise.resolve(
        b
          ? {
            arrayBuffer: () => Promise.resolve(b.slice().buffer as ArrayBuffer),
            text: () => Promise.resolve(new TextDecoder().decode(b)),
          }
          : null,
      );
    },
    put(key: string, value: Uint8Array | string, o?: R2PutOptions) {
      if (o?.onlyIf?.etagDoesNotMatch === "*" && objects.has(key)) return Promise.resolve(null);
      objects.set(key, typeof value === "string" ? enc.encode(value) : value.slice());
      return Promise.resolve({});
    },
  };
}
