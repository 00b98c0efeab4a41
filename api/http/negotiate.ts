// Proactive content negotiation (RFC 9110 §12.5.1 Accept): media ranges with q-values,
// `type/*` and `*/*`, most specific range wins for a type, q=0 refuses; ties go to the server's
// order. Table-driven: callers pass the media types they can produce, in preference order.
// Pure.
import { ApiError } from "./errors.ts";

interface Range {
  type: string;
  subtype: string;
  q: number;
  specificity: number;
}

function parseAccept(header: string): Range[] {
  const out: Range[] = [];
  for (const part of header.split(",")) {
    const [mt, ...params] = part.trim().split(";").map((s) => s.trim());
    if (!mt) continue;
    const slash = mt.indexOf("/");
    if (slash <= 0) continue; // not a media range: ignored (RFC 9110 §12.5.1 allows lenience)
    const type = mt.slice(0, slash).toLowerCase();
    const subtype = mt.slice(slash + 1).toLowerCase();
    let q = 1;
    let extra = 0;
    for (const p of params) {
      const [k, v] = p.split("=").map((s) => s.trim());
      if (k.toLowerCase() === "q") {
        const n = Number(v);
        q = Number.isFinite(n) && n >= 0 && n <= 1 ? n : 0;
      } else extra++;
    }
    const specificity = type === "*" ? 0 : subtype === "*" ? 1 : 2 + extra;
    out.push({ type, subtype, q, specificity });
  }
  return out;
}

/** The q-value the Accept header gives `mediaType` (0 = not acceptable). */
export function qualityOf(ranges: Range[], mediaType: string): number {
  const [t, s] = mediaType.toLowerCase().split("/");
  let best: Range | undefined;
  for (const r of ranges) {
    const hit = (r.type === "*" || r.type === t) && (r.subtype === "*" || r.subtype === s);
    if (hit && (!best || r.specificity > best.specificity)) best = r;
  }
  return best ? best.q : 0;
}

/**
 * Picks the best of `available` (server preference order) for an Accept header, or undefined
 * when none is acceptable. An absent or empty Accept accepts the first.
 *
 * ```ts
 * negotiate("application/cose;q=0.9, application/json;q=0.1", ["application/json", "application/cose"]);
 * // "application/cose"
 * ```
 */
export function negotiate(
  accept: string | null | undefined,
  available: string[],
): string | undefined {
  if (!accept || !accept.trim()) return available[0];
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return available[0];
  let pick: string | undefined;
  let pickQ = 0;
  for (const mt of available) {
    const q = qualityOf(ranges, mt);
    if (q > pickQ) {
      pick = mt;
      pickQ = q;
    }
  }
  return pick;
}

/** Like `negotiate`, but answers 406 `not-acceptable` naming what can be produced. */
export function negotiateOr406(accept: string | null | undefined, available: string[]): string {
  const mt = negotiate(accept, available);
  if (mt === undefined) {
    throw new ApiError(
      "not-acceptable",
      `Cannot produce any of "${accept}": this resource is available as ${available.join(", ")}`,
      { extra: { available } },
    );
  }
  return mt;
}
