// The log's stream findings as RDF (issue 24, docs/STREAMS.md, docs/RDF.md "Stream findings"): one
// node of class jc:StreamFinding per finding (vocab/schema/streams.ts), its entries named by their
// URLs, so a finding joins the entry graphs of the export and the SPARQL store. A finding changes
// (a gap clears), so these views are never cached as immutable. Pure.
import { CONTEXT_URL } from "./schema/mod.ts";
import { type Quad, toQuads } from "./jsonld.ts";
import { fastQuads } from "./fast.ts";

/** A finding as the log answers it (log/streams/facts.ts StreamFinding, structurally). */
export interface FindingInput {
  id?: number;
  code: string;
  steward: string;
  stream?: string;
  index: number;
  seq?: number;
  other?: number;
  cleared_by?: number;
}

/** An entry's URL under `origin` (docs/RDF.md "Entry IRIs"). */
function entryUrl(origin: string, index: number): string {
  return `${origin}/v1/log/entries/${index}`;
}

/**
 * A finding's IRI: a fragment of the findings resource of the entry it is about, by the finding's
 * number in the store (stable: a finding is never renumbered, only cleared).
 */
export function findingIri(f: FindingInput, origin: string): string {
  return `${entryUrl(origin, f.index)}/findings#${f.id ?? `${f.code}-${f.other ?? ""}`}`;
}

/** A finding as a JSON-LD node (without `@context`): keys of the StreamFinding class. */
export function findingNode(f: FindingInput, origin: string): Record<string, unknown> {
  const node: Record<string, unknown> = {
    "@id": findingIri(f, origin),
    "@type": "StreamFinding",
    code: f.code,
    steward: f.steward,
    about: entryUrl(origin, f.index),
  };
  if (f.stream !== undefined) node.stream = f.stream;
  if (f.seq !== undefined) node.seq = f.seq;
  if (f.other !== undefined) node.other = entryUrl(origin, f.other);
  if (f.cleared_by !== undefined) node.cleared_by = entryUrl(origin, f.cleared_by);
  return node;
}

/** Findings as one JSON-LD document: `{"@context", "@graph": [...]}`. */
export function findingsJsonLd(fs: FindingInput[], origin: string): Record<string, unknown> {
  return { "@context": CONTEXT_URL, "@graph": fs.map((f) => findingNode(f, origin)) };
}

/** A finding's quads, in the default graph (the table's fast path; the JSON-LD processor else). */
export async function findingQuads(f: FindingInput, origin: string): Promise<Quad[]> {
  const doc = { "@context": CONTEXT_URL, ...findingNode(f, origin) };
  return fastQuads(doc) ?? await toQuads(doc);
}

/** The quads of several findings, in the default graph. */
export async function findingsQuads(fs: FindingInput[], origin: string): Promise<Quad[]> {
  const out: Quad[] = [];
  for (const f of fs) out.push(...await findingQuads(f, origin));
  return out;
}
