// The per-class-set shapes (vocab/subsets.ts) against the whole shapes graph: the same
// rdf-validate-shacl over the published shapes, once with the subset the data's classes select and
// once with everything, must give the same outcome — conforms, focus count, every result in the
// same order, and the same report graph — over every positive document, quad-level mutations of
// them (dropped, retyped, re-valued, duplicated, re-classed quads), random mixes of classes, and
// data that declares subclasses.
import assert from "node:assert/strict";
import fc from "fast-check";
import { fastQuads } from "./fast.ts";
import { CLASSES, JC, type Quad, type Term, toJsonLd, toQuads } from "./mod.ts";
import {
  bareReportJsonLd,
  compactReport,
  reportJsonLd,
  ShapeValidator,
  type ValidationOutcome,
} from "./shacl.ts";
import { MAX_SUBSETS, ShapeSubsets } from "./subsets.ts";
import { V1_SHAPES_TTL } from "./assets.ts";
import { Parser } from "n3";
import { allDocs } from "../tests/vocab/_docs.ts";

const XSD = "http://www.w3.org/2001/XMLSchema#";
const RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const G: Term = { termType: "DefaultGraph", value: "" };
const nn = (value: string): Term => ({ termType: "NamedNode", value });
const lit = (value: string, dt: string): Term => ({
  termType: "Literal",
  value,
  datatype: { termType: "NamedNode", value: dt },
});

const fast = new ShapeValidator();
let bare = 0;
const whole = new ShapeValidator(undefined, { fast: false });

/** Report quads with blank nodes relabelled in order of appearance (the labels come from a counter). */
function relabel(quads: Quad[]): string[] {
  const labels = new Map<string, string>();
  const t = (x: Term) =>
    x.termType === "BlankNode"
      ? `_:${labels.get(x.value) ?? labels.set(x.value, `n${labels.size}`).get(x.value)}`
      : `${x.termType} ${x.value} ${x.datatype?.value ?? ""} ${x.language ?? ""}`;
  return quads.map((q) => `${t(q.subject)} ${t(q.predicate)} ${t(q.object)}`);
}

async function same(quads: Quad[], label: string): Promise<ValidationOutcome> {
  const a = await fast.validate(quads);
  const b = await whole.validate(quads);
  assert.deepEqual(a.results, b.results, label);
  assert.equal(a.conforms, b.conforms, label);
  assert.equal(a.focus_nodes, b.focus_nodes, label);
  assert.deepEqual(relabel(a.reportQuads), relabel(b.reportQuads), label);
  // The report's JSON-LD: written directly when it has no results, as jsonld.js writes it.
  const direct = bareReportJsonLd(a.reportQuads);
  assert.equal(direct !== undefined, a.reportQuads.length === 2, label);
  if (direct) bare++;
  assert.deepEqual(await reportJsonLd(a.reportQuads), await compactReport(a.reportQuads), label);
  return a;
}

async function docQuads(): Promise<{ name: string; quads: Quad[] }[]> {
  const out = [];
  for (const d of allDocs()) {
    const doc = toJsonLd(d.json, { cls: d.cls, id: "https://log.example/v1/log/entries/7" });
    out.push({ name: d.name, quads: fastQuads(doc) ?? await toQuads(doc) });
  }
  return out;
}

Deno.test("subsets: every positive document gives the whole graph's outcome", async () => {
  const docs = await docQuads();
  assert.ok(docs.length >= 29);
  for (const d of docs) assert.equal((await same(d.quads, d.name)).conforms, true, d.name);
  assert.ok(bare >= docs.length, "conforming reports are written directly");
});

Deno.test("subsets: quad-level mutations give the whole graph's outcome, results in order (property)", async () => {
  const docs = await docQuads();
  const classIris = CLASSES.map((c) => JC + c.name);
  const replacement = fc.oneof(
    fc.constant(lit("x", XSD + "string")),
    fc.constant(lit("-1", XSD + "integer")),
    fc.constant(lit("18446744073709551616", XSD + "nonNegativeInteger")),
    fc.constant(lit("2026-05-31T18:04:22+02:00", XSD + "dateTime")),
    fc.constant(nn(JC + "Bogus")),
    fc.constant(nn(RDF + "nil")),
    fc.constant<Term>({ termType: "BlankNode", value: "_:z0" }),
    fc.constantFrom(...classIris).map(nn),
  );
  let violations = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.nat(docs.length - 1),
      fc.nat(),
      fc.constantFrom("drop", "replace", "duplicate", "retype"),
      replacement,
      async (di, qi, kind, r) => {
        const { name, quads } = docs[di];
        const i = qi % quads.length;
        const q = quads[i];
        let m: Quad[];
        if (kind === "drop") m = quads.filter((_, j) => j !== i);
        else if (kind === "replace") m = quads.map((x, j) => j === i ? { ...x, object: r } : x);
        else if (kind === "duplicate") m = [...quads, { ...q, object: r }];
        else {m = [...quads, {
            subject: q.subject,
            predicate: nn(RDF + "type"),
            object: r,
            graph: G,
          }];}
        const out = await same(m, `${name} ${kind} #${i} ${JSON.stringify(r)}`);
        if (!out.conforms) violations++;
      },
    ),
    { numRuns: 250 },
  );
  assert.ok(violations > 100, `only ${violations} of 250 mutants were refused`);
});

Deno.test("subsets: random mixes of typed nodes, past the cache bound (property)", async () => {
  // Many distinct class sets: the first MAX_SUBSETS get a subset validator each, later ones the
  // whole graph; every outcome must be the whole graph's either way.
  const iris = CLASSES.map((c) => JC + c.name);
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(fc.constantFrom(...iris), { minLength: 1, maxLength: 4 }),
      async (types) => {
        const quads: Quad[] = types.map((t, i) => ({
          subject: { termType: "BlankNode", value: `_:m${i}` },
          predicate: nn(RDF + "type"),
          object: nn(t),
          graph: G,
        }));
        await same(quads, types.join(" "));
      },
    ),
    { numRuns: MAX_SUBSETS + 40 },
  );
});

Deno.test("subsets: data declaring subclasses takes the whole graph (SHACL §2.1.3.3)", async () => {
  // ex:Sub ⊑ jc:TreeHead and a node typed ex:Sub only: the TreeHead shape targets it.
  const s: Term = { termType: "BlankNode", value: "_:s" };
  const quads: Quad[] = [
    {
      subject: nn("urn:ex:Sub"),
      predicate: nn("http://www.w3.org/2000/01/rdf-schema#subClassOf"),
      object: nn(JC + "TreeHead"),
      graph: G,
    },
    { subject: s, predicate: nn(RDF + "type"), object: nn("urn:ex:Sub"), graph: G },
    { subject: s, predicate: nn(JC + "size"), object: lit("1", XSD + "string"), graph: G },
  ];
  const out = await same(quads, "subclass");
  assert.equal(out.conforms, false);
  assert.ok(
    out.results.some((r) =>
      r.path === "jc:treeSize" && r.constraint.endsWith("MinCountConstraintComponent")
    ),
    JSON.stringify(out.results),
  );
  const sub = new ShapeSubsets(new Parser().parse(V1_SHAPES_TTL));
  assert.equal(sub.validatorFor(quads as never), sub.whole);
  assert.notEqual(sub.whole, sub.reference);
});

Deno.test("subsets: a subset holds the shapes its classes reach and no others", () => {
  const sub = new ShapeSubsets(new Parser().parse(V1_SHAPES_TTL));
  const r = sub.reachable([JC + "Receipt"]);
  for (const s of ["ReceiptShape", "ToolTouchShape", "ClaimProvenanceShape"]) {
    assert.ok(r.has(JC + s), s);
  }
  assert.ok(!r.has(JC + "TreeHeadShape"));
  assert.ok(!r.has(JC + "WorkspaceManifestShape"));
  assert.equal(sub.reachable([]).size, 0);
  assert.throws(
    () => new ShapeSubsets(new Parser().parse(`${prefixes} jc:S sh:targetNode jc:x .`)),
    /only sh:targetClass targets are supported/,
  );
  assert.throws(
    () => new ShapeSubsets(new Parser().parse(`${prefixes} jc:S a rdfs:Class ; sh:path jc:p .`)),
    /declares classes/,
  );
});

const prefixes = `@prefix jc: <${JC}> . @prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .`;

Deno.test("subsets: the direct report form matches jsonld.js for a non-conforming empty graph too", async () => {
  const out = await same([], "empty graph");
  assert.equal(out.conforms, false);
  const direct = bareReportJsonLd(out.reportQuads)!;
  assert.equal(direct["sh:conforms"], false);
  // Anything but the two quads of a bare report goes to jsonld.js.
  const [t, c] = out.reportQuads;
  const odd = { ...c, subject: { termType: "NamedNode", value: "urn:r" } } as Quad;
  assert.equal(bareReportJsonLd([t, odd]), undefined);
  assert.equal(bareReportJsonLd([t, t]), undefined);
  assert.equal(bareReportJsonLd([t]), undefined);
});
