// Unit tests of vocab/: the published files are what the schema generates (and assets.ts embeds
// the same bytes), the u64 pattern is exactly 0..2^64-1, the context maps every enumeration value
// to its individual, and JSON-LD conversion never leaves memory.
import assert from "node:assert/strict";
import fc from "fast-check";
import { generateAll } from "./generate.ts";
import { decimalAtMost } from "./turtle.ts";
import { V1_JSONLD, V1_SHAPES_TTL, V1_TTL } from "./assets.ts";
import { ENUMS, JC, toJsonLd, toQuads, UNKNOWN_BASE, VocabError } from "./mod.ts";
import { CLASSES, U64_MAX, WORKSPACE_PATH } from "./schema/mod.ts";
import { queryForm } from "./sparql/query_form.ts";
import { ShapeValidator } from "./shacl.ts";
import { allDocs } from "../tests/vocab/_docs.ts";

Deno.test("vocab: v1.jsonld, v1.ttl, v1.shapes.ttl and assets.ts are what vocab/schema/ generates", async () => {
  const files = generateAll();
  for (const name of ["v1.jsonld", "v1.ttl", "v1.shapes.ttl"]) {
    const onDisk = await Deno.readTextFile(new URL(name, import.meta.url));
    assert.equal(onDisk, files[name], `vocab/${name} is stale: run deno run -A vocab/gen.ts`);
  }
  assert.equal(V1_JSONLD, files["v1.jsonld"]);
  assert.equal(V1_TTL, files["v1.ttl"]);
  assert.equal(V1_SHAPES_TTL, files["v1.shapes.ttl"]);
});

Deno.test("vocab: decimalAtMost matches exactly the canonical decimals 0..max (property)", () => {
  const re = new RegExp(decimalAtMost(U64_MAX));
  for (
    const [s, ok] of [
      ["0", true],
      ["00", false],
      ["01", false],
      ["18446744073709551615", true],
      ["18446744073709551616", false],
      ["99999999999999999999", false],
      ["9999999999999999999", true],
      ["-1", false],
      ["+1", false],
      ["", false],
    ] as const
  ) {
    assert.equal(re.test(s), ok, s);
  }
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 2n ** 70n }),
      (n) => re.test(n.toString()) === (n <= U64_MAX),
    ),
    { numRuns: 3000 },
  );
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 10n ** 6n }),
      fc.bigInt({ min: 0n, max: 10n ** 6n }),
      (max, n) => new RegExp(decimalAtMost(max)).test(n.toString()) === (n <= max),
    ),
    { numRuns: 2000 },
  );
});

Deno.test("vocab: the workspace path pattern agrees with SPEC §11 normalisation (property)", () => {
  const re = new RegExp(WORKSPACE_PATH);
  const normalised = (p: string) =>
    p.length > 0 && !p.startsWith("/") && !p.includes("\u0000") &&
    p.split("/").every((seg) => seg !== "" && seg !== "." && seg !== "..");
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom("a", ".", "/", "..", "\u0000", "b.c", ""), { maxLength: 8 }).map((
        xs,
      ) => xs.join("")),
      (p) => re.test(p) === normalised(p),
    ),
    { numRuns: 3000 },
  );
});

Deno.test("vocab: every enumeration value maps to its individual; other values to the unknown namespace", async () => {
  const base = { jc_receipt: "1", tier: "L3", energy_provenance: "HwShunt" };
  for (const e of ENUMS.filter((x) => x.name === "CascadeTier" || x.name === "EnergyProvenance")) {
    const key = e.name === "CascadeTier" ? "tier" : "energy_provenance";
    for (const v of e.values) {
      const q = await toQuads(toJsonLd({ ...base, [key]: v.tag }));
      assert.ok(q.some((x) => x.object.value === JC + v.iri), `${key} ${v.tag}`);
    }
  }
  const q = await toQuads(toJsonLd({ ...base, tier: "L9" }));
  assert.ok(q.some((x) => x.object.value === `${UNKNOWN_BASE}tier#L9`));
  // SPEC §13's own examples.
  const q2 = await toQuads(toJsonLd({ ...base, energy_provenance: "ModelBased" }));
  assert.ok(q2.some((x) => x.predicate.value === JC + "tier" && x.object.value === JC + "Model"));
  assert.ok(
    q2.some((x) =>
      x.predicate.value === JC + "energyProvenance" && x.object.value === JC + "ModelBased"
    ),
  );
});

Deno.test("vocab: every class's JSON keys appear in the context", () => {
  const ctx = JSON.parse(V1_JSONLD)["@context"];
  const all = JSON.stringify(ctx);
  for (const c of CLASSES) {
    for (const f of c.fields) {
      assert.ok(f.key in ctx || all.includes(`"${f.key}":`), `${c.name}.${f.key}`);
    }
    assert.ok(c.name in ctx, c.name);
  }
});

Deno.test("vocab: remote contexts are refused without a request; documents without a class are refused", async () => {
  await assert.rejects(
    () => toQuads({ "@context": "https://example.org/ctx.jsonld", "@type": "x" }),
    (e) => e instanceof VocabError && e.code === "context-not-available",
  );
  assert.throws(
    () => toJsonLd({ hello: 1 }),
    (e) => e instanceof VocabError && e.code === "unknown-document-type",
  );
  assert.throws(
    () => toJsonLd({ jc_receipt: "9" }),
    (e) => e instanceof VocabError && e.code === "unknown-document-type",
  );
  assert.throws(() => toJsonLd([1]), (e) => e instanceof VocabError && e.code === "not-an-object");
  // JSON-LD keywords of a plain JSON document are not obeyed.
  const q = await toQuads(
    toJsonLd({
      jc_receipt: "1",
      tier: "L3",
      "@id": "https://evil/",
      nested: { "@context": "https://evil/ctx" },
    }),
  );
  assert.ok(q.every((x) => x.subject.value !== "https://evil/"));
});

Deno.test("vocab: the SPARQL query form is read past prologue, comments, IRIs and strings", () => {
  assert.equal(queryForm("PREFIX jc: <https://x/SELECT#> # DELETE\nSELECT * {}"), "select");
  assert.equal(queryForm("  ask {}"), "ask");
  assert.equal(queryForm("BASE <http://e/INSERT> CONSTRUCT {} WHERE {}"), "construct");
  assert.equal(queryForm("DESCRIBE <x>"), "describe");
  for (
    const u of [
      "INSERT DATA {}",
      "PREFIX a: <b> DELETE WHERE {}",
      "load <x>",
      "CLEAR ALL",
      "DROP GRAPH <g>",
      "WITH <g> DELETE {} WHERE {}",
    ]
  ) {
    assert.equal(queryForm(u), "update", u);
  }
  assert.equal(queryForm("hello"), "unknown");
});

Deno.test("vocab: a list item that converts to nothing gets no rdf:first (JSON-LD 1.1 API §8.5)", async () => {
  // found by targets_test's JSON-level mutations: an identity whose `events` is "" (a relative
  // IRI under @type @id) made jsonld.js emit an rdf:first with a null object, and the SHACL
  // validator threw on it
  const doc = allDocs().find((d) => d.json.events !== undefined && d.cls === "Identity")!;
  const quads = await toQuads(toJsonLd({ ...doc.json, events: "" }, { cls: "Identity" }));
  assert.ok(quads.length > 0);
  for (const q of quads) assert.ok(q.subject && q.predicate && q.object, JSON.stringify(q));
  const out = await new ShapeValidator().validate(quads);
  assert.equal(typeof out.conforms, "boolean");
});
