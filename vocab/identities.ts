// Identities as RDF (issue 25; docs/KEYS.md, docs/RDF.md "Identities"): an identity as the log
// resolves it from its key events (JCP §2.1), one node of class jc:Identity (vocab/schema/keys.ts)
// whose IRI is its resource, `<origin>/v1/keys/<identity>`, its key events named by their entry
// URLs, so it joins the entry graphs of the export and the SPARQL store. An identity moves with
// every rotation, so these views are never cached as immutable. Pure.
import { CONTEXT_URL } from "./schema/mod.ts";
import { type Quad, toQuads } from "./jsonld.ts";
import { fastQuads } from "./fast.ts";

/** An identity as GET /v1/keys/{identity} answers it (the JSON members the RDF reads). */
export interface IdentityInput {
  identity: string;
  seq: number;
  current: string;
  /** lowercase hex */
  next_hash: string;
  /** the chain's entries, in seq order */
  events: number[];
  /** the first fork's entry: the identity is frozen */
  forked_at?: number;
}

/** The identity's IRI: its resource under `origin` (the service's public base). */
export function identityIri(identity: string, origin: string): string {
  return `${origin}/v1/keys/${identity}`;
}

/** An identity as a JSON-LD node (without `@context`): keys of the Identity class. */
export function identityNode(i: IdentityInput, origin: string): Record<string, unknown> {
  const entry = (n: number) => `${origin}/v1/log/entries/${n}`;
  const node: Record<string, unknown> = {
    "@id": identityIri(i.identity, origin),
    "@type": "Identity",
    identity: i.identity,
    seq: i.seq,
    current: i.current,
    next_hash: i.next_hash,
    events: i.events.map(entry),
  };
  if (i.forked_at !== undefined) node.forked_at = entry(i.forked_at);
  return node;
}

/** An identity as a JSON-LD document. */
export function identityJsonLd(i: IdentityInput, origin: string): Record<string, unknown> {
  return { "@context": CONTEXT_URL, ...identityNode(i, origin) };
}

/** An identity's quads, in the default graph (the table's fast path; the JSON-LD processor else). */
export async function identityQuads(i: IdentityInput, origin: string): Promise<Quad[]> {
  const doc = identityJsonLd(i, origin);
  return fastQuads(doc) ?? await toQuads(doc);
}
