// The fast-matching dataset (vocab/dataset.ts) against @rdfjs/dataset itself: over random graphs
// drawn from a small alphabet (so terms recur as subject, predicate, object and graph, literals
// differ only by datatype or language, graphs include one whose key looks like an array index),
// random additions and deletions, and random patterns, every `match` must give the same quads in
// the same order, the same size and `has`, also when its result is matched again or changed, and
// again after the dataset itself changed (remembered match lists).
import assert from "node:assert/strict";
import fc from "fast-check";
import SHACLValidator from "rdf-validate-shacl";
import { fastDatasetClass, termKey } from "./dataset.ts";

// deno-lint-ignore no-explicit-any
const env: any = new SHACLValidator([] as never).factory;
const Fast = fastDatasetClass(env);
const XSD = "http://www.w3.org/2001/XMLSchema#";

const nodes = [
  env.namedNode("urn:a"),
  env.namedNode("urn:b"),
  env.namedNode("urn:c"),
  env.blankNode("x"),
  env.blankNode("y"),
  env.namedNode("><"), // @rdfjs/dataset's placeholder key (numbered like any other once used)
  env.namedNode("*"), // looks like a wildcard
  env.namedNode("urn:a\u0000*"), // looks like a separator and a wildcard
];
const literals = [
  env.literal("1"),
  env.literal("1", env.namedNode(XSD + "string")),
  env.literal("1", env.namedNode(XSD + "integer")),
  env.literal("1", "en"),
  env.literal("urn:a"),
  env.quad(env.namedNode("urn:a"), env.namedNode("urn:b"), env.literal("q")), // RDF-star
  env.quad(env.namedNode("urn:a"), env.namedNode("urn:b"), env.literal("r")),
];
const graphs = [env.defaultGraph(), env.namedNode("urn:g"), env.namedNode("7")];

const arbQuad = fc.record({
  s: fc.constantFrom(...nodes),
  p: fc.constantFrom(...nodes.slice(0, 3), nodes[5]),
  o: fc.constantFrom(...nodes, ...literals),
  g: fc.oneof(
    { weight: 4, arbitrary: fc.constant(graphs[0]) },
    { weight: 1, arbitrary: fc.constantFrom(...graphs) },
  ),
}).map(({ s, p, o, g }) => env.quad(s, p, o, g));

const pick = <T>(xs: T[]) => fc.option(fc.constantFrom(...xs), { nil: null, freq: 2 });
const arbPattern = fc.tuple(
  pick(nodes),
  pick(nodes.slice(0, 3)),
  pick([...nodes, ...literals]),
  pick(graphs),
);

// deno-lint-ignore no-explicit-any
const ids = (ds: any) => [...ds];

Deno.test("dataset: match gives @rdfjs/dataset's quads in its order (property)", () => {
  fc.assert(
    fc.property(
      fc.array(arbQuad, { maxLength: 30 }),
      fc.array(arbQuad, { maxLength: 6 }),
      fc.array(arbPattern, { minLength: 1, maxLength: 6 }),
      arbPattern,
      arbQuad,
      (quads, deletions, patterns, inner, extra) => {
        const real = env.dataset(quads);
        const fast = new Fast(quads);
        for (const d of deletions) {
          real.delete(d);
          fast.delete(d);
        }
        assert.equal(fast.size, real.size);
        assert.deepEqual(ids(fast), ids(real));
        for (const [s, p, o, g] of patterns) {
          const a = real.match(s, p, o, g);
          const b = fast.match(s, p, o, g);
          assert.equal(b.size, a.size);
          assert.deepEqual(ids(b), ids(a), `match ${[s, p, o, g].map(termKey)}`);
          // A result matched again, asked `has`, and changed.
          assert.deepEqual(ids(b.match(...inner)), ids(a.match(...inner)));
          assert.equal(b.has(extra), a.has(extra));
          a.add(extra);
          b.add(extra);
          assert.deepEqual(ids(b), ids(a));
          assert.equal(b.size, a.size);
          a.delete(extra);
          b.delete(extra);
          assert.deepEqual(ids(b), ids(a));
        }
        // Remembered match lists are forgotten when the dataset changes.
        for (const change of ["add", "delete"] as const) {
          real[change](extra);
          fast[change](extra);
          for (const [s, p, o, g] of patterns) {
            assert.deepEqual(ids(fast.match(s, p, o, g)), ids(real.match(s, p, o, g)), change);
          }
        }
      },
    ),
    { numRuns: 400 },
  );
});

Deno.test("dataset: term keys are @rdfjs/dataset's (simple literal = xsd:string)", () => {
  assert.equal(termKey(env.literal("a")), termKey(env.literal("a", env.namedNode(XSD + "string"))));
  assert.notEqual(termKey(env.literal("1")), termKey(env.literal("1", "en")));
  assert.equal(termKey(env.blankNode("q")), "_:q");
  assert.equal(termKey(env.defaultGraph()), "");
  // Iterating a match result twice gives the same order.
  const ds = new Fast([
    env.quad(nodes[1], nodes[0], nodes[2]),
    env.quad(nodes[0], nodes[0], nodes[1]),
  ]);
  const m = ds.match(null, nodes[0]);
  assert.deepEqual(ids(m), ids(m));
  assert.deepEqual(ids(m), ids(env.dataset([...ds]).match(null, nodes[0])));
  // Patterns that only differ in a quoted triple, or in a term that looks like a wildcard, are
  // different patterns.
  const [q1, q2] = literals.slice(-2);
  const star = new Fast([env.quad(nodes[0], nodes[1], q1), env.quad(nodes[0], nodes[1], q2)]);
  assert.deepEqual(ids(star.match(null, null, q1)), [env.quad(nodes[0], nodes[1], q1)]);
  assert.deepEqual(ids(star.match(null, null, q2)), [env.quad(nodes[0], nodes[1], q2)]);
  const wild = new Fast([env.quad(nodes[0], nodes[1], nodes[2])]);
  assert.equal(wild.match(env.namedNode("*")).size, 0);
  assert.equal(wild.match(null).size, 1);
});
