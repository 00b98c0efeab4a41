// deno-lint-ignore-file no-explicit-any -- untyped interop with jsonld.js / rdf-validate-shacl internals
// JouleClaw SPEC §15 — SHACL Core validation against v1.shapes.ttl (W3C SHACL, rdf-validate-shacl).
//
// The validator is built once from the published shapes and reused. SHACL alone answers "conforms"
// for a graph no shape targets (a document without `@type` matches no sh:targetClass), so every
// validation also counts the focus nodes the shapes reached and checks that every root node of the
// data (a subject that is no triple's object) was one of them; a root no shape targets is reported
// as a violation of its own (`jc:TargetedConstraintComponent`) and the document does not conform.

import { DataFactory, Parser, Store } from "n3";
import jsonld from "jsonld";
import { V1_SHAPES_TTL } from "./assets.ts";
import { ENUMS, JC, UNKNOWN_BASE } from "./schema/mod.ts";
import type { Quad, Term } from "./jsonld.ts";
import { TargetSelection, validationEnvironment } from "./targets.ts";

const SH = "http://www.w3.org/ns/shacl#";

/** Enumeration IRI → its wire tag (jc:Cache → "L0"), so messages speak the wire format. */
const WIRE_TAG: ReadonlyMap<string, string> = new Map(
  ENUMS.flatMap((e) => e.values.map((v) => [JC + v.iri, v.tag] as [string, string])),
);

/** How a term reads on the wire: an enumeration's tag, an unknown value's own text, a literal. */
function wireValue(t: Term): string {
  if (t.termType !== "NamedNode") return t.value;
  const tag = WIRE_TAG.get(t.value);
  if (tag !== undefined) return tag;
  if (t.value.startsWith(UNKNOWN_BASE)) return t.value.slice(t.value.search(/[#/][^#/]*$/) + 1);
  return compactIri(t.value);
}
const RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const PREFIXES: [string, string][] = [
  ["jc:", JC],
  ["sh:", SH],
  ["rdf:", RDF],
  ["xsd:", "http://www.w3.org/2001/XMLSchema#"],
  ["prov:", "http://www.w3.org/ns/prov#"],
];

/** One result of a validation, as the HTTP API answers it. */
export interface ResultJson {
  /** the property path, SPARQL property-path syntax with prefixes (null for a node-level result) */
  path: string | null;
  /** the JSON key the path stands for (the property shape's sh:name), when known */
  field: string | null;
  message: string;
  severity: "Violation" | "Warning" | "Info";
  /** the focus node: an IRI, or `_:label` for a blank node */
  focus: string;
  /** the value node that failed, when there is one */
  value?: string;
  /** the SHACL constraint component, prefixed (e.g. sh:DatatypeConstraintComponent) */
  constraint: string;
  /** the shape the result came from (prefixed, or null for an anonymous property shape's node shape) */
  shape: string | null;
  /** results of a nested sh:node check */
  detail?: ResultJson[];
}

/** A validation's outcome. */
export interface ValidationOutcome {
  conforms: boolean;
  /** how many distinct focus nodes the shapes' targets selected */
  focus_nodes: number;
  results: ResultJson[];
  /** the sh:ValidationReport as RDF quads (for the JSON-LD form) */
  reportQuads: Quad[];
}

/** Shortens an IRI with the vocabulary's prefixes. */
export function compactIri(iri: string): string {
  for (const [p, ns] of PREFIXES) if (iri.startsWith(ns)) return p + iri.slice(ns.length);
  return iri;
}

function termString(
  t: { termType: string; value: string; datatype?: { value: string }; language?: string },
): string {
  if (t.termType === "BlankNode") return `_:${t.value}`;
  if (t.termType === "Literal") {
    const dt = t.datatype?.value;
    if (t.language) return `${JSON.stringify(t.value)}@${t.language}`;
    return dt && dt !== "http://www.w3.org/2001/XMLSchema#string"
      ? `${JSON.stringify(t.value)}^^${compactIri(dt)}`
      : JSON.stringify(t.value);
  }
  return compactIri(t.value);
}

/** Options of `ShapeValidator`. */
export interface ShapeValidatorOptions {
  /**
   * false: rdf-validate-shacl exactly as it comes — every targeted shape visited, its default
   * RDF/JS environment and dataset — the reference the fast path is tested against. The default,
   * true, visits only the shapes the data's classes select (vocab/targets.ts) and uses the
   * fast-matching dataset (vocab/dataset.ts).
   */
  fast?: boolean;
}

/** The validator over the published shapes, built once (SPEC §15). */
export class ShapeValidator {
  readonly #targets: TargetSelection;
  readonly #fast: boolean;
  readonly #shapes: Store;
  readonly #f: any;
  readonly #targetClasses: ReadonlySet<string>;

  constructor(shapesTurtle: string = V1_SHAPES_TTL, opts: ShapeValidatorOptions = {}) {
    // Blank nodes of the shapes graph numbered from 0 on every parse (N3's default factory counts
    // per process), so a report's sh:sourceShape labels do not depend on what the process parsed
    // before: a Worker, the edge and the event loop answer the same bytes.
    let n = 0;
    const factory = {
      ...DataFactory,
      blankNode: (name?: string) => DataFactory.blankNode(name ?? `n3-${n++}`),
    };
    const quads = new Parser({ factory }).parse(shapesTurtle);
    this.#shapes = new Store(quads);
    this.#targets = new TargetSelection(quads);
    this.#fast = opts.fast ?? true;
    this.#f = this.#fast ? validationEnvironment() : this.#targets.reference.factory;
    this.#targetClasses = this.#targets.targetClasses;
  }

  #term(t: Term): any {
    const f = this.#f;
    switch (t.termType) {
      case "NamedNode":
        return f.namedNode(t.value);
      case "BlankNode":
        return f.blankNode(t.value.startsWith("_:") ? t.value.slice(2) : t.value);
      case "Literal":
        return t.language ? f.literal(t.value, t.language) : f.literal(
          t.value,
          f.namedNode(t.datatype?.value ?? `http://www.w3.org/2001/XMLSchema#string`),
        );
      default:
        return f.defaultGraph();
    }
  }

  /** Renders a SHACL property path (SHACL §2.3.1) in SPARQL property-path syntax. */
  pathString(t: { termType: string; value: string }): string {
    if (t.termType === "NamedNode") return compactIri(t.value);
    const one = (p: string) => this.#shapes.getObjects(t as any, p, null)[0];
    const first = one(RDF + "first");
    if (first) {
      const parts: string[] = [];
      let cur: any = t;
      while (cur && cur.value !== RDF + "nil") {
        const head = this.#shapes.getObjects(cur, RDF + "first", null)[0];
        if (!head) break;
        parts.push(this.pathString(head));
        cur = this.#shapes.getObjects(cur, RDF + "rest", null)[0];
      }
      return parts.join("/");
    }
    const unary: [string, (s: string) => string][] = [
      ["zeroOrMorePath", (s) => `${s}*`],
      ["oneOrMorePath", (s) => `${s}+`],
      ["zeroOrOnePath", (s) => `${s}?`],
      ["inversePath", (s) => `^${s}`],
    ];
    for (const [p, fmt] of unary) {
      const o = one(SH + p);
      if (o) return fmt(this.pathString(o));
    }
    return termString(t);
  }

  /**
   * Validates RDF quads (e.g. `toQuads(toJsonLd(receipt))`) against the shapes. Never throws on bad
   * data: every problem is a result.
   */
  async validate(quads: Quad[]): Promise<ValidationOutcome> {
    const f = this.#f;
    const data = f.dataset(
      quads.map((q) =>
        f.quad(this.#term(q.subject), this.#term(q.predicate), this.#term(q.object))
      ),
    );
    if (this.#fast) this.#targets.prepare(data, quads);
    const validator = this.#fast ? this.#targets.validator : this.#targets.reference;
    const report = await validator.validate(data);
    // Count what the shapes' targets reached. The shapes target by sh:targetClass only (checked
    // when the validator is built), and the data carries no rdfs:subClassOf, so the focus nodes are
    // exactly the subjects typed with a target class.
    const targeted = new Set<string>();
    for (const q of quads) {
      if (q.predicate.value === RDF + "type" && this.#targetClasses.has(q.object.value)) {
        targeted.add(termString(q.subject));
      }
    }
    const results: ResultJson[] = report.results.map((r) => this.#result(r));
    // Every root node must have been a focus node: otherwise it "conforms" only vacuously.
    const objects = new Set<string>();
    const subjects = new Map<string, Term>();
    for (const q of quads) {
      objects.add(termString(q.object));
      subjects.set(termString(q.subject), q.subject);
    }
    const extra: Quad[] = [];
    for (const [key, node] of subjects) {
      if (objects.has(key) || targeted.has(key)) continue;
      results.push({
        path: null,
        field: null,
        message:
          "No shape targets this node: it has no rdf:type of a JouleClaw class, so nothing about it was checked",
        severity: "Violation",
        focus: key,
        constraint: "jc:TargetedConstraintComponent",
        shape: null,
      });
      extra.push(...this.#untargetedQuads(node, extra.length));
    }
    if (subjects.size === 0) {
      results.push({
        path: null,
        field: null,
        message: "The document produced no RDF: an empty graph is not a JouleClaw document",
        severity: "Violation",
        focus: "",
        constraint: "jc:TargetedConstraintComponent",
        shape: null,
      });
    }
    const conforms = report.conforms && results.length === 0;
    const reportQuads = this.#reportQuads(report.dataset, conforms, extra);
    return { conforms, focus_nodes: targeted.size, results, reportQuads };
  }

  /** An sh:in violation in wire terms: `tier must be one of L0, L1, L2, L3, L4; got "L9"`. */
  #inMessage(r: any, field: string | null): string | undefined {
    if (r.sourceConstraintComponent?.value !== SH + "InConstraintComponent") return undefined;
    const shape = r.sourceShape;
    let cur = shape ? this.#shapes.getObjects(shape, SH + "in", null)[0] : undefined;
    const allowed: string[] = [];
    while (cur && cur.value !== RDF + "nil" && allowed.length < 100) {
      const head = this.#shapes.getObjects(cur, RDF + "first", null)[0];
      if (head) allowed.push(wireValue(head as Term));
      cur = this.#shapes.getObjects(cur, RDF + "rest", null)[0];
    }
    if (allowed.length === 0) return undefined;
    const got = r.value ? `; got ${JSON.stringify(wireValue(r.value))}` : "";
    return `${field ?? "the value"} must be one of ${allowed.join(", ")}${got}`;
  }

  #result(r: any): ResultJson {
    const path = r.path ? this.pathString(r.path) : null;
    const shape = r.sourceShape;
    const name = shape ? this.#shapes.getObjects(shape, SH + "name", null)[0] : undefined;
    const sev = r.severity ? compactIri(r.severity.value).replace("sh:", "") : "Violation";
    const out: ResultJson = {
      path,
      field: name ? name.value : null,
      message: this.#inMessage(r, name?.value ?? path) ??
        (r.message.map((m: Term) => m.value).join("; ") || "Constraint violated"),
      severity: sev as ResultJson["severity"],
      focus: termString(r.focusNode),
      constraint: compactIri(r.sourceConstraintComponent.value),
      shape: shape && shape.termType === "NamedNode" ? compactIri(shape.value) : null,
    };
    if (r.value) out.value = termString(r.value);
    const detail = r.detail;
    if (detail && detail.length) out.detail = detail.map((d: unknown) => this.#result(d));
    return out;
  }

  #untargetedQuads(node: Term, i: number): Quad[] {
    const r: Term = { termType: "BlankNode", value: `untargeted${i}` };
    const nn = (v: string): Term => ({ termType: "NamedNode", value: v });
    const g: Term = { termType: "DefaultGraph", value: "" };
    const lit = (v: string): Term => ({
      termType: "Literal",
      value: v,
      datatype: { termType: "NamedNode", value: "http://www.w3.org/2001/XMLSchema#string" },
    });
    return [
      { subject: r, predicate: nn(RDF + "type"), object: nn(SH + "ValidationResult"), graph: g },
      { subject: r, predicate: nn(SH + "focusNode"), object: node, graph: g },
      { subject: r, predicate: nn(SH + "resultSeverity"), object: nn(SH + "Violation"), graph: g },
      {
        subject: r,
        predicate: nn(SH + "sourceConstraintComponent"),
        object: nn(JC + "TargetedConstraintComponent"),
        graph: g,
      },
      {
        subject: r,
        predicate: nn(SH + "resultMessage"),
        object: lit("No shape targets this node"),
        graph: g,
      },
    ];
  }

  #reportQuads(ds: any, conforms: boolean, extra: Quad[]): Quad[] {
    const out: Quad[] = [];
    let reportNode: Term | undefined;
    for (const q of ds) {
      const t = (x: Term) =>
        ({
          termType: x.termType,
          value: x.value,
          datatype: x.datatype,
          language: x.language,
        }) as Term;
      if (q.predicate.value === SH + "conforms") {
        reportNode = t(q.subject);
        out.push({
          subject: t(q.subject),
          predicate: t(q.predicate),
          object: {
            termType: "Literal",
            value: String(conforms),
            datatype: { termType: "NamedNode", value: "http://www.w3.org/2001/XMLSchema#boolean" },
          },
          graph: { termType: "DefaultGraph", value: "" },
        });
        continue;
      }
      out.push({
        subject: t(q.subject),
        predicate: t(q.predicate),
        object: t(q.object),
        graph: { termType: "DefaultGraph", value: "" },
      });
    }
    for (const q of extra) {
      out.push(q);
      if (reportNode && q.predicate.value === RDF + "type") {
        out.push({
          subject: reportNode,
          predicate: { termType: "NamedNode", value: SH + "result" },
          object: q.subject,
          graph: q.graph,
        });
      }
    }
    return out;
  }
}

const XSD_BOOLEAN = "http://www.w3.org/2001/XMLSchema#boolean";

/** The sh:ValidationReport as compacted JSON-LD (prefixes sh:, jc:, xsd:). */
export async function reportJsonLd(quads: Quad[]): Promise<Record<string, unknown>> {
  return bareReportJsonLd(quads) ?? await compactReport(quads);
}

/** The report through jsonld.js: JSON-LD 1.1 fromRdf (native types), then compaction. */
export async function compactReport(quads: Quad[]): Promise<Record<string, unknown>> {
  const expanded: any = await (jsonld.fromRDF as any)(quads, { useNativeTypes: true });
  const ctx = Object.fromEntries(PREFIXES.map(([p, ns]) => [p.slice(0, -1), ns]));
  const out: unknown = await jsonld.compact(
    expanded,
    ctx as any,
    { documentLoader: () => Promise.reject(new Error("offline")) } as any,
  );
  return out as Record<string, unknown>;
}

/**
 * A report without results — a blank node, its rdf:type sh:ValidationReport and its sh:conforms —
 * written out as `compactReport` writes it (the common answer, a conforming document), or
 * undefined for any other report. vocab/subsets_test.ts checks it against `compactReport`.
 */
export function bareReportJsonLd(quads: Quad[]): Record<string, unknown> | undefined {
  if (quads.length !== 2) return undefined;
  const type = quads.find((q) => q.predicate.value === RDF + "type");
  const conforms = quads.find((q) => q.predicate.value === SH + "conforms");
  if (!type || !conforms) return undefined;
  const node = type.subject;
  const value = conforms.object;
  if (
    node.termType !== "BlankNode" || !/^[A-Za-z][A-Za-z0-9]*$/.test(node.value) ||
    conforms.subject.termType !== "BlankNode" || conforms.subject.value !== node.value ||
    type.object.termType !== "NamedNode" || type.object.value !== SH + "ValidationReport" ||
    value.termType !== "Literal" || value.datatype?.value !== XSD_BOOLEAN ||
    (value.value !== "true" && value.value !== "false") ||
    type.graph.termType !== "DefaultGraph" || conforms.graph.termType !== "DefaultGraph"
  ) return undefined;
  return {
    "@context": Object.fromEntries(PREFIXES.map(([p, ns]) => [p.slice(0, -1), ns])),
    "@id": `_:${node.value}`,
    "@type": "sh:ValidationReport",
    "sh:conforms": value.value === "true",
  };
}
