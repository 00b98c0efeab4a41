// deno-lint-ignore-file no-explicit-any -- RDF/JS interop with untyped @rdfjs/dataset internals
// RDF/JS Dataset specification (DatasetCore.match) — @rdfjs/dataset with a cheaper `match`.
//
// rdf-validate-shacl looks everything up through clownface, which calls `dataset.match(s, p, o, g)`
// and iterates the result. @rdfjs/dataset's `match` builds a whole new indexed DatasetCore of the
// matches (three index inserts and a key string per quad) only for it to be iterated once; that
// copy was the largest single cost of a validation. Here `match` returns a `QuadList`: the same
// quads, iterated in exactly the order the copy would iterate them (graph, then subject,
// predicate and object by first appearance in the match list — the copy's term numbering), with
// a real copy made only if the list is read any other way (`has`, `match`, `add`, `delete`).
// The index walk is the same walk without scratch objects, and a match list is remembered by
// pattern until the dataset changes (the validator asks for each property path up to three times
// per focus node: value nodes, sh:minCount, sh:maxCount). Adding and deleting are @rdfjs/dataset's
// own code, so the validator sees the same quads in the same order (vocab/dataset_test.ts checks
// it against @rdfjs/dataset over random graphs, changes and patterns).

const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";

/**
 * The key @rdfjs/dataset 2.0.3 gives a term (its `termToId`, DatasetCore.js, MIT): the order
 * emulation must call two terms equal exactly when it does.
 */
export function termKey(term: any): string {
  if (typeof term === "string") return term;
  if (!term) return "";
  if (typeof term.id !== "undefined" && term.termType !== "Quad") return term.id;
  switch (term.termType) {
    case "NamedNode":
      return term.value;
    case "BlankNode":
      return `_:${term.value}`;
    case "Variable":
      return `?${term.value}`;
    case "DefaultGraph":
      return "";
    case "Literal":
      if (term.language) {
        return `"${term.value}"@${term.language}${term.direction ? `--${term.direction}` : ""}`;
      }
      return `"${term.value}"${
        term.datatype && term.datatype.value !== XSD_STRING ? `^^${term.datatype.value}` : ""
      }`;
    default:
      // Quoted triples (RDF-star) and anything unusual: no emulation, see `needsCopy`.
      return "";
  }
}

/** True when the order emulation does not cover the list and a real copy must be iterated. */
function needsCopy(quads: any[]): boolean {
  for (const q of quads) {
    for (const t of [q.subject, q.predicate, q.object, q.graph]) {
      if (!t || t.termType === "Quad" || t.termType === "Variable") return true;
    }
  }
  return false;
}

/**
 * The order in which `new DatasetCore(quads)` iterates `quads`: graphs in order of first
 * appearance, then subject, predicate, object by their numbers, which are handed out in order of
 * first appearance over (subject, predicate, object) of each quad in turn. (Graph keys that look
 * like array indices iterate first, ECMA-262 §10.1.11, in the dataset matched and in the copy
 * alike, so a match list already has them first and first appearance still gives the order.)
 */
function copyOrder(quads: any[]): any[] {
  const ids = new Map<string, number>();
  const graphs = new Map<string, number>();
  const id = (t: any) => {
    const k = termKey(t);
    let n = ids.get(k);
    if (n === undefined) ids.set(k, n = ids.size + 1);
    return n;
  };
  const keyed = quads.map((q) => {
    const gk = termKey(q.graph);
    let g = graphs.get(gk);
    if (g === undefined) graphs.set(gk, g = graphs.size);
    const s = id(q.subject);
    const p = id(q.predicate);
    const o = id(q.object);
    return { g, s, p, o, q };
  });
  keyed.sort((a, b) => a.g - b.g || a.s - b.s || a.p - b.p || a.o - b.o);
  return keyed.map((k) => k.q);
}

/**
 * An unambiguous key of a match pattern: each position is "-" (any) or its term key prefixed with
 * its length, so no term (an IRI "*", one holding a separator) reads as another pattern; undefined
 * for a quoted triple, whose term key here is not @rdfjs/dataset's.
 */
function patternKey(...terms: any[]): string | undefined {
  let k = "";
  for (const t of terms) {
    if (!t) k += "-";
    else if (t.termType === "Quad") return undefined;
    else {
      const tk = termKey(t);
      k += `${tk.length}:${tk}`;
    }
  }
  return k;
}

/** How many match lists a dataset remembers. */
const MEMO_MAX = 4096;

/** Index layer names → which rotation of (subject, predicate, object) the three keys are. */
const ROTATIONS: Record<string, number> = {
  "subject predicate object": 0,
  "predicate object subject": 1,
  "object subject predicate": 2,
};

const built = new WeakMap<object, { FastDataset: any; QuadList: any }>();

/** The dataset classes over @rdfjs/dataset's DatasetCore class, built once per class. */
function classes(DatasetCore: any): { FastDataset: any; QuadList: any } {
  let c = built.get(DatasetCore);
  if (!c) built.set(DatasetCore, c = define(DatasetCore));
  return c;
}

type DatasetCtor = new (quads?: Iterable<any>) => any;

function define(DatasetCore: DatasetCtor) {
  /** A DatasetCore whose `match` answers a `QuadList`. */
  class FastDataset extends DatasetCore {
    // Match lists by pattern while the dataset is unchanged (a list is never changed in place).
    // Not a class field: DatasetCore's constructor adds the first quads before fields exist.
    declare _memo: Map<string, any[]> | undefined;

    match(subject?: any, predicate?: any, object?: any, graph?: any): QuadList {
      const k = patternKey(subject, predicate, object, graph);
      if (k === undefined) return new QuadList(this._match(subject, predicate, object, graph));
      const memo = this._memo ??= new Map();
      let quads = memo.get(k);
      if (quads === undefined) {
        quads = this._match(subject, predicate, object, graph);
        if (memo.size < MEMO_MAX) memo.set(k, quads!);
      }
      return new QuadList(quads!);
    }

    add(quad: any): this {
      this._memo?.clear();
      return super.add(quad);
    }

    delete(quad: any): this {
      this._memo?.clear();
      return super.delete(quad);
    }

    /**
     * @rdfjs/dataset's three-level index walk, the same visits in the same order (an object's
     * own keys: array indices ascending, ECMA-262 §10.1.11.1 — the term numbers here), without
     * the scratch objects it builds for a bound key and for each quad's parts.
     */
    _findInIndex(
      index0: any,
      key0: any,
      key1: any,
      key2: any,
      name0: string,
      name1: string,
      name2: string,
      graph: string,
      callback: ((q: any) => boolean) | null,
      array: any[] | null,
    ): any {
      const rot = ROTATIONS[`${name0} ${name1} ${name2}`];
      if (rot === undefined) {
        return super._findInIndex(
          index0,
          key0,
          key1,
          key2,
          name0,
          name1,
          name2,
          graph,
          callback,
          array,
        );
      }
      const keys0 = key0 ? [key0] : Object.keys(index0);
      for (let i = 0; i < keys0.length; i++) {
        const v0 = keys0[i];
        const index1 = index0[v0];
        if (!index1) continue;
        const keys1 = key1 ? [key1] : Object.keys(index1);
        for (let j = 0; j < keys1.length; j++) {
          const v1 = keys1[j];
          const index2 = index1[v1];
          if (!index2) continue;
          const keys2 = key2 ? (key2 in index2 ? [key2] : []) : Object.keys(index2);
          for (let l = 0; l < keys2.length; l++) {
            const v2 = keys2[l];
            const quad = rot === 0
              ? this._getQuad(v0, v1, v2, graph)
              : rot === 1
              ? this._getQuad(v2, v0, v1, graph)
              : this._getQuad(v1, v2, v0, graph);
            if (array) array.push(quad);
            else if (callback!(quad)) return true;
          }
        }
      }
      return array;
    }
  }

  /** The result of a match: iterated in the copy's order; copied for anything else. */
  class QuadList {
    /** the matches in index order: what the copy is built from */
    readonly #quads: any[];
    #ordered?: any[];
    #copy: any;

    constructor(quads: any[]) {
      this.#quads = quads;
    }

    #real(): any {
      return this.#copy ??= new FastDataset(this.#quads);
    }

    get size(): number {
      return this.#copy ? this.#copy.size : this.#quads.length;
    }

    [Symbol.iterator](): Iterator<any> {
      if (this.#copy) return this.#copy[Symbol.iterator]();
      if (this.#quads.length < 2) return this.#quads[Symbol.iterator]();
      if (!this.#ordered) {
        if (needsCopy(this.#quads)) return this.#real()[Symbol.iterator]();
        this.#ordered = copyOrder(this.#quads);
      }
      return this.#ordered[Symbol.iterator]();
    }

    has(quad: any): boolean {
      return this.#real().has(quad);
    }

    match(subject?: any, predicate?: any, object?: any, graph?: any): QuadList {
      return this.#real().match(subject, predicate, object, graph);
    }

    add(quad: any): this {
      this.#real().add(quad);
      return this;
    }

    delete(quad: any): this {
      this.#real().delete(quad);
      return this;
    }
  }
  return { FastDataset, QuadList };
}

/**
 * An RDF/JS environment like `base` (rdf-validate-shacl's default: data model, @rdfjs/dataset,
 * namespaces, clownface, term maps) whose `dataset()` builds the fast-matching DatasetCore. Pass
 * it as the validator's `factory` and build the data graph with its `dataset()`.
 */
export function fastEnvironment(base: any): any {
  const { FastDataset } = classes(base.dataset().constructor);
  const env = Object.create(base);
  env.dataset = (quads?: Iterable<any>) => new FastDataset(quads);
  // clownface asks for the rdf: and xsd: namespace builders on every pointer it makes; a builder
  // is a stateless function of its base IRI, so one per base serves them all.
  const builders = new Map<string, unknown>();
  env.namespace = function (baseIRI: string) {
    let b = builders.get(baseIRI);
    if (b === undefined) {
      b = base.namespace.call(this, baseIRI);
      if (builders.size < 64) builders.set(baseIRI, b);
    }
    return b;
  };
  return env;
}

/** The DatasetCore class `fastEnvironment` derives from `base` (for tests). */
export function fastDatasetClass(base: any): any {
  return classes(base.dataset().constructor).FastDataset;
}
