// JouleClaw SPEC §13 (vocabulary), §15 (SHACL) — the public surface of vocab/.
//
// Pure JavaScript, runs in Deno and workerd: the published texts (v1.jsonld, v1.ttl,
// v1.shapes.ttl) as constants, JSON → JSON-LD → RDF offline, SHACL validation, N-Quads / Turtle
// and the HTML index. The Oxigraph SPARQL store is a separate module, vocab/sparql/mod.ts,
// imported only by the Deno entry.

export { V1_JSONLD, V1_SHAPES_TTL, V1_TTL } from "./assets.ts";
export {
  CLASSES,
  CONTEXT_URL,
  ENUMS,
  JC,
  ONTOLOGY_URL,
  SHAPES_URL,
  UNKNOWN_BASE,
} from "./schema/mod.ts";
export {
  classify,
  documentLoader,
  exactIntegers,
  parseJsonExact,
  type Quad,
  type Term,
  toJsonLd,
  type ToJsonLdOptions,
  toQuads,
  VocabError,
} from "./jsonld.ts";
export {
  compactIri,
  reportJsonLd,
  type ResultJson,
  ShapeValidator,
  type ValidationOutcome,
} from "./shacl.ts";
export {
  entryBnodePrefix,
  type EntryInput,
  entryInputFromEnvelope,
  entryJsonLd,
  entryNQuads,
  entryQuads,
  exportNQuads,
  jcpEntryClass,
  toNQuads,
  toTurtle,
} from "./rdf.ts";
export {
  type FindingInput,
  findingIri,
  findingNode,
  findingQuads,
  findingsJsonLd,
  findingsQuads,
} from "./findings.ts";
export {
  type IdentityInput,
  identityIri,
  identityJsonLd,
  identityNode,
  identityQuads,
} from "./identities.ts";
export { VOCAB_INDEX_CSP, vocabularyIndexHtml } from "./html.ts";
export {
  type ValidateAnswer,
  validateDocument,
  type ValidateOptions,
  warmUpValidation,
} from "./validate.ts";
