// deno-lint-ignore-file no-explicit-any -- rdf-validate-shacl's RDF/JS dataset is untyped here
// JouleClaw SPEC §15 — which shapes a validation needs (W3C SHACL §2.1.3 targets, §4.8 sh:node,
// §2.3 sh:property).
//
// SHACL validates each shape's focus nodes, and the shapes here target only by sh:targetClass
// (checked when the validator is built). A shape whose target class has no instance in the data
// graph selects no focus node and adds no result, so the report of a graph equals the report over
// the subset of the shapes graph that holds the shapes targeting the classes present, and
// everything those reach (property shapes, sh:node shapes, sh:in and path lists); a shape reached
// only through sh:node keeps its constraints but loses its sh:targetClass, whose class is absent.
// rdf-validate-shacl looks at every targeted shape on every call (≈ 36 here, each a few dataset
// look-ups even when it selects nothing), so one validator per set of present classes, built
// once, does less work for the same report.
//
// The subset is made by deleting the other quads from a validator built over the whole shapes
// graph: the dataset keeps the term numbering of the whole graph, so shapes, constraints and hence
// results come out in the same order as from the whole graph (checked by vocab/subsets_test.ts
// against the whole-graph validator over every document and mutation). A data graph with an
// rdfs:subClassOf triple may make a node an instance of a class it is not typed with (SHACL §2.1.3.3)
// and takes the whole-graph validator.

import SHACLValidator from "rdf-validate-shacl";
import { fastEnvironment } from "./dataset.ts";

const SH = "http://www.w3.org/ns/shacl#";
const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const SUBCLASS = "http://www.w3.org/2000/01/rdf-schema#subClassOf";
const RDFS_CLASS = "http://www.w3.org/2000/01/rdf-schema#Class";

/** How many class sets get a validator of their own (then the whole-graph one answers). */
export const MAX_SUBSETS = 64;

interface RdfTerm {
  termType: string;
  value: string;
}
interface RdfQuad {
  subject: RdfTerm;
  predicate: RdfTerm;
  object: RdfTerm;
  graph: RdfTerm;
}

let env: any;

/**
 * rdf-validate-shacl's default RDF/JS environment with the fast-matching dataset
 * (vocab/dataset.ts); the default is read off a validator over an empty shapes graph, built once.
 */
export function validationEnvironment(): any {
  return env ??= fastEnvironment(new SHACLValidator([] as any).factory);
}

const key = (t: RdfTerm) => `${t.termType === "BlankNode" ? "_:" : ""}${t.value}`;

/** Validators over subsets of one shapes graph, one per set of target classes present in the data. */
export class ShapeSubsets {
  readonly #quads: RdfQuad[];
  readonly #bySubject = new Map<string, RdfQuad[]>();
  /** target class IRI → the shape nodes targeting it */
  readonly #targets = new Map<string, RdfTerm[]>();
  readonly #cache = new Map<string, SHACLValidator>();
  #whole?: SHACLValidator;
  #reference?: SHACLValidator;

  /** `quads`: the shapes graph, in document order. */
  constructor(quads: RdfQuad[]) {
    this.#quads = quads;
    for (const q of quads) {
      const k = key(q.subject);
      (this.#bySubject.get(k) ?? this.#bySubject.set(k, []).get(k)!).push(q);
      const p = q.predicate.value;
      if (p === SH + "targetClass") {
        const c = q.object.value;
        (this.#targets.get(c) ?? this.#targets.set(c, []).get(c)!).push(q.subject);
      } else if (p.startsWith(SH + "target")) {
        throw new Error(
          `Cannot build the validator: only sh:targetClass targets are supported, found ${p}`,
        );
      } else if (p === SUBCLASS || (p === RDF_TYPE && q.object.value === RDFS_CLASS)) {
        // A shape that is also a class targets its instances implicitly (SHACL §2.1.3.2).
        throw new Error(
          `Cannot build the validator: the shapes graph declares classes (${key(q.subject)})`,
        );
      }
    }
  }

  /** The IRIs of the classes some shape targets. */
  get targetClasses(): ReadonlySet<string> {
    return new Set(this.#targets.keys());
  }

  /** The validator over the whole shapes graph (with the fast-matching dataset), built on first use. */
  get whole(): SHACLValidator {
    return this.#whole ??= new SHACLValidator(this.#quads as any, {
      factory: validationEnvironment(),
    });
  }

  /**
   * rdf-validate-shacl exactly as it comes: the whole shapes graph, its default environment and
   * dataset. The reference every other validator here is tested against; built on first use.
   */
  get reference(): SHACLValidator {
    return this.#reference ??= new SHACLValidator(this.#quads as any);
  }

  /**
   * The validator for a data graph: over the shapes targeting the classes its nodes are typed
   * with, or the whole graph when the data declares subclasses or too many class sets were seen.
   */
  validatorFor(data: Iterable<RdfQuad>): SHACLValidator {
    const present = new Set<string>();
    for (const q of data) {
      const p = q.predicate.value;
      if (p === SUBCLASS) return this.whole; // SHACL §2.1.3.3: instances include subclasses'
      if (p === RDF_TYPE && this.#targets.has(q.object.value)) present.add(q.object.value);
    }
    const k = [...present].sort().join(" ");
    const hit = this.#cache.get(k);
    if (hit) return hit;
    if (this.#cache.size >= MAX_SUBSETS) return this.whole;
    const v = this.#build(present);
    this.#cache.set(k, v);
    return v;
  }

  /** The shape nodes reachable from the shapes targeting `classes` (subject → object edges). */
  reachable(classes: Iterable<string>): Set<string> {
    const seen = new Set<string>();
    const todo: RdfTerm[] = [];
    for (const c of classes) todo.push(...(this.#targets.get(c) ?? []));
    while (todo.length) {
      const t = todo.pop()!;
      const k = key(t);
      if (seen.has(k)) continue;
      seen.add(k);
      for (const q of this.#bySubject.get(k) ?? []) {
        if (q.object.termType !== "Literal" && this.#bySubject.has(key(q.object))) {
          todo.push(q.object);
        }
      }
    }
    return seen;
  }

  #build(classes: Set<string>): SHACLValidator {
    const keep = this.reachable(classes);
    const v = new SHACLValidator(this.#quads as any, { factory: validationEnvironment() });
    // Delete, not copy: the dataset keeps the whole graph's term numbering and so its order.
    const ds = (v as any).$shapes.dataset;
    for (const q of this.#quads) {
      // A reachable shape whose class is absent stays for sh:node but selects no focus node.
      const absentTarget = q.predicate.value === SH + "targetClass" && !classes.has(q.object.value);
      if (!keep.has(key(q.subject)) || absentTarget) ds.delete(q);
    }
    return v;
  }
}
