// The one coded-error base of the project (issue 22), and the one error every outbound request
// throws when the other server misbehaves at the transport level (issue 18): it names the URL, the
// limit and what was seen, under a stable code.

/**
 * How the HTTP layer answers a coded error (api/http/errors.ts problemResponse, the one error
 * handler), decided by the error's kind, never by its class or its name:
 * - `input`: malformed input: 400 with its code;
 * - `busy`: a queue is full: 503 `sequencer-busy` + Retry-After (its `retryAfterMs`), safe to retry;
 * - `unavailable`: an operational storage fault: 503 `storage-unavailable` + Retry-After, safe to
 *   retry (identical bytes are answered exactly once);
 * - `pinned`: state that may not go backwards was found behind what was published (issue 27):
 *   503 with its code, no Retry-After: nothing is signed until an operator acts;
 * - `config`: a setting or binding that cannot be used: 500 (the Worker answers `edge-config`
 *   naming it, edge/worker/errors.ts);
 * - `internal`: 500 `internal` (the cause is logged, never echoed).
 * The HTTP layer's own ApiError declares its status; its kind follows from it.
 */
export type ErrorKind = "input" | "busy" | "unavailable" | "pinned" | "config" | "internal";

/** A coded error's options: its cause, and when to retry (kind `busy`). */
export interface CodedErrorOptions extends ErrorOptions {
  /** How long a `busy` refusal asks the client to wait, ms. */
  retryAfterMs?: number;
}

/** An error with a stable machine-readable `code` and the `kind` the HTTP layer maps it by. */
export class CodedError extends Error {
  /** How long to wait before retrying, ms (kind `busy`). */
  readonly retryAfterMs?: number;
  constructor(
    /** Stable machine-readable code. */
    readonly code: string,
    message: string,
    /** How an HTTP answer classifies it. */
    readonly kind: ErrorKind = "internal",
    options?: CodedErrorOptions,
  ) {
    super(message, options);
    this.name = "CodedError";
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/** Stable codes of {@link NetError} (docs/CLIENTS.md lists them with their meaning). */
export type NetCode =
  /** The connect deadline (until the response headers) or the total deadline passed. */
  | "net-timeout"
  /** The body (declared or streamed) exceeded the budget for its kind of response. */
  | "net-body-too-large"
  /** More redirects than allowed (a loop, or a chain too long). */
  | "net-too-many-redirects"
  /** A redirect without a usable Location, to a non-HTTP scheme, or from https down to http. */
  | "net-bad-redirect"
  /** The body is not valid UTF-8 where text was expected. */
  | "net-bad-utf8"
  /** The body is not valid JSON where JSON was expected. */
  | "net-bad-json"
  /** No answer at all: refused, reset, DNS, TLS (fetch's TypeError). */
  | "net-connect"
  /** The caller's own signal aborted the request. */
  | "net-aborted";

/** A request that failed at the transport level; `code` is stable, the message is for people. */
export class NetError extends CodedError {
  declare readonly code: NetCode;
  constructor(
    code: NetCode,
    readonly url: string,
    /** The limit that was hit, in words ("16384 bytes", "connect deadline 10000 ms"). */
    readonly limit: string,
    /** What was seen ("16385 bytes so far", "no response headers after 10002 ms"). */
    readonly seen: string,
  ) {
    super(code, `Cannot fetch ${url}: ${code} (limit: ${limit}; seen: ${seen})`);
    this.name = "NetError";
  }
}

/** Whether `e` is a {@link NetError} (also across bundles, by shape). */
export function isNetError(e: unknown): e is NetError {
  return e instanceof NetError ||
    (e instanceof Error && e.name === "NetError" && typeof (e as NetError).code === "string" &&
      (e as NetError).code.startsWith("net-"));
}
