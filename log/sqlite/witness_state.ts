// The witness state (log/c2sp/witness_state.ts) in its own SQLite file, `<data dir>/witness.sqlite`,
// apart from the log's store so that witnessing other logs never touches our own log's file: the
// one SQL witness state (log/sql/witness_state.ts) over node:sqlite, WAL with synchronous=FULL (a
// cosignature is answered only after the new (size, root) is durable), plus the mark of having
// been pinned. SQLite serialises writers, even across processes sharing the file.
import { LogStorageError } from "../errors.ts";
import type { WitnessStateStore } from "../c2sp/witness_state.ts";
import { sqlWitnessState } from "../sql/witness_state.ts";
import { openSqliteExecutor, type SqliteExecutor } from "./executor.ts";

/** File name of the witness state inside a data directory. */
export const WITNESS_DB_FILE = "witness.sqlite";

/** The witness state in SQLite, with its mark of having been pinned (log/c2sp/witness_pin.ts). */
export interface SqliteWitnessState extends WitnessStateStore {
  /** Whether the witness role pinned this state once (a pin beside its key then must exist). */
  pinned(): boolean;
  /** Records that the witness role pinned this state (durable when it returns). */
  markPinned(): void;
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
  let x: SqliteExecutor;
  try {
    x = openSqliteExecutor(path, { synchronous: "FULL" });
    // the file's own marks (this file's alone: `key`, `value`)
    x.run("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  } catch (err) {
    throw new LogStorageError("storage-open", `Cannot open witness state ${path}: ${err}`, {
      cause: err,
    });
  }
  let state: WitnessStateStore;
  try {
    state = sqlWitnessState(x, "", () => x.close());
  } catch (err) {
    x.close();
    throw new LogStorageError("storage-open", `Cannot open witness state ${path}: ${err}`, {
      cause: err,
    });
  }
  return {
    ...state,
    pinned: () => x.all("SELECT value FROM meta WHERE key = 'pinned'").length > 0,
    markPinned: () => void x.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('pinned', '1')"),
  };
}
