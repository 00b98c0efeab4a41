// deno-lint-ignore-file no-explicit-any -- rdf-validate-shacl's shapes graph is untyped here
// JouleClaw SPEC §15 — which shapes a validation must visit (W3C SHACL §2.1.3 targets).
//
// SHACL validates each shape's focus nodes, and the shapes here target only by sh:targetClass
// (checked when the validator is built). A shape whose target class has no instance in the data
// graph selects no focus node and adds no result. rdf-validate-shacl nevertheless visits every
// targeted shape on every call (36 here, each a few look-ups in the shapes and data graphs), so the
// validator here visits only the shapes targeting a class some node of the data is typed with: its
// `shapesWithTarget` (the list rdf-validate-shacl's engine walks at the start of a validation)
// answers the whole list filtered, in its order, for the data graph being validated. Every other
// part — sh:node and sh:property shapes, constraints, messages, the report — is untouched, so the
// report is the whole graph's, result for result and in the same order (vocab/targets_test.ts
// checks it against rdf-validate-shacl exactly as it comes over every document and mutation).
//
// A data graph with an rdfs:subClassOf triple may make a node an instance of a class it is not
// typed with (SHACL §2.1.3.3): it is validated against every targeted shape.

import SHACLValidator from "rdf-validate-shacl";
import { fastEnvironment } from "./dataset.ts";

const SH = "http://www.w3.org/ns/shacl#";
const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const SUBCLASS = "http://www.w3.org/2000/01/rdf-schema#subClassOf";
const RDFS_CLASS = "http://www.w3.org/2000/01/rdf-schema#Class";

const key = (t: RdfTerm) => `${t.termType === "BlankNode" ? "_:" : ""}${t.value}`;

/** How many distinct sets of present classes keep their filtered shape list. */
const MAX_LISTS = 256;

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

/** A validator over one shapes graph that visits only the shapes the data's classes select. */
export class TargetSelection {
  readonly #quads: RdfQuad[];
  /** shape node → the classes it targets */
  readonly #targetsOf = new Map<string, string[]>();
  readonly #classes = new Set<string>();
  /** data graph → the target classes present (absent: visit every targeted shape) */
  readonly #present = new WeakMap<object, Set<string>>();
  readonly #lists = new Map<string, any[]>();
  readonly #all: any[];
  readonly #validator: SHACLValidator;
  #reference?: SHACLValidator;

  /** `quads`: the shapes graph. */
  constructor(quads: RdfQuad[]) {
    this.#quads = quads;
    for (const q of quads) {
      const p = q.predicate.value;
      if (p === SH + "targetClass") {
        const k = key(q.subject);
        (this.#targetsOf.get(k) ?? this.#targetsOf.set(k, []).get(k)!).push(q.object.value);
        this.#classes.add(q.object.value);
      } else if (p.startsWith(SH + "target")) {
        throw new Error(
          `Cannot build the validator: only sh:targetClass targets are supported, found ${p}`,
        );
      } else if (p === SUBCLASS || (p === RDF_TYPE && q.object.value === RDFS_CLASS)) {
        // A shape that is also a class targets its instances implicitly (SHACL §2.1.3.2).
        throw new Error(
          `Cannot build the validator: the shapes graph declares classes (${q.subject.value})`,
        );
      }
    }
    this.#validator = new SHACLValidator(quads as any, { factory: validationEnvironment() });
    const graph: any = this.#validator.shapesGraph;
    const all: any[] = graph.shapesWithTarget;
    this.#all = all;
    Object.defineProperty(graph, "shapesWithTarget", {
      configurable: true,
      get: () => this.#shapesFor((this.#validator as any).$data?.dataset),
    });
  }

  /** The shape nodes the validator visits for a data graph, in its order. */
  shapesFor(data: object): string[] {
    return this.#shapesFor(data).map((s: any) => key(s.shapeNode));
  }

  #shapesFor(data: object | undefined): any[] {
    const present = data && this.#present.get(data);
    return present ? this.#select(present) : this.#all;
  }

  /** The IRIs of the classes some shape targets. */
  get targetClasses(): ReadonlySet<string> {
    return this.#classes;
  }

  /** The validator (fast-matching dataset, shapes selected per data graph). */
  get validator(): SHACLValidator {
    return this.#validator;
  }

  /**
   * rdf-validate-shacl exactly as it comes: the whole shapes graph, its default environment and
   * dataset, every targeted shape visited. The reference the validator is tested against; built on
   * first use.
   */
  get reference(): SHACLValidator {
    return this.#reference ??= new SHACLValidator(this.#quads as any);
  }

  /**
   * Notes which target classes `data` (a dataset built with `validationEnvironment()`) has
   * instances of, from its quads `quads`, before `validator.validate(data)`.
   */
  prepare(data: object, quads: Iterable<RdfQuad>): void {
    const present = new Set<string>();
    for (const q of quads) {
      const p = q.predicate.value;
      if (p === SUBCLASS) return; // SHACL §2.1.3.3: instances include subclasses' — visit all
      if (p === RDF_TYPE && this.#classes.has(q.object.value)) present.add(q.object.value);
    }
    this.#present.set(data, present);
  }

  /** The targeted shapes, in the engine's order, whose classes are present. */
  #select(present: Set<string>): any[] {
    const k = [...present].sort().join(" ");
    let list = this.#lists.get(k);
    if (!list) {
      list = this.#all.filter((s) =>
        (this.#targetsOf.get(key(s.shapeNode)) ?? []).some((c) => present.has(c))
      );
      if (this.#lists.size < MAX_LISTS) this.#lists.set(k, list);
    }
    return list;
  }
}
