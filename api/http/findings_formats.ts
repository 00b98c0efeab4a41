// Representations of the stream findings (issue 24; docs/STREAMS.md, docs/RDF.md "Stream
// findings"): `GET /v1/streams` and `GET /v1/log/entries/{index}/findings` answer JSON, or by
// content negotiation (RFC 9110 §12.5.1, api/http/negotiate.ts; 406 when none is acceptable) the
// findings as RDF: JSON-LD, N-Quads or Turtle, one jc:StreamFinding node each (vocab/findings.ts),
// their entries named by URL under the public base. Findings change as entries arrive (a gap
// clears), so every representation is `no-cache`, never immutable. The same negotiation answers an
// identity (issue 25, `GET /v1/keys/{identity}`: a jc:Identity node). Platform-neutral.
import type { Context } from "hono";
import { findingsJsonLd, findingsQuads, toNQuads, toTurtle } from "../../vocab/mod.ts";
import type { FindingInput, Quad } from "../../vocab/mod.ts";
import { negotiateOr406 } from "./negotiate.ts";
import { publicBase } from "./public_url.ts";
import type { AppEnv } from "./route.ts";

/** The media types of a findings answer, in the server's order (JSON first: the default). */
export const FINDINGS_TYPES = [
  "application/json",
  "application/ld+json",
  "application/n-quads",
  "text/turtle",
] as const;

/** The 406 row the two routes add to their possible statuses. */
export const NOT_ACCEPTABLE = { status: 406, description: "No acceptable representation." };

/**
 * Answers `json` (the route's JSON object) or its `findings` as RDF, as the Accept header asks.
 * Always `cache-control: no-cache` and `vary: Accept`.
 */
export function findingsAnswer(
  c: Context<AppEnv>,
  json: Record<string, unknown>,
  findings: FindingInput[],
): Promise<Response> {
  const origin = publicBase(c.get("deps"));
  return rdfAnswer(
    c,
    json,
    () => findingsJsonLd(findings, origin),
    () => findingsQuads(findings, origin),
  );
}

/**
 * Answers `json`, or the same resource as RDF (JSON-LD `doc()`, or `quads()` as N-Quads or
 * Turtle), as the Accept header asks (406 when none is acceptable): the findings, an identity
 * (issue 25, GET /v1/keys/{identity}). Resources that move with the log: `no-cache`,
 * `vary: Accept`.
 */
export async function rdfAnswer(
  c: Context<AppEnv>,
  json: unknown,
  doc: () => Record<string, unknown>,
  quads: () => Promise<Quad[]>,
): Promise<Response> {
  const mt = negotiateOr406(c.req.header("accept"), [...FINDINGS_TYPES]);
  let res: Response;
  if (mt === "application/json") res = c.json(json as Record<string, unknown>);
  else if (mt === "application/ld+json") {
    res = new Response(JSON.stringify(doc()), {
      headers: { "content-type": "application/ld+json" },
    });
  } else {
    const qs = await quads();
    res = mt === "application/n-quads"
      ? new Response(toNQuads(qs), { headers: { "content-type": "application/n-quads" } })
      : new Response(await toTurtle(qs), {
        headers: { "content-type": "text/turtle; charset=utf-8" },
      });
  }
  res.headers.set("cache-control", "no-cache");
  res.headers.append("vary", "Accept");
  return res;
}
