// JouleClaw SPEC §15 — validating a candidate document (`POST /v1/validate`).
//
// A plain JSON document is typed by its schema tag (or the class the caller names) and given the
// v1 context; a JSON-LD document (one with `@context`) is taken as it is. Either way it becomes RDF
// offline and is validated against the shapes by one validator built once. A tool input that fails
// validation MUST NOT be sent to the tool (SPEC §15): the answer says exactly why.

import { exactIntegers, parseJsonExact, toJsonLd, toQuads, VocabError } from "./jsonld.ts";
import { fastQuads } from "./fast.ts";
import { reportJsonLd, type ResultJson, ShapeValidator } from "./shacl.ts";
import { validationEnvironment } from "./targets.ts";
import { CONTEXT_URL } from "./schema/mod.ts";

/** Options of `validateDocument`. */
export interface ValidateOptions {
  /** the class of a plain JSON document without a schema tag (e.g. "WorkerHandoff", "TreeHead") */
  cls?: string;
  /**
   * Most nodes the document may hold (issue 15: bounded work per request): JSON objects and array
   * members before JSON-LD expansion, distinct subjects after; more is refused with VocabError
   * "validate-too-many-nodes" before any shape runs.
   */
  maxNodes?: number;
}

/** Nodes a JSON value may become: every object and every array member (an rdf:List node). */
export function jsonNodeCount(v: unknown, stopAt = Infinity): number {
  let n = 0;
  const stack: unknown[] = [v];
  while (stack.length > 0 && n <= stopAt) {
    const x = stack.pop();
    if (Array.isArray(x)) {
      n += x.length;
      for (const y of x) if (y !== null && typeof y === "object") stack.push(y);
    } else if (x !== null && typeof x === "object") {
      n++;
      for (const y of Object.values(x)) if (y !== null && typeof y === "object") stack.push(y);
    }
  }
  return n;
}

function tooMany(n: string, max: number): never {
  throw new VocabError(
    "validate-too-many-nodes",
    `Cannot validate a document of ${n} nodes: at most ${max} (validate_max_nodes, docs/CONFIG.md)`,
  );
}

/** The answer of `POST /v1/validate`. */
export interface ValidateAnswer {
  conforms: boolean;
  /** how many nodes the shapes targeted (0 means nothing was checked) */
  focus_nodes: number;
  results: ResultJson[];
  /** the sh:ValidationReport as JSON-LD */
  report: Record<string, unknown>;
}

let shared: ShapeValidator | undefined;

/** The validator over the published shapes, built on first use and then reused. */
export function sharedValidator(): ShapeValidator {
  return shared ??= new ShapeValidator();
}

/**
 * Validates a document given as JSON text (integers beyond 2^53-1 kept exact) or as an already
 * parsed value. Throws `VocabError` only when the input cannot be turned into RDF at all
 * ("bad-json", "not-an-object", "unknown-document-type", "context-not-available", "invalid-jsonld").
 */
export async function validateDocument(
  input: string | unknown,
  opts: ValidateOptions = {},
): Promise<ValidateAnswer> {
  const json = typeof input === "string" ? parseJsonExact(input) : input;
  const max = opts.maxNodes ?? Infinity;
  if (max < Infinity && jsonNodeCount(json, max) > max) tooMany(`more than ${max}`, max);
  const isJsonLd = typeof json === "object" && json !== null && !Array.isArray(json) &&
    "@context" in json;
  const doc = isJsonLd ? exactIntegers(json) : toJsonLd(json, { cls: opts.cls });
  // Plain documents take the table-driven fast path when every key and value is an expected one.
  const quads = (isJsonLd ? undefined : fastQuads(doc as Record<string, unknown>)) ??
    await toQuads(doc);
  if (max < Infinity) {
    const subjects = new Set<string>();
    for (const q of quads) subjects.add(`${q.subject.termType}:${q.subject.value}`);
    if (subjects.size > max) tooMany(String(subjects.size), max);
  }
  const out = await sharedValidator().validate(quads);
  return {
    conforms: out.conforms,
    focus_nodes: out.focus_nodes,
    results: out.results,
    report: await reportJsonLd(out.reportQuads),
  };
}

/**
 * Two small documents, one per path (a plain document by its class; JSON-LD under the context),
 * validated before a Worker says it is ready: the shapes, the context and the JIT are warm, so a
 * job's time limit never pays a fresh Worker's first-use costs (200-330 ms on a quiet machine;
 * with `validate_timeout_ms` below them each replacement Worker's first job was ended in turn).
 * The validation environment's blank-node counter is put back afterwards: a report's labels come
 * from it, and a warmed Worker must answer the same bytes as a fresh one, the edge, or the event
 * loop (tests/edge/parity_test.ts).
 */
export async function warmUpValidation(maxNodes: number): Promise<void> {
  sharedValidator(); // built first: a fresh process counts its shapes' nodes before any report
  const data = (validationEnvironment() as { _data?: { blankNodeCounter?: number } })._data;
  const counter = data?.blankNodeCounter;
  const docs: [string, string | undefined][] = [
    [JSON.stringify({ size: 1 }), "TreeHead"],
    [
      JSON.stringify({ "@context": CONTEXT_URL, "@id": "_:w", "@type": "Receipt", tier: "L9" }),
      undefined,
    ],
  ];
  for (const [text, cls] of docs) await validateDocument(text, { cls, maxNodes });
  if (data && counter !== undefined) data.blankNodeCounter = counter;
}
