// JSON-LD 1.1 §8 (Deserialize JSON-LD to RDF), specialised to the v1 context — the fast path.
//
// jsonld.js needs about 1.5 ms to expand one receipt. For a document whose every key and value is
// one the schema expects (every entry of the log: verify/ admitted it), the RDF the v1 context
// produces is fully determined by vocab/schema/, so it is built here directly from the table.
// Anything else — an unknown key, a value of an unexpected JSON type, an enumeration value that is
// not a tag (but a plain token of an open one), a null — returns undefined and the caller falls back to jsonld.js. The two paths are
// checked to give isomorphic graphs (URDNA2015-canonicalised) over every vector and over random
// documents (vocab/fast_test.ts).

import {
  CLASS_BY_NAME,
  type ClassDef,
  ENUM_BY_NAME,
  type Field,
  JC,
  UNKNOWN_BASE,
} from "./schema/mod.ts";
import type { Quad, Term } from "./jsonld.ts";

const XSD = "http://www.w3.org/2001/XMLSchema#";
const RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const GRAPH: Term = { termType: "DefaultGraph", value: "" };
const nn = (value: string): Term => ({ termType: "NamedNode", value });
const lit = (value: string, dt: string): Term => ({
  termType: "Literal",
  value,
  datatype: { termType: "NamedNode", value: dt },
});
const TYPE = nn(RDF + "type");
/** The log's string facts about an entry (LOG_PROPS), by JSON key. */
const LOG_STRINGS: Record<string, string> = {
  leaf_hash: "leafHash",
  verification_verdict: "verificationVerdict",
  content_id: "contentId",
};
const FIRST = nn(RDF + "first");
const REST = nn(RDF + "rest");
const NIL = nn(RDF + "nil");

/** Precomputed per enumeration: tag → individual IRI. */
const TAGS = new Map<string, Map<string, string>>();
for (const [name, e] of ENUM_BY_NAME) {
  TAGS.set(name, new Map(e.values.map((v) => [v.tag, JC + v.iri])));
}

/** JSON Canonicalization Scheme (RFC 8785) — the lexical form of an rdf:JSON literal (JSON-LD 1.1 §8.6). */
export function jcs(v: unknown): string | undefined {
  if (v === null || typeof v === "boolean" || typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") return Number.isFinite(v) ? JSON.stringify(v) : undefined;
  if (Array.isArray(v)) {
    const parts = v.map(jcs);
    return parts.includes(undefined) ? undefined : `[${parts.join(",")}]`;
  }
  if (typeof v === "object") {
    const keys = Object.keys(v as object).sort(); // UTF-16 code-unit order, as RFC 8785 §3.2.3
    const parts: string[] = [];
    for (const k of keys) {
      const x = jcs((v as Record<string, unknown>)[k]);
      if (x === undefined) return undefined;
      parts.push(`${JSON.stringify(k)}:${x}`);
    }
    return `{${parts.join(",")}}`;
  }
  return undefined;
}

class Bail extends Error {}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The RDF term of one scalar or object value of field f, or Bail. */
function value(f: Field, v: unknown, out: Quad[], fresh: () => Term): Term {
  const r = f.range;
  switch (r.t) {
    case "string":
      if (typeof v !== "string") throw new Bail();
      return lit(v, XSD + "string");
    case "uint":
    case "integer": {
      const dt = XSD + (r.t === "uint" ? "nonNegativeInteger" : "integer");
      if (typeof v === "number" && Number.isSafeInteger(v)) return lit(v.toFixed(0), dt);
      if (typeof v === "string" && /^[0-9]+$/.test(v)) return lit(v, dt);
      throw new Bail();
    }
    case "dateTime":
      if (typeof v !== "string") throw new Bail();
      return lit(v, XSD + "dateTime");
    case "boolean":
      if (typeof v !== "boolean") throw new Bail();
      return lit(String(v), XSD + "boolean");
    case "json": {
      const s = jcs(v);
      if (s === undefined || v === null) throw new Bail();
      return lit(s, RDF + "JSON");
    }
    case "enum": {
      const iri = typeof v === "string" ? TAGS.get(r.e)!.get(v) : undefined;
      if (iri) return nn(iri);
      // An open enumeration's other value (JCP §8.1's frame_kind "cancel"): a plain token expands
      // under the scoped @vocab as jsonld.js does; anything else falls back to it.
      if (r.open && typeof v === "string" && /^[A-Za-z0-9_-]+$/.test(v)) {
        return nn(`${UNKNOWN_BASE}${f.prop}#${v}`);
      }
      throw new Bail();
    }
    case "iri":
      // an absolute IRI (JSON-LD keeps it as written); anything else goes the slow path
      if (typeof v !== "string" || !/^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]+$/.test(v)) {
        throw new Bail();
      }
      return nn(v);
    case "node": {
      if (!isObj(v)) throw new Bail();
      const s = fresh();
      node(CLASS_BY_NAME.get(r.c)!, v, s, out, fresh, false);
      return s;
    }
  }
}

/** The quads of object `o` of class c with subject s. */
function node(
  c: ClassDef,
  o: Record<string, unknown>,
  s: Term,
  out: Quad[],
  fresh: () => Term,
  root: boolean,
): void {
  let fields = c.fields;
  const typeKey = c.kinds ? "kind" : "@type";
  if (c.kinds) {
    const variant = typeof o.kind === "string" ? c.kinds[o.kind] : undefined;
    if (!variant || !Object.hasOwn(c.kinds, o.kind as string)) throw new Bail();
    fields = CLASS_BY_NAME.get(variant)!.fields;
    out.push({ subject: s, predicate: TYPE, object: nn(JC + variant), graph: GRAPH });
  } else if (o["@type"] !== undefined) {
    if (o["@type"] !== c.name) throw new Bail();
    out.push({ subject: s, predicate: TYPE, object: nn(JC + c.name), graph: GRAPH });
  }
  const byKey = new Map(fields.map((f) => [f.key, f]));
  for (const [k, v] of Object.entries(o)) {
    if (k === typeKey || (root && (k === "@id" || k === "@context"))) continue;
    if (root && (k === "log_index" || k === "integrated_at")) {
      if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) throw new Bail();
      out.push({
        subject: s,
        predicate: nn(JC + (k === "log_index" ? "logIndex" : "integratedAt")),
        object: lit(v.toFixed(0), XSD + "nonNegativeInteger"),
        graph: GRAPH,
      });
      continue;
    }
    if (root && k === "verifier_config") {
      const id = (v as { "@id"?: unknown } | null)?.["@id"];
      if (typeof id !== "string") throw new Bail();
      out.push({ subject: s, predicate: nn(JC + "verifierConfig"), object: nn(id), graph: GRAPH });
      continue;
    }
    if (root && Object.hasOwn(LOG_STRINGS, k)) {
      if (typeof v !== "string") throw new Bail();
      out.push({
        subject: s,
        predicate: nn(JC + LOG_STRINGS[k]),
        object: lit(v, XSD + "string"),
        graph: GRAPH,
      });
      continue;
    }
    const f = byKey.get(k);
    if (!f) throw new Bail(); // an unknown key: JSON-LD's treatment depends on the context
    const p = nn(JC + f.prop);
    if (!f.list) {
      if (Array.isArray(v)) throw new Bail();
      out.push({ subject: s, predicate: p, object: value(f, v, out, fresh), graph: GRAPH });
      continue;
    }
    if (!Array.isArray(v)) throw new Bail();
    if (v.length === 0) {
      out.push({ subject: s, predicate: p, object: NIL, graph: GRAPH });
      continue;
    }
    const cells = v.map(() => fresh());
    out.push({ subject: s, predicate: p, object: cells[0], graph: GRAPH });
    v.forEach((m, i) => {
      if (Array.isArray(m) || m === null) throw new Bail();
      out.push({
        subject: cells[i],
        predicate: FIRST,
        object: value(f, m, out, fresh),
        graph: GRAPH,
      });
      out.push({
        subject: cells[i],
        predicate: REST,
        object: i + 1 < cells.length ? cells[i + 1] : NIL,
        graph: GRAPH,
      });
    });
  }
}

/**
 * The quads of a document as `toJsonLd` produced it (plain JSON with `@context`, `@type`, maybe
 * `@id`, `log_index`, `leaf_hash`, `verification_verdict`), or undefined when the document needs the full JSON-LD
 * processor. Blank nodes are `_:f0`, `_:f1`, …
 */
export function fastQuads(doc: Record<string, unknown>): Quad[] | undefined {
  const c = typeof doc["@type"] === "string" ? CLASS_BY_NAME.get(doc["@type"]) : undefined;
  if (!c || c.kinds) return undefined;
  const id = doc["@id"];
  if (
    id !== undefined &&
    (typeof id !== "string" || !/^[a-z][a-z0-9+.-]*:[^\s<>"{}|\\^`]*$/i.test(id))
  ) return undefined;
  let n = 0;
  const fresh = (): Term => ({ termType: "BlankNode", value: `_:f${n++}` });
  const out: Quad[] = [];
  try {
    node(c, doc, id !== undefined ? nn(id) : fresh(), out, fresh, true);
  } catch (e) {
    if (e instanceof Bail) return undefined;
    throw e;
  }
  return out;
}
