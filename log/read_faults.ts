// One rule for every read of a signed log (issue 27; docs/OPERATIONS.md "Health", docs/DECISIONS.md
// "A read inside the signed size"): what a signed head covers exists, so a read inside the signed
// size that fails — the store throws (SQLITE_CORRUPT "database disk image is malformed", an I/O
// error, R2 down) or answers nothing (a row a damaged page no longer holds, an object missing from
// R2) — is a storage fault, `LogStorageError` `storage-read` (the API answers 503
// `storage-unavailable` with Retry-After), never absence (a 404 says "the log is shorter", which
// it is not). Only what lies beyond the signed size is absent. Faults are remembered, so health
// reports `storage-read` while they last: each is re-read at most once a second by `check()`, and
// cleared once the read answers again. Pure: the log's one reader (log/reader.ts) keeps it, for
// the SQLite log and the Worker's R2 log (edge/worker/r2_log.ts) alike.
import { LogInputError, LogStorageError } from "./errors.ts";

/** Failing reads remembered for health (the oldest forgotten first; each is re-tried). */
const REMEMBERED = 16;
/** Least time between two re-reads of one failing read, ms. */
const RETRY_MS = 1000;

/** What is read, in words (a function: built only when the read fails). */
export type What = string | (() => string);

const nameOf = (w: What): string => typeof w === "string" ? w : w();

interface Fault {
  error: LogStorageError;
  /** Reads again: true once it answers. */
  retry: () => Promise<boolean>;
  at: number;
}

/** The storage-read fault for `what` (a read inside the signed size), with its cause. */
export function readFault(what: string, cause?: unknown): LogStorageError {
  const why = cause === undefined
    ? "the store does not have it, though the signed head covers it"
    : `the store failed (${causeText(cause)})`;
  return new LogStorageError("storage-read", `Cannot read ${what}: ${why}`, { cause });
}

function causeText(e: unknown): string {
  let x = e;
  while (x instanceof Error && x.cause instanceof Error) x = x.cause;
  return x instanceof Error ? x.message : String(x);
}

/** The storage-read faults of one log: `inside` reads, `check` reports. */
export class ReadFaults {
  readonly #faults = new Map<string, Fault>();
  readonly #now: () => number;
  /** Reads inside the signed size that failed so far (metrics: `jc_storage_read_faults_total`). */
  count = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * Runs `read` of `what`, which the signed head covers: its answer, or a `storage-read` fault
   * (remembered) when it throws or answers undefined. Malformed input (`LogInputError`) passes
   * through; a fault already classified (`LogStorageError`) is remembered as it is.
   */
  async inside<T>(what: What, read: () => Promise<T | undefined>): Promise<T> {
    const v = await this.reading(what, read, true);
    if (v === undefined) throw this.#record(nameOf(what), readFault(nameOf(what)), read, true);
    return v;
  }

  /**
   * Runs `read` of `what` where no answer is a true answer (a leaf hash no entry has, a size no
   * head was signed at): only a failure of the store is a `storage-read` fault.
   */
  async reading<T>(what: What, read: () => Promise<T>, mustAnswer = false): Promise<T> {
    try {
      return await read();
    } catch (e) {
      if (e instanceof LogInputError) throw e;
      const name = nameOf(what);
      const fault = e instanceof LogStorageError ? e : readFault(name, e);
      throw this.#record(name, fault, read, mustAnswer);
    }
  }

  /** Records `error` for `what` (counted, re-read by `check`); returns it to be thrown. */
  #record(
    what: string,
    error: LogStorageError,
    read: () => Promise<unknown>,
    mustAnswer: boolean,
  ): LogStorageError {
    this.count++;
    const retry = async () => (await read()) !== undefined || !mustAnswer;
    this.#faults.delete(what);
    this.#faults.set(what, { error, retry, at: this.#now() });
    if (this.#faults.size > REMEMBERED) this.#faults.delete(this.#faults.keys().next().value!);
    return error;
  }

  /**
   * Health: resolves when no remembered read fails any more; otherwise throws the newest fault
   * (`storage-read`). Each failing read is re-read at most once a second.
   */
  async check(): Promise<void> {
    let failing: LogStorageError | undefined;
    for (const [what, f] of [...this.#faults]) {
      if (this.#now() - f.at >= RETRY_MS) {
        f.at = this.#now();
        let healed = false;
        try {
          healed = await f.retry();
        } catch { /* still failing */ }
        if (healed && this.#faults.get(what) === f) {
          this.#faults.delete(what);
          continue;
        }
      }
      failing = f.error;
    }
    if (failing) {
      throw new LogStorageError("storage-read", failing.message, { cause: failing });
    }
  }
}
