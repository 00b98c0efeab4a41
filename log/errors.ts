// The log's errors, kept apart as STYLE.md asks: malformed input (`LogInputError`, a stable code),
// pushback (`PushbackError`, the API answers 503 + Retry-After), integrity (`LogIntegrityError`:
// the stored log does not prove itself; it refuses to serve) and operational storage faults
// (`LogStorageError`, with `cause`). Cryptographic mismatches are `false`, never errors. Each is a
// CodedError (net/error.ts) whose `kind` says how an HTTP answer maps it.
import { CodedError } from "../net/mod.ts";

/** Bad input to the log (an out-of-range index, an oversize entry): a stable `code`. */
export class LogInputError extends CodedError {
  /** `code`: stable machine-readable reason (see docs/STORAGE.md, "Codes"). */
  constructor(code: string, message: string) {
    super(code, message, "input");
    this.name = "LogInputError";
  }
}

/** The sequencer's pending queue is full: retry after `retryAfterMs` (kind `busy`). */
export class PushbackError extends CodedError {
  declare readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number) {
    super("log-pushback", message, "busy", { retryAfterMs });
    this.name = "PushbackError";
  }
}

/** The stored log does not prove itself (head, nodes and entries disagree). */
export class LogIntegrityError extends CodedError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("log-integrity", message, "internal", options);
    this.name = "LogIntegrityError";
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

/**
 * A storage operation failed (an operational fault; the answer is 5xx): kind `unavailable`, or
 * `pinned` for a pinned-head refusal (one of PINNED_HEAD_CODES), which no retry mends.
 */
export class LogStorageError extends CodedError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, PINNED_HEAD_CODES.includes(code) ? "pinned" : "unavailable", options);
    this.name = "LogStorageError";
  }
}

/** Whether `err` is a pinned-head refusal (kind `pinned`: a `LogStorageError` of PINNED_HEAD_CODES). */
export function isPinnedHeadRefusal(err: unknown): err is CodedError {
  return err instanceof CodedError && err.kind === "pinned";
}

/**
 * The log's durable state refuses to open or to sign (issue 27: state that may not go backwards is
 * pinned): a store behind or off its signed-head pin, a key without its log, a log without its
 * key. Nothing is written; an operator acts (docs/OPERATIONS.md "When the log refuses to open").
 * The message ends with the code in brackets, so a start that fails names it on stderr.
 */
export class LogStateError extends CodedError {
  /** `code`: stable code (docs/STORAGE.md "Codes"). */
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, `${message} [${code}]`, "internal", options);
    this.name = "LogStateError";
  }
}
