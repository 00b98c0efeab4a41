// JouleClaw SPEC §13 — the JSON-LD context (`v1.jsonld`), generated from vocab/schema/.
//
// JSON-LD 1.1 (https://www.w3.org/TR/json-ld11/). Every JSON key of §§2, 10, 11 is a global term, so
// adding the context to a receipt "expands it into typed RDF triples" (SPEC §13) with or without
// `@type`. Where one JSON key means different things in different objects (`closed_at` is RFC 3339
// on a receipt but epoch seconds on a handoff, `verdict` is a nested object on a verdict receipt but
// "allow"/"deny" on a jcp/2 receipt, ...), the first class of the table owns the global term and
// the others override it in a type-scoped context (top-level documents, which always carry
// `@type`) or a property-scoped context (nested objects).
//
// Enumerations: a property's tags are terms of that property's scoped context with `@type: @vocab`
// (`tier: "L3"` → `jc:Model`); the scoped `@vocab` sends any other value to
// `…/v1/unknown/<property>#<value>`, an IRI that is no individual of the vocabulary, so `sh:in`
// refuses it instead of JSON-LD dropping it. The `kind` key of an Action, Decision or Check is
// aliased to `@type` (`kind: "filesystem"` → `jc:FilesystemAction`), with a scoped `@base` doing the
// same for unknown kinds.

import {
  CLASS_BY_NAME,
  type ClassDef,
  CLASSES,
  ENUM_BY_NAME,
  type Field,
  JC,
  UNKNOWN_BASE,
} from "./schema/mod.ts";

/** A JSON-LD term definition, or a plain IRI string. */
type TermDef = string | number | Record<string, unknown>;

const XSD = "http://www.w3.org/2001/XMLSchema#";

/** The term definition a field gets (without considering where it is used). */
function fieldTerm(f: Field): TermDef {
  return compact(fieldDef(f));
}

function fieldDef(f: Field): Record<string, unknown> {
  const def: Record<string, unknown> = { "@id": `jc:${f.prop}` };
  const r = f.range;
  switch (r.t) {
    case "string":
    case "boolean":
      // No coercion: a JSON number given for a string (or a string for a boolean) keeps its own
      // datatype, so `sh:datatype` refuses it instead of the context silently re-typing it.
      break;
    case "uint":
      // Numbers and decimal strings (u64 above 2^53-1 are strings in the JSON projection) both
      // become xsd:nonNegativeInteger literals; anything else is an ill-typed literal sh:datatype refuses.
      def["@type"] = "xsd:nonNegativeInteger";
      break;
    case "integer":
      def["@type"] = "xsd:integer";
      break;
    case "dateTime":
      def["@type"] = "xsd:dateTime";
      break;
    case "json":
      def["@type"] = "@json";
      break;
    case "iri":
      def["@type"] = "@id";
      break;
    case "enum": {
      const e = ENUM_BY_NAME.get(r.e);
      if (!e) throw new Error(`Cannot build the context: unknown enumeration ${r.e}`);
      const scoped: Record<string, string> = { "@vocab": `${UNKNOWN_BASE}${f.prop}#` };
      for (const v of e.values) scoped[v.tag] = `jc:${v.iri}`;
      def["@type"] = "@vocab";
      def["@context"] = scoped;
      break;
    }
    case "node": {
      const c = CLASS_BY_NAME.get(r.c);
      if (!c) throw new Error(`Cannot build the context: unknown class ${r.c}`);
      const scoped = nestedContext(c, f.prop);
      if (scoped) def["@context"] = scoped;
      break;
    }
  }
  if (f.list) def["@container"] = "@list";
  return def;
}

/** A definition with nothing but `@id` is written as the plain IRI string. */
function compact(def: Record<string, unknown>): TermDef {
  const keys = Object.keys(def);
  return keys.length === 1 && keys[0] === "@id" ? def["@id"] as string : def;
}

/** What a field means, ignoring where it is used: two fields with one signature share a term. */
function signature(f: Field): string {
  const r = f.range;
  return JSON.stringify([
    f.prop,
    r.t,
    r.t === "enum" ? r.e : r.t === "node" ? r.c : "",
    f.list ?? false,
  ]);
}

/** The owner of each JSON key's global term: the first field of the table with that key. */
const OWNER: Map<string, Field> = (() => {
  const out = new Map<string, Field>();
  for (const c of CLASSES) for (const f of c.fields) if (!out.has(f.key)) out.set(f.key, f);
  return out;
})();

/** Fields of c (and, for a `kinds` class, of its subclasses) whose meaning differs from the global term. */
function overrides(c: ClassDef): Record<string, TermDef> {
  const fields = c.kinds
    ? Object.values(c.kinds).flatMap((n) => CLASS_BY_NAME.get(n)!.fields)
    : c.fields;
  const out: Record<string, TermDef> = {};
  const seen = new Map<string, string>();
  for (const f of fields) {
    const sig = signature(f);
    if (seen.has(f.key) && seen.get(f.key) !== sig) {
      throw new Error(`Cannot build the context: key ${f.key} has two meanings inside ${c.name}`);
    }
    seen.set(f.key, sig);
    if (signature(OWNER.get(f.key)!) !== sig) out[f.key] = fieldTerm(f);
  }
  return out;
}

/** The property-scoped context for a nested object of class c reached through property `prop`. */
function nestedContext(c: ClassDef, prop: string): Record<string, TermDef> | undefined {
  const ctx: Record<string, TermDef> = {};
  if (c.kinds) {
    // SPEC §9 / §16.2: the variant is chosen by `kind`; it becomes the node's rdf:type.
    ctx["kind"] = "@type";
    ctx["@base"] = `${UNKNOWN_BASE}${prop}/`;
    for (const [tag, cls] of Object.entries(c.kinds)) ctx[tag] = `jc:${cls}`;
  }
  const o = overrides(c);
  // A property-scoped context propagates to nested objects, so a class that overrides keys must
  // not itself contain nested objects (none does; this keeps it so).
  const members = c.kinds
    ? Object.values(c.kinds).flatMap((n) => CLASS_BY_NAME.get(n)!.fields)
    : c.fields;
  if (
    Object.keys(ctx).length + Object.keys(o).length && members.some((f) => f.range.t === "node")
  ) {
    throw new Error(
      `Cannot build the context: ${c.name} has a scoped context and nested objects (scoped contexts propagate)`,
    );
  }
  Object.assign(ctx, o);
  return Object.keys(ctx).length ? ctx : undefined;
}

/** Builds the `v1.jsonld` document: `{"@context": {...}}`. Deterministic. */
export function buildContext(): { "@context": Record<string, TermDef> } {
  const ctx: Record<string, TermDef> = {
    "@version": 1.1,
    jc: JC,
    xsd: XSD,
    rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    rdfs: "http://www.w3.org/2000/01/rdf-schema#",
    prov: "http://www.w3.org/ns/prov#",
  };
  for (const c of CLASSES) {
    if (c.discriminator || isStandalone(c)) {
      const o = overrides(c);
      ctx[c.name] = Object.keys(o).length
        ? { "@id": `jc:${c.name}`, "@context": o }
        : `jc:${c.name}`;
    } else {
      ctx[c.name] = `jc:${c.name}`;
    }
  }
  for (const [k, f] of OWNER) ctx[k] = fieldTerm(f);
  // API.md `GET /v1/log/export`: the log's own facts about an entry.
  ctx["log_index"] = { "@id": "jc:logIndex", "@type": "xsd:nonNegativeInteger" };
  ctx["leaf_hash"] = "jc:leafHash";
  ctx["verification_verdict"] = "jc:verificationVerdict";
  // issue 30: the envelope's content id and the integration time (ms), for the accounts queries
  ctx["content_id"] = "jc:contentId";
  ctx["integrated_at"] = { "@id": "jc:integratedAt", "@type": "xsd:nonNegativeInteger" };
  // issue 23: the configuration entry an entry was judged under (an IRI)
  ctx["verifier_config"] = { "@id": "jc:verifierConfig", "@type": "@id" };
  return { "@context": ctx };
}

/**
 * Top-level documents without a discriminator key (typed by the caller: handoff, tree head, stream
 * finding).
 */
export function isStandalone(c: ClassDef): boolean {
  return c.name === "WorkerHandoff" || c.name === "TreeHead" || c.name === "StreamFinding";
}
