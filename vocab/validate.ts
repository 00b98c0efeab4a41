// JouleClaw SPEC §15 — validating a candidate document (`POST /v1/validate`).
//
// A plain JSON document is typed by its schema tag (or the class the caller names) and given the
// v1 context; a JSON-LD document (one with `@context`) is taken as it is. Either way it becomes RDF
// offline and is validated against the shapes by one validator built once. A tool input that fails
// validation MUST NOT be sent to the tool (SPEC §15): the answer says exactly why.

import { exactIntegers, parseJsonExact, toJsonLd, toQuads } from "./jsonld.ts";
import { fastQuads } from "./fast.ts";
import { reportJsonLd, type ResultJson, ShapeValidator } from "./shacl.ts";

/** Options of `validateDocument`. */
export interface ValidateOptions {
  /** the class of a plain JSON document without a schema tag (e.g. "WorkerHandoff", "TreeHead") */
  cls?: string;
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
  const isJsonLd = typeof json === "object" && json !== null && !Array.isArray(json) &&
    "@context" in json;
  const doc = isJsonLd ? exactIntegers(json) : toJsonLd(json, { cls: opts.cls });
  // Plain documents take the table-driven fast path when every key and value is an expected one.
  const quads = (isJsonLd ? undefined : fastQuads(doc as Record<string, unknown>)) ??
    await toQuads(doc);
  const out = await sharedValidator().validate(quads);
  return {
    conforms: out.conforms,
    focus_nodes: out.focus_nodes,
    results: out.results,
    report: await reportJsonLd(out.reportQuads),
  };
}
