// The witness state (log/c2sp/witness_state.ts) in a SQLite-backed Durable Object's storage, beside
// the log's tables (docs/WITNESS.md, docs/EDGE.md). The compare-and-swap is one UPDATE ... WHERE
// size = ? AND root = ? (INSERT OR IGNORE for a first checkpoint); a Durable Object runs one call
// at a time and its output gate holds every answer until the write is durable, so a cosignature
// leaves only after its (size, root) is stored and two requests for one origin never both win.
import { LogStorageError } from "../errors.ts";
import type { CollectorRecord, WitnessStateStore } from "../c2sp/witness_state.ts";
import type { DurableSqlStorage, SqlValue } from "./sql_types.ts";

const SCHEMA = (p: string) => [
  `CREATE TABLE IF NOT EXISTS ${p}witnessed (origin TEXT PRIMARY KEY, size INTEGER NOT NULL,` +
  ` root BLOB NOT NULL, note BLOB NOT NULL, updated_ms INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS ${p}collector (witness TEXT PRIMARY KEY, size INTEGER NOT NULL,` +
  ` cosig TEXT, root TEXT)`,
];

type Row = Record<string, SqlValue>;

function run<T>(what: string, fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(
      new LogStorageError("storage-fault", `Cannot ${what}: ${(err as Error)?.message ?? err}`, {
        cause: err,
      }),
    );
  }
}

/**
 * The witness state over `storage` (tables `<prefix>witnessed`, `<prefix>collector`).
 *
 * @example
 * ```ts
 * const state = openDurableWitnessState(ctx.storage);
 * ```
 */
export function openDurableWitnessState(
  storage: DurableSqlStorage,
  prefix = "jc_",
): WitnessStateStore {
  if (!/^[a-z][a-z0-9_]*$/.test(prefix)) throw new RangeError(`Cannot use prefix ${prefix}`);
  for (const q of SCHEMA(prefix)) storage.sql.exec(q);
  const sql = storage.sql;
  return {
    get: (origin) =>
      run("read witness state", () => {
        const rows = sql.exec<Row>(
          `SELECT size, root, note FROM ${prefix}witnessed WHERE origin = ?`,
          origin,
        ).toArray();
        if (rows.length === 0) return undefined;
        const r = rows[0];
        return {
          size: r.size as number,
          root: new Uint8Array(r.root as ArrayBuffer),
          note: new Uint8Array(r.note as ArrayBuffer),
        };
      }),
    heads: () =>
      run(
        "read witness state",
        () =>
          sql.exec<Row>(`SELECT origin, size, root FROM ${prefix}witnessed`).toArray().map((r) => ({
            origin: r.origin as string,
            size: r.size as number,
            root: new Uint8Array(r.root as ArrayBuffer),
          })),
      ),
    compareAndSwap: (origin, expected, next) =>
      run("write witness state", () => {
        const c = expected === undefined
          ? sql.exec(
            `INSERT OR IGNORE INTO ${prefix}witnessed (origin, size, root, note, updated_ms)` +
              ` VALUES (?, ?, ?, ?, ?)`,
            origin,
            next.size,
            next.root,
            next.note,
            Date.now(),
          )
          : sql.exec(
            `UPDATE ${prefix}witnessed SET size = ?, root = ?, note = ?, updated_ms = ?` +
              ` WHERE origin = ? AND size = ? AND root = ?`,
            next.size,
            next.root,
            next.note,
            Date.now(),
            origin,
            expected.size,
            expected.root,
          );
        return c.rowsWritten > 0;
      }),
    getCollector: (w) =>
      run("read collector state", () => {
        const rows = sql.exec<Row>(
          `SELECT size, cosig, root FROM ${prefix}collector WHERE witness = ?`,
          w,
        ).toArray();
        if (rows.length === 0) return undefined;
        const rec: CollectorRecord = { size: rows[0].size as number };
        if (typeof rows[0].cosig === "string") rec.cosignature = rows[0].cosig;
        if (typeof rows[0].root === "string") rec.root = rows[0].root;
        return rec;
      }),
    putCollector: (w, rec) =>
      run("write collector state", () => {
        sql.exec(
          `INSERT OR REPLACE INTO ${prefix}collector (witness, size, cosig, root) VALUES (?, ?, ?, ?)`,
          w,
          rec.size,
          rec.cosignature ?? null,
          rec.root ?? null,
        );
      }),
    close: () => Promise.resolve(),
  };
}
