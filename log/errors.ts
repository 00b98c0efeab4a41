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
