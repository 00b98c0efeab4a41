// The vocabulary table's own terms (vocab/schema/mod.ts): its namespace and published URLs, the
// shapes of a class, a field and an enumeration, and the patterns, ranges and field builders the
// tables in this folder are written with.

/** The vocabulary namespace (SPEC §13). */
export const JC = "https://jouleclaw.transaction.science/vocab/v1#";
/** Where the published context lives (SPEC §13); documents reference it by this URL. */
export const CONTEXT_URL = "https://jouleclaw.transaction.science/vocab/v1.jsonld";
/** The ontology's IRI (SPEC §13). */
export const ONTOLOGY_URL = "https://jouleclaw.transaction.science/vocab/v1";
/** The shapes graph's IRI (SPEC §15). */
export const SHAPES_URL = "https://jouleclaw.transaction.science/vocab/v1.shapes.ttl";
/**
 * Base of the IRIs an enumeration value that is not one of its tags expands to: it still becomes
 * an IRI (so `sh:in` can refuse it) but never one of the vocabulary's individuals. One namespace
 * per enumerated property: `…/v1/unknown/<property>#<value>`.
 */
export const UNKNOWN_BASE = "https://jouleclaw.transaction.science/vocab/v1/unknown/";

/** u64 upper bound (JCR-1 §2: energy is an unsigned 64-bit integer). */
export const U64_MAX = 18446744073709551615n;

/** The range of a field: what its JSON value is and what it becomes in RDF. */
export type Range =
  | { t: "string"; pattern?: string; patternNote?: string }
  | { t: "uint"; max?: bigint } // xsd:nonNegativeInteger, bounded (u64 unless said)
  | { t: "integer" } // xsd:integer (an exit status may be negative)
  | { t: "dateTime" } // RFC 3339 UTC → xsd:dateTime
  | { t: "boolean" }
  | { t: "json" } // kept verbatim as an rdf:JSON literal
  // an enumeration of `ENUMS`: tag → IRI. `open`: other values are allowed too (no sh:in); they
  // become IRIs under UNKNOWN_BASE like any value that is not a tag.
  | { t: "enum"; e: string; open?: boolean }
  | { t: "node"; c: string } // a nested object of class c
  // an IRI written as a JSON string (`@type: @id`): another resource, e.g. a log entry's URL
  | { t: "iri" };

/** One JSON key of a class. */
export interface Field {
  key: string;
  /** local name of the `jc:` property */
  prop: string;
  range: Range;
  required?: boolean;
  /** a JSON array: kept as an rdf:List (order and duplicates survive, an empty array is rdf:nil) */
  list?: boolean;
  /** the value the key must have (the schema discriminator) */
  fixed?: string;
  comment: string;
}

/** One class of the vocabulary. */
export interface ClassDef {
  name: string;
  comment: string;
  sub?: string[]; // rdfs:subClassOf (prefixed names)
  fields: Field[];
  /** the JSON key and value that identify a top-level document of this class */
  discriminator?: { key: string; value: string };
  /** subclasses chosen by the JSON `kind` key (aliased to `@type`): tag → class name */
  kinds?: Record<string, string>;
  /** spec clause, for the ontology and the index */
  clause: string;
  /** class has no shape of its own (ontology only) */
  noShape?: boolean;
}

/** One enumeration: wire tag → individual. */
export interface EnumDef {
  name: string;
  comment: string;
  values: { tag: string; iri: string; comment: string }[];
}

export const HEX64 = "^[0-9a-f]{64}$";
export const DID_KEY = "^did:key:z[1-9A-HJ-NP-Za-km-z]+$";
export const DID = "^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$";
// SPEC §11: relative '/'-joined segments; no absolute path, empty segment, "." or "..", or NUL.
// Plain groups and classes only, so the pattern means the same in XPath and JavaScript.
export const SEGMENT = "([^/.\u0000][^/\u0000]*|\\.[^/.\u0000][^/\u0000]*|\\.\\.[^/\u0000]+)";
/** sh:pattern of a workspace entry path (SPEC §11 path normalisation). */
export const WORKSPACE_PATH = `^${SEGMENT}(/${SEGMENT})*$`;
/** docs/METER-READING.md: the metering ladder's rungs. */
export const RUNG = "^(rapl|nvml|ina3221|model|estimator)$";
export const RFC3339_UTC_NOTE = "RFC 3339 in UTC (JCR-1 §2)";
export const FRAME_KIND_NOTE =
  "The frame's kind: JCP §6's four, or another (a cancellation, JCP §8.1).";

export const s = (
  pattern?: string,
): Range => (pattern ? { t: "string", pattern } : { t: "string" });
export const u64: Range = { t: "uint" };
export const uMax = (max: number): Range => ({ t: "uint", max: BigInt(max) });
export const dt: Range = { t: "dateTime" };
export const en = (e: string): Range => ({ t: "enum", e });
export const node = (c: string): Range => ({ t: "node", c });
export const iri: Range = { t: "iri" };
export const req = (
  key: string,
  prop: string,
  range: Range,
  comment: string,
  extra: Partial<Field> = {},
): Field => ({
  key,
  prop,
  range,
  required: true,
  comment,
  ...extra,
});
export const opt = (
  key: string,
  prop: string,
  range: Range,
  comment: string,
  extra: Partial<Field> = {},
): Field => ({
  key,
  prop,
  range,
  comment,
  ...extra,
});
