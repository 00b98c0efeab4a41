// Default deadlines and per-kind body budgets of outbound requests (docs/CLIENTS.md). A budget is
// the most bytes a well-behaved server can send for that kind of answer, with room to spare; past
// it the answer is not one, and reading stops.

/** Kinds of response, each with its own body budget. */
export type BodyKind =
  | "checkpoint"
  | "tile"
  | "bundle"
  | "proof"
  | "json"
  | "error"
  | "entry"
  | "page";

/**
 * Body budgets in bytes, per kind of response:
 * - `checkpoint`: a signed tree head or checkpoint note (a few hundred bytes; a note with many
 *   cosignatures more) → 65,536, the signed-note parser's own limit (log/c2sp NOTE_LIMITS), so
 *   the transport never cuts a note the parser would accept;
 * - `tile`: a full tlog tile, 256 hashes × 32 bytes (c2sp tlog-tiles) → 8,192;
 * - `bundle`: an entry bundle, at most 256 entries of 2 + 65,535 bytes → 256 × 65,537;
 * - `proof`: an inclusion or consistency proof as JSON (≤ 64 hashes of 64 hex digits) → 16 KiB;
 * - `json`: any other small JSON answer (log key, append answer, readings results) → 64 KiB;
 * - `error`: the body of an error status (problem+json) → 8 KiB;
 * - `entry`: one raw entry (at most 65,535 bytes, JouleClaw SPEC / API.md) → 65,536;
 * - `page`: a page of entries as JSON (≤ 100 entries, hex) → 16 MiB.
 */
export const BODY_LIMITS: Readonly<Record<BodyKind, number>> = Object.freeze({
  checkpoint: 65_536,
  tile: 8192,
  bundle: 256 * 65_537,
  proof: 16 * 1024,
  json: 64 * 1024,
  error: 8 * 1024,
  entry: 65_536,
  page: 16 * 1024 * 1024,
});

/** Until the response headers arrive (DNS, TCP, TLS and the server's first answer). */
export const DEFAULT_CONNECT_MS = 10_000;
/** The whole request: every redirect, the headers and the last byte of the body. */
export const DEFAULT_TOTAL_MS = 30_000;
/** Redirects followed before giving up. */
export const DEFAULT_MAX_REDIRECTS = 5;
