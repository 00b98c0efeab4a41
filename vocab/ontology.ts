// JouleClaw SPEC §13 — the Turtle ontology (`v1.ttl`), generated from vocab/schema/.
//
// Classes, properties with domains and ranges, the enumerations as individuals (each with its wire
// tag), and the PROV-O alignment SPEC §13 states: jc:ClaimProvenance ⊑ prov:Entity,
// jc:AuditEvent ⊑ prov:Activity, jc:AgentIdentity ⊑ prov:Agent. CC-BY-4.0 (SPEC §13).

import { CLASSES, ENUMS, type Field, JC, LOG_PROPS, ONTOLOGY_URL } from "./schema/mod.ts";
import { en, list, str } from "./turtle.ts";

const PREFIXES = `@prefix jc: <${JC}> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
`;

/** The RDF range of a field's values (before list wrapping). */
export function rangeIri(f: Field): string {
  const r = f.range;
  switch (r.t) {
    case "string":
      return "xsd:string";
    case "uint":
      return "xsd:nonNegativeInteger";
    case "integer":
      return "xsd:integer";
    case "dateTime":
      return "xsd:dateTime";
    case "boolean":
      return "xsd:boolean";
    case "json":
      return "rdf:JSON";
    case "enum":
      return `jc:${r.e}`;
    case "node":
      return `jc:${r.c}`;
    case "iri":
      return "rdfs:Resource";
  }
}

interface PropInfo {
  prop: string;
  domains: Set<string>;
  ranges: Set<string>;
  list: boolean;
  literal: boolean;
  keys: Set<string>;
  comment: string;
}

/** Every `jc:` property, with the classes using it and its range(s). */
export function properties(): Map<string, PropInfo> {
  const out = new Map<string, PropInfo>();
  for (const c of CLASSES) {
    const fields = c.fields;
    for (const f of fields) {
      let p = out.get(f.prop);
      if (!p) {
        p = {
          prop: f.prop,
          domains: new Set(),
          ranges: new Set(),
          list: !!f.list,
          literal: !["enum", "node", "iri"].includes(f.range.t),
          keys: new Set(),
          comment: f.comment,
        };
        out.set(f.prop, p);
      }
      p.domains.add(`jc:${c.name}`);
      p.ranges.add(rangeIri(f));
      p.keys.add(f.key);
      if (!!f.list !== p.list) {
        throw new Error(`Cannot build the ontology: jc:${f.prop} is a list in one class only`);
      }
    }
  }
  return out;
}

/** Builds `v1.ttl`. Deterministic. */
export function buildOntology(): string {
  const out: string[] = [PREFIXES];
  out.push(`<${ONTOLOGY_URL}> a owl:Ontology ;
  dcterms:title ${en("JouleClaw vocabulary, version 1")} ;
  dcterms:description ${
    en(
      "Classes, properties and enumerations of JouleClaw receipts, policy receipts, workspaces, validation contracts, handoffs, JCP decision receipts, meter readings and transparency-log tree heads (JouleClaw SPEC §13).",
    )
  } ;
  dcterms:license <https://creativecommons.org/licenses/by/4.0/> ;
  owl:versionInfo "1" ;
  rdfs:seeAlso <https://jouleclaw.transaction.science/vocab/v1.jsonld>, <https://jouleclaw.transaction.science/vocab/v1.shapes.ttl> .
`);
  out.push("# ---- Classes\n");
  for (const c of CLASSES) {
    const subs = (c.sub ?? []).map((x) => `  rdfs:subClassOf ${x} ;\n`).join("");
    out.push(`jc:${c.name} a owl:Class ;
  rdfs:label ${en(c.name)} ;
  rdfs:comment ${en(`${c.comment} (${c.clause})`)} ;
${subs}  rdfs:isDefinedBy <${ONTOLOGY_URL}> .
`);
  }
  out.push("# ---- Enumerations\n");
  for (const e of ENUMS) {
    const members = e.values.map((v) => `jc:${v.iri}`);
    if (e.name === "EnergyCoverage") members.unshift("jc:Whole");
    out.push(`jc:${e.name} a owl:Class ;
  rdfs:label ${en(e.name)} ;
  rdfs:comment ${en(e.comment)} ;
  owl:oneOf ${list(members)} ;
  rdfs:isDefinedBy <${ONTOLOGY_URL}> .
`);
    if (e.name === "EnergyCoverage") {
      out.push(`jc:Whole a owl:NamedIndividual, jc:EnergyCoverage ;
  rdfs:label ${en("Whole")} ;
  rdfs:comment ${
        en(
          "The figure covers the whole work: the meaning of an absent coverage field. Never written on the wire (JCP §5.2).",
        )
      } ;
  rdfs:isDefinedBy <${ONTOLOGY_URL}> .
`);
    }
    for (const v of e.values) {
      out.push(`jc:${v.iri} a owl:NamedIndividual, jc:${e.name} ;
  rdfs:label ${en(v.iri)} ;
  jc:wireTag ${str(v.tag)} ;
  rdfs:comment ${en(v.comment)} ;
  rdfs:isDefinedBy <${ONTOLOGY_URL}> .
`);
    }
  }
  out.push(`jc:wireTag a owl:DatatypeProperty, owl:AnnotationProperty ;
  rdfs:label ${en("wire tag")} ;
  rdfs:comment ${en("The JSON string an enumeration individual is written as on the wire.")} ;
  rdfs:range xsd:string ;
  rdfs:isDefinedBy <${ONTOLOGY_URL}> .
`);
  out.push("# ---- Properties\n");
  for (const p of [...properties().values()].sort((a, b) => a.prop.localeCompare(b.prop))) {
    const kind = p.list || !p.literal ? "owl:ObjectProperty" : "owl:DatatypeProperty";
    const domains = [...p.domains].sort();
    const domain = domains.length === 1
      ? domains[0]
      : `[ a owl:Class ; owl:unionOf ${list(domains)} ]`;
    const ranges = [...p.ranges].sort();
    const member = ranges.length === 1 ? ranges[0] : `[ owl:unionOf ${list(ranges)} ]`;
    const range = p.list ? "rdf:List" : member;
    const listNote = p.list
      ? ` An rdf:List of ${ranges.join(" or ")}, in the JSON array's order.`
      : "";
    out.push(`jc:${p.prop} a ${kind} ;
  rdfs:label ${en(p.prop)} ;
  rdfs:comment ${en(p.comment + listNote + ` JSON key: ${[...p.keys].sort().join(", ")}.`)} ;
  rdfs:domain ${domain} ;
  rdfs:range ${range} ;
  rdfs:isDefinedBy <${ONTOLOGY_URL}> .
`);
  }
  for (const [prop, comment] of Object.entries(LOG_PROPS)) {
    // verifierConfig names an entry (an IRI); the others are literals
    const kind = prop === "verifierConfig" ? "owl:ObjectProperty" : "owl:DatatypeProperty";
    const range = prop === "logIndex" || prop === "integratedAt"
      ? "xsd:nonNegativeInteger"
      : prop === "verifierConfig"
      ? "rdfs:Resource"
      : "xsd:string";
    out.push(`jc:${prop} a ${kind} ;
  rdfs:label ${en(prop)} ;
  rdfs:comment ${en(comment)} ;
  rdfs:range ${range} ;
  rdfs:isDefinedBy <${ONTOLOGY_URL}> .
`);
  }
  return out.join("\n");
}
