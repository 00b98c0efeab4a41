// Public surface of net/: the one HTTP helper every outbound request of the project goes through
// (issue 18; docs/CLIENTS.md). A server on the other end — the log being monitored, a mirror's
// source, a witness, an RDF store, the readings endpoint — may be hostile or broken; this helper
// makes sure it can cost the caller at most a bounded time and a bounded amount of memory.
//
// How to use it:
//
//   import { isNetError, request } from "../net/mod.ts";
//   const res = await request(`${base}/checkpoint`, { kind: "checkpoint" });
//   if (!res.ok) throw new Error(`HTTP ${res.status}`); // error bodies are read too (≤ 8 KiB)
//   const note = res.text();                            // strict UTF-8, else NetError net-bad-utf8
//   const head = (await request(url, { kind: "proof" })).json(); // else net-bad-json
//
// - Deadlines: `connectMs` (until the response headers, per hop; default 10 s) and `totalMs` (the
//   whole request including every redirect and the body; default 30 s). A stalled server is cut
//   off when either passes: NetError `net-timeout`.
// - Body budget: pick the `kind` of answer you expect (BODY_LIMITS: checkpoint 64 KiB, tile 8,192,
//   bundle 256 × 65,537, proof 16 KiB, json 64 KiB, error 8 KiB, entry 65,536, page 16 MiB) or
//   pass `maxBytes`. A declared Content-Length over budget fails before reading; a streamed body
//   is cut the moment it passes the budget: NetError `net-body-too-large`. Nothing past the budget
//   is ever buffered.
// - Redirects: followed by hand, at most `maxRedirects` (default 5): `net-too-many-redirects`;
//   non-http(s) targets and https → http downgrades: `net-bad-redirect`. In a browser, where fetch
//   hides redirects, the platform follows them (at most 20, Fetch §4.4) once one is seen.
// - No answer at all (refused, reset, DNS): `net-connect`; the caller's signal: `net-aborted`.
// - HTTP error statuses are not exceptions: check `res.ok` / `res.status`.
// Every failure is one NetError with a stable `code`, the `url`, the `limit` and what was `seen`.
// Web-standard APIs only (fetch, AbortController, ReadableStream, TextDecoder): Deno, Node >= 20,
// workerd and browsers (issue 13's verification page uses it too).
export {
  BudgetExceeded,
  declaredLength,
  RateTooLow,
  readLimited,
  type ReadOptions,
} from "./body.ts";
export { CodedError, type ErrorKind, isNetError, type NetCode, NetError } from "./error.ts";
export { unrefTimer } from "./timers.ts";
export {
  BODY_LIMITS,
  type BodyKind,
  DEFAULT_CONNECT_MS,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TOTAL_MS,
} from "./limits.ts";
export { type NetResponse, request, type RequestOptions } from "./request.ts";
