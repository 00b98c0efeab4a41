// RFC 9457 problem details (application/problem+json) with stable codes (ARCHITECTURE "Errors",
// API.md). The HTTP status of every error is decided here, in one place: routes and front stages
// throw ApiError (or let a coded error from verify/ or log/ escape) and the one error handler
// (`errorAnswer`: the app's onError, and the front door's for a stage's exception) maps it by its
// kind (net/error.ts ErrorKind), never by its class name. Platform-neutral.
import { CodedError, type ErrorKind } from "../../net/mod.ts";
import { REASON_CODES } from "../../verify/mod.ts";
import { WITNESS_CODES } from "../../log/c2sp/mod.ts";
import { OUTCOME_REFUSALS } from "../../log/mod.ts";

/** The service's own HTTP error codes (verification reason codes live in verify/codes.ts). */
export const HTTP_CODES = {
  "bad-request": { status: 400, title: "Bad request" },
  "bad-parameter": { status: 400, title: "Bad parameter" },
  // A query parameter the route does not take (api/http/params.ts refuseUnknownQuery): never ignored.
  "unknown-query-parameter": { status: 400, title: "Unknown query parameter" },
  "bad-envelope-encoding": { status: 400, title: "Bad envelope encoding" },
  "stream-seq-range": { status: 400, title: "Stream seq out of range" },
  "stream-link-malformed": { status: 400, title: "Malformed stream link" },
  // GET /v1/accounts (issue 30): `from` not before `to`, or a bound that is no time.
  "bad-window": { status: 400, title: "Bad window" },
  "empty-body": { status: 400, title: "Empty body" },
  // A Host header that is not a host[:port] (RFC 3986 §3.2.2; api/http/public_url.ts), any route.
  "bad-host": { status: 400, title: "Bad Host header" },
  "steward-not-allowed": { status: 403, title: "Steward not allowed" },
  // Admin routes (POST /v1/logs/rotate, docs/SHARDS.md): no token configured / a wrong token.
  "admin-disabled": { status: 403, title: "Admin routes disabled" },
  "admin-unauthorized": { status: 401, title: "Admin token missing or wrong" },
  // An append to a frozen shard (docs/SHARDS.md "Lifecycle"): `active` names the active one.
  "shard-frozen": { status: 409, title: "Shard frozen" },
  "not-found": { status: 404, title: "Not found" },
  "streams-unavailable": { status: 404, title: "This log keeps no streams" },
  // A proof asked for at a size that has no signed head (SPEC §22.2: only signed roots are proven to).
  "head-not-found": { status: 404, title: "No signed head at that size" },
  // The tiled publication (docs/PUBLICATION.md): paths that are not canonical tlog-tiles ones
  // (log/c2sp/tile_path.ts) and tiles the tree does not have.
  "unknown-view": { status: 404, title: "No such view" },
  "tile-path-malformed": { status: 404, title: "Not a tile path" },
  "tile-path-bad-level": { status: 404, title: "Not a tile path" },
  "tile-path-bad-index": { status: 404, title: "Not a tile path" },
  "tile-path-bad-width": { status: 404, title: "Not a tile path" },
  "tile-beyond-tree": { status: 404, title: "Tile not in the tree" },
  "tile-beyond-width": { status: 404, title: "Tile not in the tree" },
  "method-not-allowed": { status: 405, title: "Method not allowed" },
  "not-acceptable": { status: 406, title: "Not acceptable" },
  // A request body slower than `body_min_rate` (issue 27): the read stops, the connection closes.
  "body-too-slow": { status: 408, title: "Body too slow" },
  "body-too-large": { status: 413, title: "Body too large" },
  // A bulk append with more envelopes than `bulk_max_envelopes` (issue 29), before any is verified.
  "too-many-envelopes": { status: 413, title: "Too many envelopes" },
  "unsupported-media-type": { status: 415, title: "Unsupported media type" },
  "invalid-receipt": { status: 422, title: "Invalid receipt" },
  // issue 25 (docs/KEYS.md): the log refuses a key event or a receipt under an identity
  "key-event-seq-gap": { status: 422, title: "Key event sequence gap" },
  "key-event-parent-mismatch": { status: 422, title: "Key event parent mismatch" },
  "key-event-next-mismatch": { status: 422, title: "Key event next-key mismatch" },
  "key-event-bad-signature": { status: 422, title: "Key event signature" },
  "key-event-fork": { status: 422, title: "Identity frozen by a key-event fork" },
  "key-rotated-out": { status: 422, title: "Key rotated out" },
  "jcp-object-fields": { status: 422, title: "JCP object fields" },
  "not-a-key-event": { status: 422, title: "Not a key event" },
  "readings-route-only": { status: 422, title: "Meter readings are appended by /v1/readings" },
  // Issue 25 (docs/GRANTS.md): JCP objects have their own routes, and what they are checked by.
  "grants-route-only": { status: 422, title: "Grants are logged by /v1/grants" },
  "revocations-route-only": { status: 422, title: "Revocations are logged by /v1/revocations" },
  "key-events-route-only": { status: 422, title: "Key events are logged by /v1/keys/events" },
  "not-a-grant": { status: 422, title: "Not a grant" },
  "not-a-revocation": { status: 422, title: "Not a revocation" },
  "grant-parent-unknown": { status: 422, title: "Parent grant not logged" },
  "grant-chain-broken": { status: 422, title: "Grant chain broken" },
  "grant-delegation-forbidden": { status: 422, title: "Delegation forbidden" },
  "grant-attenuation-violation": { status: 422, title: "Grant amplifies its parent" },
  "grant-chain-too-deep": { status: 422, title: "Grant chain too deep" },
  "revocation-unknown-grant": { status: 422, title: "Revoked grant not logged" },
  "revocation-not-issuer": { status: 422, title: "Revoker is not the grant's issuer" },
  // Issue 23: a verifier-config/1 envelope is logged only by the service itself, at start.
  "verifier-config-not-appendable": {
    status: 422,
    title: "Configuration entries are not appendable",
  },
  "rate-limited": { status: 429, title: "Too many requests" },
  "internal": { status: 500, title: "Internal error" },
  "sequencer-busy": { status: 503, title: "Sequencer busy" },
  "timeout": { status: 503, title: "Request timed out" },
  "storage-unavailable": { status: 503, title: "Storage unavailable" },
  // Issue 23: the configuration in force could not be logged at start; nothing is appended.
  "verifier-config-unavailable": { status: 503, title: "Verifier configuration unavailable" },
  // Issue 27: the log's store is behind, missing or diverges from a head it already signed and
  // published (log/errors.ts PINNED_HEAD_CODES); it signs nothing until an operator acts.
  "store-behind-signed-head": { status: 503, title: "Store behind the signed head" },
  "store-forks-signed-head": { status: 503, title: "Store diverges from the signed head" },
  // Issue 27 at the edge: the witness state's Durable Object refuses its log's store (lost or
  // rolled back with the witness state: log/r2/witness_guard.ts); it cosigns nothing.
  "witness-state-behind": { status: 503, title: "Witness state behind" },
} as const;

/** A stable HTTP error code of this service. */
export type HttpCode = keyof typeof HTTP_CODES;

/** Base of the problem `type` URIs: `urn:jouleclaw:problem:<code>` (docs/DECISIONS.md). */
export const PROBLEM_TYPE_BASE = "urn:jouleclaw:problem:";

/**
 * An error answer. `code` is the stable machine-readable code; for a 422 it is the verification
 * reason code of the first failing step, and `extra.report` carries the whole report. Its status
 * is declared (by its code, or `opts.status`); its kind follows from the status.
 */
export class ApiError extends CodedError {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;
  constructor(
    code: HttpCode | string,
    detail: string,
    opts: {
      status?: number;
      headers?: Record<string, string>;
      extra?: Record<string, unknown>;
      cause?: unknown;
    } = {},
  ) {
    const status = opts.status ??
      (HTTP_CODES as Record<string, { status: number }>)[code]?.status ?? 500;
    super(code, detail, kindOfStatus(status), { cause: opts.cause });
    this.name = "ApiError";
    this.status = status;
    this.headers = opts.headers ?? {};
    this.extra = opts.extra ?? {};
  }
}

/** The kind of an answer of `status`: 4xx input, 503 unavailable, any other internal. */
function kindOfStatus(status: number): ErrorKind {
  return status < 500 ? "input" : status === 503 ? "unavailable" : "internal";
}

/** Titles of the codes other folders answer with (vocab/, SPARQL), beside HTTP_CODES. */
export const OTHER_TITLES: Record<string, string> = {
  "bad-json": "Body is not JSON",
  "not-an-object": "Body is not a JSON object",
  "invalid-jsonld": "Invalid JSON-LD",
  "context-not-available": "JSON-LD context not available",
  "unknown-document-type": "Unknown document type",
  "sparql-bad-query": "Bad SPARQL query",
  "sparql-update-refused": "SPARQL update refused",
  "sparql-unavailable": "SPARQL unavailable",
};

/**
 * The problem's title (RFC 9457 §3.1.3: the same for every occurrence of a type): the service's
 * own, "Witness refusal: …" for the witness role's refusals, "Invalid receipt" for another 422, a verification reason code's meaning (docs/REASON-CODES.md)
 * for malformed input, else the code in words — never a bare "Error".
 */
export function titleOf(code: string, status: number): string {
  const known = (HTTP_CODES as Record<string, { title: string }>)[code];
  if (known) return known.title;
  if (OTHER_TITLES[code]) return OTHER_TITLES[code];
  // tlog-witness refusals (POST /add-checkpoint): a witness's answer about a checkpoint, never a
  // receipt's (its 422s are a bad proof or a root mismatch, not an invalid receipt).
  if (code in WITNESS_CODES) return `Witness refusal: ${code.slice(8).replace(/-/g, " ")}`;
  if (status === 422) return "Invalid receipt";
  const meaning = (REASON_CODES as Record<string, string>)[code];
  if (meaning) return `Malformed input: ${meaning}`;
  const words = code.replace(/-/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Retry-After (RFC 9110 §10.2.3) in whole seconds, at least 1. */
export function retryAfterSeconds(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}

/** Builds an application/problem+json response. */
export function problem(
  status: number,
  code: string,
  detail: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  const body = {
    type: PROBLEM_TYPE_BASE + code,
    title: titleOf(code, status),
    status,
    detail,
    code,
    ...extra,
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/problem+json", ...headers },
  });
}

/** A problem's parts, before it is a response (a bulk append's refusals are these, per item). */
export interface Problem {
  status: number;
  code: string;
  detail: string;
  extra: Record<string, unknown>;
  headers: Record<string, string>;
}

/**
 * Maps any thrown value to its problem: an ApiError as it declares; any other coded error by its
 * kind (net/error.ts ErrorKind); anything else is an operational fault → 500 with a generic detail
 * (the cause is logged by the caller, never echoed).
 */
export function problemOf(err: unknown): Problem {
  const p = (
    status: number,
    code: string,
    detail: string,
    headers: Record<string, string> = {},
  ): Problem => ({ status, code, detail, extra: {}, headers });
  if (err instanceof ApiError) {
    return {
      status: err.status,
      code: err.code,
      detail: err.message,
      extra: err.extra,
      headers: err.headers,
    };
  }
  const internal = () => p(500, "internal", "Cannot answer: internal error");
  if (!(err instanceof CodedError)) return internal();
  switch (err.kind) {
    // A typed input error (verify's, the log's) that escaped a route still gets its code, as a 400.
    case "input": {
      if (err.code.length === 0) return internal();
      // JCP §5.3: an outcome the log refused at append does not trace: 422, as a failed verification
      if (OUTCOME_REFUSALS.has(err.code)) return p(422, err.code, err.message);
      // a listed code keeps its status (issue 25: the log's key refusals are 422)
      const listed = (HTTP_CODES as Record<string, { status: number }>)[err.code]?.status;
      return p(listed !== undefined && listed < 500 ? listed : 400, err.code, err.message);
    }
    case "busy":
      return p(503, "sequencer-busy", "Cannot append now: the sequencer is full", {
        "retry-after": retryAfterSeconds(err.retryAfterMs ?? 1000),
      });
    case "pinned":
      // Not transient (issue 27): no Retry-After; the code says which pin the store failed.
      return p(
        503,
        err.code,
        "Cannot append: the log's store is behind or diverges from a head the log already " +
          "signed; it signs nothing until an operator acts",
      );
    case "unavailable":
      // An operational storage fault: transient as far as the client can tell; retrying an append
      // is safe (identical bytes are answered exactly once).
      return p(503, "storage-unavailable", "Cannot answer: the store failed", {
        "retry-after": "1",
      });
    case "config":
    case "internal":
      return internal();
  }
}

/** Maps any thrown value to its problem response (see {@link problemOf}). */
export function problemResponse(err: unknown): Response {
  const p = problemOf(err);
  return problem(p.status, p.code, p.detail, p.extra, p.headers);
}

/**
 * The one error handler (issue 22): the answer to `err`, thrown while answering `method` `path`
 * by a route, a middleware or a front stage. An operational fault (a 500, or a 5xx ApiError with
 * a cause) is logged with its cause and answered without it.
 */
export function errorAnswer(err: unknown, method: string, path: string): Response {
  const res = problemResponse(err);
  if (
    res.status === 500 || (err instanceof ApiError && err.cause !== undefined && res.status >= 500)
  ) {
    console.error(`Cannot answer ${method} ${path}:`, err);
  }
  return res;
}
