// Security headers on every answer (issue 27), both deployments: `X-Content-Type-Options: nosniff`
// on all of them (JSON, problems, tiles, text, HTML, static assets: a browser never sniffs an
// answer into another type), and on every HTML answer framing refused (`X-Frame-Options: DENY`
// for old browsers, CSP `frame-ancestors 'none'`) and a Content-Security-Policy — the route's own
// (the page, the vocabulary index, the offline verifier: each allows exactly what it loads) or,
// for an HTML answer without one, one that allows nothing. Pure: the app (api/http/app.ts) applies it
// to the router's answers, the Worker (edge/worker/worker.ts) to the answers made outside the app.

/** MIME sniffing refused (Fetch standard §3.5 "X-Content-Type-Options"). */
export const NOSNIFF: [string, string] = ["x-content-type-options", "nosniff"];
/** Framing refused (RFC 7034), for browsers that predate CSP's frame-ancestors. */
export const FRAME_DENY: [string, string] = ["x-frame-options", "DENY"];
/** The CSP of an HTML answer that declares none: nothing loads, nothing frames it. */
export const HTML_FALLBACK_CSP =
  "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Adds the security headers to `h` (an answer's headers), as above. */
export function secureHeaders(h: Headers): void {
  h.set(NOSNIFF[0], NOSNIFF[1]);
  const ct = h.get("content-type");
  if (ct !== null && /^\s*text\/html\b/i.test(ct)) {
    h.set(FRAME_DENY[0], FRAME_DENY[1]);
    if (!h.has("content-security-policy")) h.set("content-security-policy", HTML_FALLBACK_CSP);
  }
}

/** `res` with the security headers (a copy when its headers are immutable). */
export function secured(res: Response): Response {
  try {
    secureHeaders(res.headers);
    return res;
  } catch {
    const copy = new Response(res.body, res);
    secureHeaders(copy.headers);
    return copy;
  }
}
