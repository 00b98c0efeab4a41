// One log entry as the named graph the sync writes (docs/RDF.md "Named-graph layout"): the same
// RDF as the export (`GET /v1/log/export`, vocab/rdf.ts), graph IRI = the entry's URL, blank
// nodes labelled per entry. Integers above 2^63-1 are sent typed xsd:decimal, same digits:
// Virtuoso stores xsd:integer and its subtypes as SQL 64-bit integers and refuses larger ones
// (SR553 "Conversion overflow"), while its xsd:decimal is exact to 40 digits — and every
// xsd:integer is an xsd:decimal (XSD 1.1 Part 2 §3.4.13), so sums and comparisons keep their
// values.
import { entryBnodePrefix, entryInputFromEnvelope, entryQuads, toNQuads } from "../vocab/mod.ts";

const INT64_MAX = 2n ** 63n - 1n;
const XSD = "http://www.w3.org/2001/XMLSchema#";
const WIDE =
  /"(\d{19,})"\^\^<http:\/\/www\.w3\.org\/2001\/XMLSchema#(integer|nonNegativeInteger|positiveInteger|unsignedLong|long)>/g;

/** `lines` with every integer literal above 2^63-1 retyped xsd:decimal. */
export function narrowIntegers(lines: string): string {
  return lines.replace(
    WIDE,
    (m, digits: string) => BigInt(digits) > INT64_MAX ? `"${digits}"^^<${XSD}decimal>` : m,
  );
}

/** An entry's graph: its IRI and its triples (N-Triples, without the graph term). */
export interface EntryGraph {
  iri: string;
  ntriples: string;
}

/**
 * The graph of entry `index` (its stored bytes `entry`), named `<graphBase>/v1/log/entries/<index>`,
 * with its integration time when known (issue 30).
 */
export async function entryGraph(
  index: number,
  entry: Uint8Array,
  graphBase: string,
  integratedAt?: number,
): Promise<EntryGraph> {
  const iri = `${graphBase.replace(/\/+$/, "")}/v1/log/entries/${index}`;
  const input = entryInputFromEnvelope(index, entry, iri, undefined, undefined, integratedAt);
  const quads = await entryQuads(input);
  const bnodePrefix = entryBnodePrefix(iri, index);
  return { iri, ntriples: narrowIntegers(toNQuads(quads, { bnodePrefix })) };
}
