// The witness state (log/c2sp/witness_state.ts) over the SQL executor (log/sql/executor.ts): one
// implementation for its own node:sqlite file (log/sqlite/witness_state.ts) and a Durable
// Object's storage beside the log's tables (log/durable/witness_state.ts). The compare-and-swap is
// one UPDATE ... WHERE size = ? AND root = ? (INSERT OR IGNORE for a first checkpoint): SQLite
// serialises writers, so two requests for one origin never both win; a cosignature is answered
// only after the new (size, root) is durable (node:sqlite: synchronous=FULL; a Durable Object:
// its output gate).
import { LogStorageError } from "../errors.ts";
import type { CollectorRecord, WitnessStateStore } from "../c2sp/witness_state.ts";
import type { SqlExecutor } from "./executor.ts";

/** The witness tables under a table-name prefix. */
export function witnessSchema(p: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${p}witnessed (origin TEXT PRIMARY KEY, size INTEGER NOT NULL,` +
    ` root BLOB NOT NULL, note BLOB NOT NULL, updated_ms INTEGER NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${p}collector (witness TEXT PRIMARY KEY, size INTEGER NOT NULL,` +
    ` cosig TEXT, root TEXT)`,
  ];
}

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
 * The witness state over `x` (tables `<prefix>witnessed`, `<prefix>collector`, created when
 * absent); `close` runs `onClose`.
 */
export function sqlWitnessState(
  x: SqlExecutor,
  prefix: string,
  onClose: () => void = () => {},
): WitnessStateStore {
  if (prefix !== "" && !/^[a-z][a-z0-9_]*$/.test(prefix)) {
    throw new RangeError(`Cannot use prefix ${prefix}`);
  }
  for (const q of witnessSchema(prefix)) x.run(q);
  const p = prefix;
  return {
    get: (origin) =>
      run("read witness state", () => {
        const r = x.all(`SELECT size, root, note FROM ${p}witnessed WHERE origin = ?`, origin)[0];
        if (!r) return undefined;
        return { size: r.size as number, root: r.root as Uint8Array, note: r.note as Uint8Array };
      }),
    heads: () =>
      run(
        "read witness state",
        () =>
          x.all(`SELECT origin, size, root FROM ${p}witnessed`).map((r) => ({
            origin: r.origin as string,
            size: r.size as number,
            root: r.root as Uint8Array,
          })),
      ),
    compareAndSwap: (origin, expected, next) =>
      run("write witness state", () => {
        const now = Date.now();
        const changed = expected === undefined
          ? x.run(
            `INSERT OR IGNORE INTO ${p}witnessed (origin, size, root, note, updated_ms)` +
              " VALUES (?, ?, ?, ?, ?)",
            origin,
            next.size,
            next.root,
            next.note,
            now,
          )
          : x.run(
            `UPDATE ${p}witnessed SET size = ?, root = ?, note = ?, updated_ms = ?` +
              " WHERE origin = ? AND size = ? AND root = ?",
            next.size,
            next.root,
            next.note,
            now,
            origin,
            expected.size,
            expected.root,
          );
        return changed > 0;
      }),
    getCollector: (w) =>
      run("read collector state", () => {
        const r = x.all(`SELECT size, cosig, root FROM ${p}collector WHERE witness = ?`, w)[0];
        if (!r) return undefined;
        const rec: CollectorRecord = { size: r.size as number };
        if (typeof r.cosig === "string") rec.cosignature = r.cosig;
        if (typeof r.root === "string") rec.root = r.root;
        return rec;
      }),
    putCollector: (w, rec) =>
      run("write collector state", () => {
        x.run(
          `INSERT OR REPLACE INTO ${p}collector (witness, size, cosig, root) VALUES (?, ?, ?, ?)`,
          w,
          rec.size,
          rec.cosignature ?? null,
          rec.root ?? null,
        );
      }),
    close: () => run("close witness state", onClose),
  };
}
