// The log's errors, kept apart as STYLE.md asks: malformed input (`LogInputError`, a stable code),
// pushback (`PushbackError`, the API answers 503 + Retry-After), integrity (`LogIntegrityError`:
// the stored log does not prove itself; it refuses to serve) and operational storage faults
// (`LogStorageError`, with `cause`). Cryptographic mismatches are `false`, never errors.

/** Bad input to the log (an out-of-range index, an oversize entry): a stable `code`. */
export class LogInputError extends Error {
  /** Stable machine-readable reason (see docs/STORAGE.md, "Codes"). */
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "LogInputError";
    this.code = code;
  }
}

/** The sequencer's pending queue is full: retry after `retryAfterMs`. */
export class PushbackError extends Error {
  readonly code = "log-pushback";
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number) {
    super(message);
    this.name = "PushbackError";
    this.retryAfterMs = retryAfterMs;
  }
}

/** The stored log does not prove itself (head, nodes and entries disagree). */
export class LogIntegrityError extends Error {
  readonly code = "log-integrity";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "LogIntegrityError";
  }
}

/** A storage operation failed (an operational fault; the answer is 5xx). */
export class LogStorageError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "LogStorageError";
    this.code = code;
  }
}

// Issue 27 ("state that must never go backwards is pinned"): a store found behind, missing or
// diverging from a head the log already signed and published refuses to sequence and to sign
// until an operator acts. The codes are defined here, once; the API answers appends 503 with the
// code and `/healthz` reports it as the failing check (docs/EDGE.md "Pinned state").

/** The store is empty, missing or behind the latest head the log already signed and published. */
export const STORE_BEHIND_SIGNED_HEAD = "store-behind-signed-head";
/** The store holds another root at a size the log already signed and published. */
export const STORE_FORKS_SIGNED_HEAD = "store-forks-signed-head";
/** The pinned-head refusal codes (`LogStorageError.code`). */
export const PINNED_HEAD_CODES: readonly string[] = [
  STORE_BEHIND_SIGNED_HEAD,
  STORE_FORKS_SIGNED_HEAD,
];

/** Whether `err` is a pinned-head refusal (a `LogStorageError` with one of PINNED_HEAD_CODES). */
export function isPinnedHeadRefusal(err: unknown): err is LogStorageError {
  return err instanceof Error && err.name === "LogStorageError" &&
    PINNED_HEAD_CODES.includes((err as LogStorageError).code);
}

/**
 * The log's durable state refuses to open or to sign (issue 27: state that may not go backwards is
 * pinned): a store behind or off its signed-head pin, a key without its log, a log without its
 * key. Nothing is written; an operator acts (docs/OPERATIONS.md "When the log refuses to open").
 * The message ends with the code in brackets, so a start that fails names it on stderr.
 */
export class LogStateError extends Error {
  /** Stable code (docs/STORAGE.md "Codes"). */
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(`${message} [${code}]`, options);
    this.name = "LogStateError";
    this.code = code;
  }
}
