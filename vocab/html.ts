// JouleClaw SPEC §13 — the human-readable vocabulary index (`/vocab/v1`), generated from the
// ontology itself: v1.ttl is parsed and every class, property and enumeration individual it
// declares is listed, so the page cannot mention a term the ontology lacks or miss one it has.

import { Parser, Store } from "n3";
import { V1_TTL } from "./assets.ts";
import { JC } from "./schema/mod.ts";
import { sha256 } from "../verify/mod.ts";

/** The index's one stylesheet, inline (its CSP allows exactly it, by hash). */
const STYLE =
  "body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem;vertical-align:top;text-align:left}code{background:#f4f4f4}";

/**
 * The index's Content-Security-Policy (issue 27): no script, its inline style by hash (CSP3
 * §2.3.1 hash-source), links to its own files only, never framed.
 */
export const VOCAB_INDEX_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${btoa(String.fromCharCode(...sha256(new TextEncoder().encode(STYLE))))}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const RDFS = "http://www.w3.org/2000/01/rdf-schema#";
const OWL = "http://www.w3.org/2002/07/owl#";

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(
    /"/g,
    "&quot;",
  );
}

function short(iri: string): string {
  if (iri.startsWith(JC)) return `jc:${iri.slice(JC.length)}`;
  for (
    const [p, ns] of [["xsd", "http://www.w3.org/2001/XMLSchema#"], ["rdf", RDF], [
      "prov",
      "http://www.w3.org/ns/prov#",
    ]]
  ) {
    if (iri.startsWith(ns)) return `${p}:${iri.slice(ns.length)}`;
  }
  return iri;
}

function link(iri: string): string {
  return iri.startsWith(JC)
    ? `<a href="#${esc(iri.slice(JC.length))}">${esc(short(iri))}</a>`
    : esc(short(iri));
}

let cached: string | undefined;

/** The HTML index of the ontology (cached: the ontology is constant). */
export function vocabularyIndexHtml(): string {
  if (cached) return cached;
  const st = new Store(new Parser().parse(V1_TTL));
  const one = (s: string, p: string) => st.getObjects(s, p, null)[0];
  const text = (s: string, p: string) => one(s, p)?.value ?? "";
  // deno-lint-ignore no-explicit-any
  const listItems = (head: any): string[] => {
    const out: string[] = [];
    while (head && head.value !== RDF + "nil") {
      const f = st.getObjects(head, RDF + "first", null)[0];
      if (f) out.push(f.value);
      head = st.getObjects(head, RDF + "rest", null)[0];
    }
    return out;
  };
  // deno-lint-ignore no-explicit-any
  const describe = (t: any): string => {
    if (t.termType === "NamedNode") return link(t.value);
    const u = st.getObjects(t, OWL + "unionOf", null)[0];
    return u ? listItems(u).map(link).join(" or ") : "";
  };
  const subjects = (type: string) =>
    st.getSubjects(RDF + "type", type, null).map((s) => s.value).filter((v) => v.startsWith(JC))
      .sort();
  const enums = new Set(subjects(OWL + "Class").filter((c) => one(c, OWL + "oneOf")));
  const classes = subjects(OWL + "Class").filter((c) => !enums.has(c));
  const props = [...subjects(OWL + "ObjectProperty"), ...subjects(OWL + "DatatypeProperty")]
    .filter((v, i, a) => a.indexOf(v) === i).sort();
  const rows: string[] = [];
  rows.push(`<h2 id="classes">Classes</h2>`);
  for (const c of classes) {
    const name = c.slice(JC.length);
    const sup = st.getObjects(c, RDFS + "subClassOf", null).map((o) => link(o.value)).join(", ");
    const own = props.filter((p) => {
      const d = one(p, RDFS + "domain");
      if (!d) return false;
      if (d.termType === "NamedNode") return d.value === c;
      const u = st.getObjects(d, OWL + "unionOf", null)[0];
      return u ? listItems(u).includes(c) : false;
    });
    rows.push(
      `<section id="${esc(name)}"><h3>jc:${esc(name)}</h3><p>${
        esc(text(c, RDFS + "comment"))
      }</p>` +
        (sup ? `<p>Subclass of ${sup}</p>` : "") +
        (own.length ? `<p>Properties: ${own.map(link).join(", ")}</p>` : "") + `</section>`,
    );
  }
  rows.push(
    `<h2 id="properties">Properties</h2><table><tr><th>Property</th><th>Domain</th><th>Range</th><th>Description</th></tr>`,
  );
  for (const p of props) {
    const name = p.slice(JC.length);
    const d = one(p, RDFS + "domain");
    const r = one(p, RDFS + "range");
    rows.push(
      `<tr id="${esc(name)}"><td>jc:${esc(name)}</td><td>${d ? describe(d) : ""}</td><td>${
        r ? describe(r) : ""
      }</td><td>${esc(text(p, RDFS + "comment"))}</td></tr>`,
    );
  }
  rows.push(`</table><h2 id="enumerations">Enumerations</h2>`);
  for (const e of [...enums].sort()) {
    const name = e.slice(JC.length);
    const members = listItems(one(e, OWL + "oneOf"));
    rows.push(
      `<section id="${esc(name)}"><h3>jc:${esc(name)}</h3><p>${
        esc(text(e, RDFS + "comment"))
      }</p><ul>` +
        members.map((m) => {
          const tag = text(m, JC + "wireTag");
          return `<li id="${esc(m.slice(JC.length))}"><b>${esc(short(m))}</b>${
            tag ? ` — wire tag <code>${esc(tag)}</code>` : " — never on the wire"
          }: ${esc(text(m, RDFS + "comment"))}</li>`;
        }).join("") + `</ul></section>`,
    );
  }
  cached = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>JouleClaw vocabulary v1</title>
<link rel="alternate" type="text/turtle" href="/vocab/v1.ttl">
<link rel="alternate" type="application/ld+json" href="/vocab/v1.jsonld">
<style>${STYLE}</style>
</head><body>
<h1>JouleClaw vocabulary, version 1</h1>
<p>Namespace <code>${esc(JC)}</code> (prefix <code>jc:</code>). Generated from the ontology
<a href="/vocab/v1.ttl">v1.ttl</a>; JSON-LD context <a href="/vocab/v1.jsonld">v1.jsonld</a>;
SHACL shapes <a href="/vocab/v1.shapes.ttl">v1.shapes.ttl</a>. CC-BY-4.0.</p>
<p>${classes.length} classes, ${props.length} properties, ${enums.size} enumerations.</p>
${rows.join("\n")}
</body></html>
`;
  return cached;
}
