// JouleClaw SPEC §15 — the SHACL Core shapes (`v1.shapes.ttl`), generated from vocab/schema/.
//
// Only the constraints SPEC §15 lists are used: sh:minCount / sh:maxCount, sh:datatype (xsd:string,
// xsd:integer, xsd:nonNegativeInteger, xsd:dateTime, xsd:boolean), sh:nodeKind (sh:IRI,
// sh:Literal, and sh:BlankNodeOrIRI for nested objects — docs/DECISIONS.md), sh:in, sh:pattern,
// sh:maxInclusive and sh:node. No SPARQL, no
// qualified value shapes. Every JSON key is one property shape (sh:maxCount 1: a key has one
// value); a JSON array is an rdf:List, whose members are reached by the path
// `( p [ sh:zeroOrMorePath rdf:rest ] rdf:first )`. Every class with fields has a node shape
// targeting it (sh:targetClass), and nested objects are also checked through sh:node, so an
// untyped nested object in a hand-written JSON-LD document is still validated.

import {
  CLASS_BY_NAME,
  CLASSES,
  ENUM_BY_NAME,
  type Field,
  JC,
  SHAPES_URL,
  U64_MAX,
} from "./schema/mod.ts";
import { decimalAtMost, en, list, str } from "./turtle.ts";
import { VERDICTS } from "../verify/mod.ts";

/** sh:pattern bounding u64 exactly (JS validators compare sh:maxInclusive as doubles). */
export const U64_PATTERN = decimalAtMost(U64_MAX);
/** RFC 3339 in UTC (JCR-1 §2: "Timestamps are RFC 3339 UTC"), on top of xsd:dateTime. */
export const UTC_PATTERN =
  "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?Z$";

const PREFIXES = `@prefix jc: <${JC}> .
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
`;

/** The value constraints of a field (applied to the value, or to each list member). */
function valueConstraints(f: Field): string[] {
  const r = f.range;
  switch (r.t) {
    case "string": {
      const c = ["sh:datatype xsd:string"];
      if (f.fixed !== undefined) c.push(`sh:in ${list([str(f.fixed)])}`);
      if (r.pattern) c.push(`sh:pattern ${str(r.pattern)}`);
      return c;
    }
    case "uint": {
      const c = ["sh:datatype xsd:nonNegativeInteger"];
      if (r.max !== undefined && r.max <= BigInt(Number.MAX_SAFE_INTEGER)) {
        c.push(`sh:maxInclusive ${r.max}`);
      } else c.push(`sh:pattern ${str(U64_PATTERN)}`); // u64: exact bound on the lexical form
      return c;
    }
    case "integer":
      return ["sh:datatype xsd:integer"];
    case "dateTime":
      return ["sh:datatype xsd:dateTime", `sh:pattern ${str(UTC_PATTERN)}`];
    case "boolean":
      return ["sh:datatype xsd:boolean"];
    case "json":
      return ["sh:nodeKind sh:Literal"];
    case "enum": {
      const e = ENUM_BY_NAME.get(r.e)!;
      if (r.open) return ["sh:nodeKind sh:IRI"]; // its individuals, or any other value (an IRI)
      return ["sh:nodeKind sh:IRI", `sh:in ${list(e.values.map((v) => `jc:${v.iri}`))}`];
    }
    case "node":
      // A literal where an object belongs must not pass a shape whose fields are all optional.
      return ["sh:nodeKind sh:BlankNodeOrIRI", `sh:node jc:${r.c}Shape`];
    case "iri":
      return ["sh:nodeKind sh:IRI"];
  }
}

function propertyShape(f: Field): string[] {
  const head = [`sh:path jc:${f.prop}`, `sh:name ${str(f.key)}`];
  if (f.required) head.push("sh:minCount 1");
  head.push("sh:maxCount 1");
  if (!f.list) return [block([...head, ...valueConstraints(f)])];
  // A JSON array is an rdf:List: the key holds the list's head, the members sit on rdf:first.
  const members = [
    `sh:path ( jc:${f.prop} [ sh:zeroOrMorePath rdf:rest ] rdf:first )`,
    `sh:name ${str(`${f.key}[]`)}`,
    ...valueConstraints(f),
  ];
  return [block(head), block(members)];
}

function block(lines: string[]): string {
  return `[\n    ${lines.join(" ;\n    ")}\n  ]`;
}

/** JCR-1 §6, SPEC §6: at most one verdict class, one of the four (verify/verdict_class.ts). */
const VERDICT_SHAPE = block([
  "sh:path jc:verificationVerdict",
  `sh:name "verification_verdict"`,
  "sh:maxCount 1",
  "sh:datatype xsd:string",
  `sh:in ${list(VERDICTS.map((v) => str(v)))}`,
]);

/** Builds `v1.shapes.ttl`. Deterministic. */
export function buildShapes(): string {
  const out: string[] = [PREFIXES];
  out.push(`<${SHAPES_URL}> a owl:Ontology ;
  rdfs:label ${en("JouleClaw v1 SHACL shapes")} ;
  rdfs:comment ${
    en(
      "SHACL Core shapes for every class of the JouleClaw v1 vocabulary (SPEC §15). Constraints used: sh:minCount, sh:maxCount, sh:datatype, sh:nodeKind, sh:in, sh:pattern, sh:maxInclusive, sh:node.",
    )
  } ;
  rdfs:seeAlso <https://jouleclaw.transaction.science/vocab/v1> .
`);
  for (const c of CLASSES) {
    if (c.noShape) continue;
    const lines = [
      `a sh:NodeShape`,
      `sh:targetClass jc:${c.name}`,
      `rdfs:comment ${en(`${c.comment} (${c.clause})`)}`,
    ];
    if (c.kinds) {
      // SPEC §9 / §16.2: the variant is the node's type, one of the subclasses.
      lines.push(
        `sh:property [\n    sh:path rdf:type ;\n    sh:name "kind" ;\n    sh:minCount 1 ;\n    sh:maxCount 1 ;\n    sh:nodeKind sh:IRI ;\n    sh:in ${
          list(Object.values(c.kinds).map((k) => `jc:${k}`))
        }\n  ]`,
      );
    }
    for (const f of c.fields) for (const p of propertyShape(f)) lines.push(`sh:property ${p}`);
    // A log entry's node (a top-level receipt) carries its verdict class (LOG_PROPS).
    if (c.discriminator) lines.push(`sh:property ${VERDICT_SHAPE}`);
    out.push(`jc:${c.name}Shape ${lines.join(" ;\n  ")} .\n`);
  }
  return out.join("\n");
}

/** The classes a shape targets, by shape IRI (for reports and the HTML index). */
export function shapeClasses(): Map<string, string> {
  return new Map(CLASSES.filter((c) => !c.noShape).map((c) => [`${JC}${c.name}Shape`, c.name]));
}

/** True when c (a class name) has a shape. */
export function hasShape(name: string): boolean {
  const c = CLASS_BY_NAME.get(name);
  return !!c && !c.noShape;
}
