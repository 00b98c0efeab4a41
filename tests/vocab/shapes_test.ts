// JouleClaw SPEC §15 — every positive document conforms; for every shape, invalid documents
// (missing required field, wrong datatype, value outside an enumeration, pattern mismatch, value
// out of range, nested shape violation) are refused with the right sh:path. The invalid documents
// are derived from the schema table field by field, so every constraint the shapes publish is
// exercised at least once against the real validator.
import assert from "node:assert/strict";
import { CLASSES, toJsonLd, toQuads, validateDocument } from "../../vocab/mod.ts";
import type { Field } from "../../vocab/schema/mod.ts";
import { allDocs, type Doc, handDocs } from "./_docs.ts";

const ID = "https://log.example/v1/log/entries/7";
const byName = new Map(CLASSES.map((c) => [c.name, c]));

/** The class of a document (its schema tag's, or the one it names), kept when a mutation breaks the tag. */
function classOf(json: Record<string, unknown>, cls?: string): string | undefined {
  return cls ??
    CLASSES.find((c) => c.discriminator && json[c.discriminator.key] === c.discriminator.value)
      ?.name;
}

async function validate(json: unknown, cls?: string) {
  const doc = toJsonLd(json, { id: ID, cls });
  const { sharedValidator } = await import("../../vocab/validate.ts");
  return await sharedValidator().validate(await toQuads(doc));
}

Deno.test("shapes: every positive document conforms, with every node targeted", async () => {
  const docs = allDocs();
  assert.ok(
    docs.length >= 29,
    `expected the conformance vectors plus hand documents, got ${docs.length}`,
  );
  for (const d of docs) {
    const r = await validate(d.json, d.cls);
    assert.deepEqual(r.results, [], `${d.name}: ${JSON.stringify(r.results)}`);
    assert.equal(r.conforms, true, d.name);
    assert.ok(r.focus_nodes >= 1, `${d.name}: no focus node`);
  }
});

interface Mutation {
  what: string;
  /** mutate the object holding the field */
  apply(o: Record<string, unknown>): void;
  path: string;
  constraint: string;
}

const U64_OVER = "18446744073709551616";

function memberPath(f: Field) {
  return f.list ? `jc:${f.prop}/rdf:rest*/rdf:first` : `jc:${f.prop}`;
}

/** The invalid variants of one field (SPEC §15 constraints the shape puts on it). */
function mutations(f: Field): Mutation[] {
  const out: Mutation[] = [];
  const set = (v: unknown) => (o: Record<string, unknown>) => {
    o[f.key] = f.list ? [v] : v;
  };
  const p = memberPath(f);
  if (f.required) {
    out.push({
      what: "missing",
      apply: (o) => delete o[f.key],
      path: `jc:${f.prop}`,
      constraint: "sh:MinCountConstraintComponent",
    });
  }
  const r = f.range;
  switch (r.t) {
    case "string":
      out.push({
        what: "number for string",
        apply: set(12345),
        path: p,
        constraint: "sh:DatatypeConstraintComponent",
      });
      if (r.pattern) {
        out.push({
          what: "pattern",
          apply: set("zz/../"),
          path: p,
          constraint: "sh:PatternConstraintComponent",
        });
      }
      if (f.fixed) {
        out.push({
          what: "wrong tag value",
          apply: set(f.fixed + "x"),
          path: p,
          constraint: "sh:InConstraintComponent",
        });
      }
      break;
    case "uint":
      out.push({
        what: "string for integer",
        apply: set("many"),
        path: p,
        constraint: "sh:DatatypeConstraintComponent",
      });
      out.push({
        what: "negative",
        apply: set(-1),
        path: p,
        constraint: "sh:DatatypeConstraintComponent",
      });
      if (r.max !== undefined) {
        out.push({
          what: "above max",
          apply: set(Number(r.max) + 1),
          path: p,
          constraint: "sh:MaxInclusiveConstraintComponent",
        });
      } else {out.push({
          what: "2^64",
          apply: set(U64_OVER),
          path: p,
          constraint: "sh:PatternConstraintComponent",
        });}
      break;
    case "iri":
      out.push({
        what: "number for IRI",
        apply: set(12345),
        path: p,
        constraint: "sh:NodeKindConstraintComponent",
      });
      break;
    case "integer":
      out.push({
        what: "text for integer",
        apply: set("zero"),
        path: p,
        constraint: "sh:DatatypeConstraintComponent",
      });
      break;
    case "dateTime":
      out.push({
        what: "not a date",
        apply: set("yesterday"),
        path: p,
        constraint: "sh:DatatypeConstraintComponent",
      });
      out.push({
        what: "offset, not UTC",
        apply: set("2026-05-31T18:04:22+02:00"),
        path: p,
        constraint: "sh:PatternConstraintComponent",
      });
      break;
    case "boolean":
      out.push({
        what: "string for boolean",
        apply: set("yes"),
        path: p,
        constraint: "sh:DatatypeConstraintComponent",
      });
      break;
    case "enum":
      if (r.open) break; // JCP §8.1's frame_kind: any value is one (docs/DECISIONS.md)
      out.push({
        what: "outside the enumeration",
        apply: set("Bogus"),
        path: p,
        constraint: "sh:InConstraintComponent",
      });
      break;
    case "node":
      out.push({
        what: "literal for object",
        apply: set(42),
        path: p,
        constraint: "sh:NodeKindConstraintComponent",
      });
      break;
    case "json":
      break;
  }
  return out;
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

function hasResult(
  results: { path: string | null; constraint: string; detail?: unknown[] }[],
  path: string,
  constraint: string,
): boolean {
  // deno-lint-ignore no-explicit-any
  return results.some((r: any) =>
    (r.path === path && r.constraint === constraint) ||
    (r.detail && hasResult(r.detail, path, constraint))
  );
}

/** Fields of the object `o` of class `cls` (a `kinds` class takes its subclass's fields). */
function fieldsOf(cls: string, o: Record<string, unknown>): { fields: Field[]; cls: string } {
  const c = byName.get(cls)!;
  if (c.kinds) {
    const sub = c.kinds[String(o.kind)];
    return { fields: byName.get(sub)!.fields, cls: sub };
  }
  return { fields: c.fields, cls };
}

/** Walks a document: for every object of a known class, yields (class, accessor). */
function* objects(
  doc: Doc,
): Generator<
  {
    cls: string;
    at: (root: Record<string, unknown>) => Record<string, unknown>;
    nested: string | null;
  }
> {
  const rootCls = doc.cls ??
    CLASSES.find((c) => c.discriminator && doc.json[c.discriminator.key] === c.discriminator.value)!
      .name;
  function* walk(
    cls: string,
    at: (r: Record<string, unknown>) => Record<string, unknown>,
    nested: string | null,
  ): Generator<
    {
      cls: string;
      at: (root: Record<string, unknown>) => Record<string, unknown>;
      nested: string | null;
    }
  > {
    yield { cls, at, nested };
    const o = at(doc.json);
    const { fields } = fieldsOf(cls, o);
    for (const f of fields) {
      if (f.range.t !== "node" || o[f.key] === undefined) continue;
      const inner = f.range.c;
      // A variant (Action, Decision, Check) is checked by its subclass's targetClass shape; the
      // parent's sh:node only checks which variant it is, so there is no parent-level result.
      const parentPath = byName.get(inner)!.kinds ? "(variant)" : nested ?? memberPath(f);
      if (f.list) {
        const n = (o[f.key] as unknown[]).length;
        for (let k = 0; k < n; k++) {
          yield* walk(inner, (r) => (at(r)[f.key] as Record<string, unknown>[])[k], parentPath);
        }
      } else yield* walk(inner, (r) => at(r)[f.key] as Record<string, unknown>, parentPath);
    }
  }
  yield* walk(rootCls, (r) => r, null);
}

Deno.test("shapes: each constraint of each shape refuses its invalid documents with the right sh:path", async () => {
  // One document per class is enough to reach every shape; first document wins.
  const seen = new Set<string>();
  let checked = 0;
  for (const doc of allDocs()) {
    for (const { cls, at, nested } of objects(doc)) {
      const { fields, cls: concrete } = fieldsOf(cls, at(doc.json));
      if (seen.has(concrete)) continue;
      seen.add(concrete);
      const rootCls = classOf(doc.json, doc.cls);
      for (const f of fields) {
        for (const m of mutations(f)) {
          const bad = clone(doc.json);
          m.apply(at(bad));
          const r = await validate(bad, rootCls);
          const label = `${doc.name} ${concrete}.${f.key}: ${m.what}`;
          assert.equal(r.conforms, false, `${label} was accepted`);
          assert.ok(
            hasResult(r.results, m.path, m.constraint),
            `${label}: no ${m.constraint} at ${m.path} in ${JSON.stringify(r.results)}`,
          );
          // A nested violation is also reported at the parent, as a nested shape violation.
          if (nested && nested !== "(variant)") {
            assert.ok(
              hasResult(r.results, nested, "sh:NodeConstraintComponent"),
              `${label}: no sh:node result at ${nested}`,
            );
          } else if (!nested && m.constraint !== "sh:NodeConstraintComponent") {
            assert.ok(
              r.results.some((x) => x.focus === ID && x.path === m.path),
              `${label}: focus is not the document`,
            );
          }
          checked++;
        }
      }
    }
  }
  const shaped = CLASSES.filter((c) => !c.noShape && !c.kinds && c.fields.length).map((c) =>
    c.name
  );
  assert.deepEqual(shaped.filter((n) => !seen.has(n)), [], "every class with a shape was mutated");
  assert.ok(checked > 200, `only ${checked} invalid documents`);
});

Deno.test("shapes: kind outside Action/Decision/Check variants is refused at rdf:type", async () => {
  const policy = allDocs().find((d) => d.name.startsWith("policy-1"))!;
  const bad = clone(policy.json);
  (bad.action as Record<string, unknown>).kind = "teleport";
  const r = await validate(bad);
  assert.equal(r.conforms, false);
  assert.ok(
    hasResult(r.results, "rdf:type", "sh:InConstraintComponent"),
    JSON.stringify(r.results),
  );
  const contract = handDocs().find((d) => d.name === "contract")!;
  const bad2 = clone(contract.json);
  // deno-lint-ignore no-explicit-any
  (bad2.assertions as any)[0].check.kind = "vibes";
  assert.ok(hasResult((await validate(bad2)).results, "rdf:type", "sh:InConstraintComponent"));
});

Deno.test("shapes: enumerations take only their wire tags; coverage Whole is refused (JCP §5.2)", async () => {
  const base = allDocs().find((d) => d.name.startsWith("jcr1-05"))!.json;
  for (
    const tier of [
      "Model",
      "l3",
      "L5",
      "jc:Model",
      "L3 ",
      "https://jouleclaw.transaction.science/vocab/v1#Model",
    ]
  ) {
    const r = await validate({ ...base, tier });
    assert.ok(hasResult(r.results, "jc:tier", "sh:InConstraintComponent"), `tier ${tier} accepted`);
  }
  for (const [tag, ok] of [["L0", true], ["L1", true], ["L2", true], ["L4", true]] as const) {
    assert.equal((await validate({ ...base, tier: tag, claims: [] })).conforms, ok, tag);
  }
  const reading = handDocs().find((d) => d.name === "meter-reading")!.json;
  for (const cov of ["Whole", "Whole ", "jc:Partial", "partial"]) {
    const r = await validate({ ...reading, energy_coverage: cov });
    assert.ok(
      hasResult(r.results, "jc:energyCoverage", "sh:InConstraintComponent"),
      `coverage ${cov} accepted`,
    );
  }
});

Deno.test("shapes: u64 is bounded exactly (2^64-1 conforms, 2^64 does not), also from request JSON", async () => {
  const base = allDocs().find((d) => d.name.startsWith("jcr1-05"))!.json;
  const text = (v: string) =>
    JSON.stringify({ ...base, joules_uj: 0, tools_touched: [] }).replace(
      '"joules_uj":0',
      `"joules_uj":${v}`,
    );
  assert.equal((await validateDocument(text("18446744073709551615"))).conforms, true);
  const over = await validateDocument(text("18446744073709551616"));
  assert.equal(over.conforms, false);
  assert.ok(hasResult(over.results, "jc:joulesUj", "sh:PatternConstraintComponent"));
  // A float is refused even when JSON.parse would make it an integer-looking number.
  assert.equal((await validateDocument(text("1.5"))).conforms, false);
});

Deno.test("shapes: workspace paths are normalised relative paths (SPEC §11)", async () => {
  const ws = handDocs().find((d) => d.name === "workspace")!.json;
  const withPath = (path: string) => ({
    ...ws,
    entries: [{ path, content_hash: "a".repeat(64), size: 1, kind: "text" }],
  });
  for (const good of ["a", "a/b.md", ".a", "...", "a/..b", "x/.y/z"]) {
    assert.equal((await validate(withPath(good))).conforms, true, good);
  }
  for (
    const bad of ["", "/abs", "a//b", "a/", "./a", "a/./b", "a/..", "../x", ".", "..", "a\u0000b"]
  ) {
    const r = await validate(withPath(bad));
    assert.equal(r.conforms, false, JSON.stringify(bad));
  }
});

Deno.test("shapes: a document no shape targets does not conform vacuously", async () => {
  // JSON-LD with the context but no @type: SHACL alone would say "conforms".
  const r = await validateDocument({
    "@context": "https://jouleclaw.transaction.science/vocab/v1.jsonld",
    tier: "L3",
    joules_uj: 1,
  });
  assert.equal(r.conforms, false);
  assert.equal(r.focus_nodes, 0);
  assert.equal(r.results[0].constraint, "jc:TargetedConstraintComponent");
  // ... and the published report says so too.
  assert.equal(
    JSON.stringify(r.report).includes('"sh:conforms":false'),
    true,
    JSON.stringify(r.report),
  );
  const empty = await validateDocument({
    "@context": "https://jouleclaw.transaction.science/vocab/v1.jsonld",
  });
  assert.equal(empty.conforms, false);
  // A typed root next to an untyped one: the untyped one is reported.
  const two = await validateDocument({
    "@context": "https://jouleclaw.transaction.science/vocab/v1.jsonld",
    "@graph": [{
      "@type": "TreeHead",
      size: 1,
      root: "a".repeat(64),
      timestamp: 1,
      signature: "ab".repeat(64),
      signer: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
    }, { "@id": "urn:x", tier: "L3" }],
  });
  assert.equal(two.conforms, false);
  assert.equal(two.focus_nodes, 1);
  assert.deepEqual(two.results.map((x) => x.focus), ["urn:x"]);
});
