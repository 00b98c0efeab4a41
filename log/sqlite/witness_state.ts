// The witness state (log/c2sp/witness_state.ts) in its own SQLite file, `<data dir>/witness.sqlite`,
// apart from the log's store so that witnessing other logs never touches our own log's file. WAL,
// synchronous=FULL: a cosignature is answered only after the new (size, root) is durable. The
// compare-and-swap is one UPDATE ... WHERE size = ? AND root = ? (or INSERT OR IGNORE for a first
// checkpoint): SQLite serialises writers, so two requests for one origin never both win, even
// across processes sharing the file.
import { DatabaseSync } from "node:sqlite";
import { LogStorageError } from "../errors.ts";
import type { CollectorRecord, CosignedRecord, WitnessStateStore } from "../c2sp/witness_state.ts";

/** File name of the witness state inside a data directory. */
export const WITNESS_DB_FILE = "witness.sqlite";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS witnessed (origin TEXT PRIMARY KEY, size INTEGER NOT NULL, root BLOB NOT NULL, note BLOB NOT NULL, updated_ms INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS collector (witness TEXT PRIMARY KEY, size INTEGER NOT NULL, cosig TEXT, root TEXT);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/** The witness state in SQLite, with its mark of having been pinned (log/c2sp/witness_pin.ts). */
export interface SqliteWitnessState extends WitnessStateStore {
  /** Whether the witness role pinned this state once (a pin beside its key then must exist). */
  pinned(): boolean;
  /** Records that the witness role pinned this state (durable when it returns). */
  markPinned(): void;
}

function fault(what: string, err: unknown): LogStorageError {
  return new LogStorageError("storage-fault", `Cannot ${what}: ${(err as Error)?.message ?? err}`, {
    cause: err,
  });
}

/**
 * Opens (creating when absent) the witness state in the SQLite file at `path`.
 *
 * @example
 * ```ts
 * const state = openSqliteWitnessState("./data/witness.sqlite");
 * ```
 */
export function openSqliteWitnessState(path: string): SqliteWitnessState {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = FULL");
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec(SCHEMA);
  } catch (err) {
    throw new LogStorageError("storage-open", `Cannot open witness state ${path}: ${err}`, {
      cause: err,
    });
  }
  const get = db.prepare("SELECT size, root, note FROM witnessed WHERE origin = ?");
  const all = db.prepare("SELECT origin, size, root FROM witnessed");
  const insert = db.prepare(
    "INSERT OR IGNORE INTO witnessed (origin, size, root, note, updated_ms) VALUES (?, ?, ?, ?, ?)",
  );
  const update = db.prepare(
    "UPDATE witnessed SET size = ?, root = ?, note = ?, updated_ms = ? WHERE origin = ? AND size = ? AND root = ?",
  );
  const getMeta = db.prepare("SELECT value FROM meta WHERE key = ?");
  const putMeta = db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
  const getC = db.prepare("SELECT size, cosig, root FROM collector WHERE witness = ?");
  const putC = db.prepare(
    "INSERT OR REPLACE INTO collector (witness, size, cosig, root) VALUES (?, ?, ?, ?)",
  );
  const run = <T>(what: string, fn: () => T): Promise<T> => {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(fault(what, err));
    }
  };
  return {
    pinned: () => getMeta.get("pinned") !== undefined,
    markPinned: () => void putMeta.run("pinned", "1"),
    get: (origin) =>
      run("read witness state", () => {
        const r = get.get(origin) as Record<string, unknown> | undefined;
        if (!r) return undefined;
        return {
          size: r.size as number,
          root: r.root as Uint8Array,
          note: r.note as Uint8Array,
        } satisfies CosignedRecord;
      }),
    heads: () =>
      run("read witness state", () =>
        (all.all() as Record<string, unknown>[]).map((r) => ({
          origin: r.origin as string,
          size: r.size as number,
          root: r.root as Uint8Array,
        }))),
    compareAndSwap: (origin, expected, next) =>
      run("write witness state", () => {
        const now = Date.now();
        const res = expected === undefined
          ? insert.run(origin, next.size, next.root, next.note, now)
          : update.run(
            next.size,
            next.root,
            next.note,
            now,
            origin,
            expected.size,
            expected.root,
          );
        return Number(res.changes) === 1;
      }),
    getCollector: (w) =>
      run("read collector state", () => {
        const r = getC.get(w) as Record<string, unknown> | undefined;
        if (!r) return undefined;
        const rec: CollectorRecord = { size: r.size as number };
        if (typeof r.cosig === "string") rec.cosignature = r.cosig;
        if (typeof r.root === "string") rec.root = r.root;
        return rec;
      }),
    putCollector: (w, rec) =>
      run("write collector state", () => {
        putC.run(w, rec.size, rec.cosignature ?? null, rec.root ?? null);
      }),
    close: () => run("close witness state", () => db.close()),
  };
}
