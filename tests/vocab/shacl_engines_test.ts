// Issue 23: the shapes and the verifier agree, checked by two SHACL engines nobody here wrote —
// rdf-validate-shacl (npm, exactly as it comes: ShapeValidator fast: false) and pySHACL
// (conformance/upstream/pyshacl, vendored unchanged, on Debian's python3-rdflib). Over the JSON-LD
// view of every published vector (vocab/jsonld.ts, the view the service serves):
// - every positive vector (and every hand document of tests/vocab/_docs.ts) conforms under both;
// - every negative vector whose fault the shapes can express (a field the profile's table and the
//   shapes both constrain: SHAPE_CODES) is refused by both, except those listed in NOT_EXPRESSIBLE
//   with why, and each listed one still conforms (a fixed gap must leave the list);
// - the two engines answer the same `conforms` for every document, positive or negative.
// When pySHACL cannot run, the test FAILS naming the missing Debian package (.ci/run installs it).

import assert from "node:assert/strict";
import { toJsonLd, toNQuads, toQuads } from "../../vocab/mod.ts";
import { ShapeValidator } from "../../vocab/shacl.ts";
import { handDocs, publishedVectors } from "./_docs.ts";

const ID = "https://log.example/v1/log/entries/7";
const PY = "/usr/bin/python3";
const here = new URL(".", import.meta.url).pathname;
const SHAPES = new URL("../../vocab/v1.shapes.ttl", import.meta.url).pathname;

/** Verifier codes whose faults are field constraints the shapes carry (SPEC §15). */
const SHAPE_CODES = new Set(["missing-field", "bad-field-type", "bad-field-value", "bad-coverage"]);

/** Negatives with a SHAPE_CODES code that the JSON-LD view cannot show, each with why. */
const NOT_EXPRESSIBLE: Record<string, string> = {
  // the context types joules_uj as xsd:nonNegativeInteger, so the JSON string "180" becomes the
  // integer literal "180": the view keeps the value, not JSON's number/string distinction
  "neg-bad-field-type": "JSON-LD type coercion: the text '180' is the integer 180 in RDF",
  // the same coercion: residual_uj is xsd:integer, so the JSON string "400" is the integer 400
  "neg-efficiency-residual-text": "JSON-LD type coercion: the text '400' is the integer 400 in RDF",
};

interface Doc {
  name: string;
  json: Record<string, unknown>;
  cls?: string;
  positive: boolean;
  codes: string[];
}

/** Every document with a JSON-LD view: the vectors' projections and the hand documents. */
function documents(): { docs: Doc[]; noView: string[] } {
  const docs: Doc[] = [];
  const noView: string[] = [];
  for (const v of publishedVectors()) {
    if (v.json === null || typeof v.json !== "object" || Array.isArray(v.json)) {
      noView.push(v.name); // no JSON projection (not a map, not strict det-CBOR)
      continue;
    }
    try {
      toJsonLd(v.json, { id: ID });
    } catch {
      noView.push(v.name); // no schema of the vocabulary: the view itself refuses it
      continue;
    }
    docs.push({
      name: v.name,
      json: v.json,
      positive: v.expected.valid,
      codes: v.expected.codes,
    });
  }
  for (const d of handDocs()) {
    docs.push({ ...d, name: `hand-${d.name}`, positive: true, codes: [] });
  }
  return { docs, noView };
}

async function pyshacl(dir: string): Promise<
  { pyshacl: string; docs: Record<string, { conforms: boolean; targeted: boolean }> }
> {
  let o: Deno.CommandOutput;
  try {
    o = await new Deno.Command(PY, {
      args: [`${here}pyshacl_check.py`, SHAPES, dir],
      stdout: "piped",
      stderr: "piped",
      env: { PYTHONDONTWRITEBYTECODE: "1" },
    }).output();
  } catch (e) {
    throw new Error(`Cannot run pySHACL: ${PY} is missing (install Debian package python3): ${e}`);
  }
  const err = new TextDecoder().decode(o.stderr);
  assert.equal(o.code, 0, `Cannot run pySHACL (.ci/run installs its Debian packages): ${err}`);
  return JSON.parse(new TextDecoder().decode(o.stdout));
}

Deno.test("shacl engines: rdf-validate-shacl and pySHACL agree with the verifier on every vector's JSON-LD view", async () => {
  const { docs, noView } = documents();
  const rvs = new ShapeValidator(undefined, { fast: false }); // rdf-validate-shacl as it comes
  const tmp = await Deno.makeTempDir();
  const js = new Map<string, boolean>();
  try {
    for (const [i, d] of docs.entries()) {
      const quads = await toQuads(toJsonLd(d.json, { id: ID, cls: d.cls }));
      js.set(d.name, (await rvs.validate(quads)).conforms);
      await Deno.writeTextFile(`${tmp}/${String(i).padStart(4, "0")}.nt`, toNQuads(quads));
    }
    const py = await pyshacl(tmp);
    const failures: string[] = [];
    let refusedByBoth = 0;
    for (const [i, d] of docs.entries()) {
      const p = py.docs[String(i).padStart(4, "0")];
      const r = js.get(d.name)!;
      if (p.conforms !== r) {
        failures.push(
          `${d.name}: rdf-validate-shacl conforms=${r}, pySHACL conforms=${p.conforms}`,
        );
      }
      if (d.positive) {
        if (!r || !p.conforms) failures.push(`${d.name}: a positive document does not conform`);
        if (!p.targeted) {
          failures.push(`${d.name}: no shape targets it (pySHACL conforms vacuously)`);
        }
        continue;
      }
      const expressible = d.codes.some((c) => SHAPE_CODES.has(c));
      if (expressible && !Object.hasOwn(NOT_EXPRESSIBLE, d.name)) {
        if (r || p.conforms) failures.push(`${d.name} (${d.codes}): the shapes do not refuse it`);
        else refusedByBoth++;
      } else if (!r || !p.conforms) {
        // refused by the shapes yet classed inexpressible: the classification above is wrong
        failures.push(`${d.name} (${d.codes}): the shapes refuse it; class it expressible`);
      }
    }
    assert.deepEqual(failures, []);
    // the numbers the closing note reports
    const positives = docs.filter((d) => d.positive).length;
    console.log(
      `pySHACL ${py.pyshacl}: ${positives} positive documents conform under both engines; ` +
        `${refusedByBoth} negatives refused by both; ${docs.length - positives - refusedByBoth} ` +
        `negatives outside the shapes' reach; ${noView.length} vectors without a JSON-LD view`,
    );
    const published = publishedVectors().filter((v) => v.expected.valid).length;
    assert.equal(positives, published + handDocs().length, "every positive vector has a view");
    assert.ok(refusedByBoth >= 10, `expected the field-fault negatives, got ${refusedByBoth}`);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("shacl engines: every NOT_EXPRESSIBLE entry is a published negative vector", () => {
  const names = new Set(publishedVectors().filter((v) => !v.expected.valid).map((v) => v.name));
  for (const n of Object.keys(NOT_EXPRESSIBLE)) assert.ok(names.has(n), `${n} is not a vector`);
});
