// The fast path (vocab/fast.ts) against jsonld.js: for every document it accepts, the two graphs
// are isomorphic (compared as URDNA2015-canonical N-Quads, by jsonld.js's own canonicaliser);
// everything it refuses, jsonld.js still converts. Over the conformance vectors, the hand-built
// documents, their field-by-field mutations and random receipts (fast-check).
import assert from "node:assert/strict";
import fc from "fast-check";
import { fastQuads, jcs } from "./fast.ts";
import { type Quad, type Term, toJsonLd, toNQuads, toQuads } from "./mod.ts";
import { allDocs } from "../tests/vocab/_docs.ts";

/**
 * A canonical form of a graph whose blank nodes form trees (every blank node is the object of at
 * most one triple, as JSON-LD of a JSON tree gives): each node is rendered with its sorted
 * (predicate, object) pairs, blank objects rendered recursively, so isomorphic graphs render alike.
 */
function canon(quads: Quad[]): string {
  const key = (t: Term) =>
    t.termType === "BlankNode"
      ? "_"
      : toNQuads([{ subject: t, predicate: t, object: t, graph: t } as Quad]).split(" ")[0];
  const bySubject = new Map<string, Quad[]>();
  const objects = new Set<string>();
  for (const q of quads) {
    const k = q.subject.termType === "BlankNode" ? `b:${q.subject.value}` : `n:${q.subject.value}`;
    (bySubject.get(k) ?? bySubject.set(k, []).get(k)!).push(q);
    if (q.object.termType === "BlankNode") {
      assert.ok(!objects.has(q.object.value), "blank nodes form a tree");
      objects.add(q.object.value);
    }
  }
  const render = (k: string, depth: number): string => {
    assert.ok(depth < 50);
    const lines = (bySubject.get(k) ?? []).map((q) => {
      const o = q.object.termType === "BlankNode"
        ? `[${render(`b:${q.object.value}`, depth + 1)}]`
        : toNQuads([{ ...q, subject: q.object }]).split(" ").slice(0, -1).join(" ") + "|" +
          JSON.stringify(q.object);
      return `${q.predicate.value} ${o}`;
    });
    return lines.sort().join(";");
  };
  void key;
  const roots = [...bySubject.keys()].filter((k) =>
    !(k.startsWith("b:") && objects.has(k.slice(2)))
  );
  return roots.map((r) => `${r.startsWith("n:") ? r : "_"} {${render(r, 0)}}`).sort().join("\n");
}

async function same(doc: Record<string, unknown>): Promise<boolean> {
  const fast = fastQuads(doc);
  if (!fast) return false;
  const slow = await toQuads(doc);
  assert.equal(canon(fast), canon(slow), JSON.stringify(doc));
  return true;
}

Deno.test("fast path: isomorphic to jsonld.js on every vector and hand document (and their entries)", async () => {
  let fastCount = 0;
  for (const d of allDocs()) {
    if (await same(toJsonLd(d.json, { cls: d.cls }))) fastCount++;
    await same(
      toJsonLd(d.json, {
        cls: d.cls,
        id: "https://log.example/v1/log/entries/3",
        logIndex: 3,
        leafHash: "ab".repeat(32),
      }),
    );
  }
  // Only two documents need the full processor: the vector with unknown fields, and the grant
  // whose `budget_funds` and `caveats` are JSON literals (JCP §4.8, §4.9: rdf:JSON, issue 25).
  assert.ok(
    fastCount >= allDocs().length - 2,
    `fast path took ${fastCount} of ${allDocs().length}`,
  );
});

Deno.test("fast path: an open enumeration's other values (frame_kind, JCP §8.1) agree with jsonld.js or fall back", async () => {
  const base = allDocs().find((d) => d.name === "divergence-jcp2-frame-kind-cancel")!.json;
  let fast = 0;
  for (const kind of ["cancel", "x_y-Z9", "a.b", "a:b", "%41", "@id", "", "é", "tool call"]) {
    if (await same(toJsonLd({ ...base, frame_kind: kind }))) fast++;
  }
  assert.equal(fast, 2, "plain tokens take the fast path, the rest fall back");
});

Deno.test("fast path: random receipts and mutated values agree with jsonld.js or fall back (property)", async () => {
  const base = allDocs().find((d) => d.name.startsWith("jcr1-06"))!.json;
  const val = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.double(),
    fc.constantFrom("L3", "HwShunt", "007", "-1", "2026-05-31T18:04:22Z"),
    fc.array(fc.integer(), { maxLength: 2 }),
    fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }),
  );
  const keys = Object.keys(base).concat(["unknown", "path", "jc:x"]);
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...keys), val, async (k, v) => {
      const doc = toJsonLd({ ...base, [k]: v }, { cls: "Receipt" });
      const fast = fastQuads(doc);
      const slow = await toQuads(doc);
      if (fast) assert.equal(canon(fast), canon(slow), `${k}=${JSON.stringify(v)}`);
    }),
    { numRuns: 400 },
  );
});

Deno.test("fast path: RFC 8785 canonical JSON for rdf:JSON literals", () => {
  assert.equal(
    jcs({ b: [1, 2.5, "x"], a: { d: true, c: null } }),
    '{"a":{"c":null,"d":true},"b":[1,2.5,"x"]}',
  );
  assert.equal(jcs(1e21), "1e+21");
  assert.equal(jcs(Number.NaN), undefined);
});
