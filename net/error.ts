// The one coded-error base of the project (issue 22), and the one error every outbound request
// throws when the other server misbehaves at the transport level (issue 18): it names the URL, the
// limit and what was seen, under a stable code.

/**
 * How the HTTP layer answers a coded error that escaped a route (api/http/errors.ts problemResponse),
 * decided by the error's class, never by its name: `input` → 400 with its code (malformed input);
 * `unavailable` → 503 `storage-unavailable` + Retry-After (an operational storage fault, safe to
 * retry); `internal` → 500 `internal` (the cause is logged, never echoed). Routes that mean
 * another status throw ApiError.
 */
export type ErrorKind = "input" | "unavailable" | "internal";

/** An error with a stable machine-readable `code` and the `kind` the HTTP layer maps it by. */
export class CodedError extends Error {
  constructor(
    /** Stable machine-readable code. */
    readonly code: string,
    message: string,
    /** How an HTTP answer classifies it. */
    readonly kind: ErrorKind = "internal",
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "CodedError";
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
