// deno-lint-ignore-file no-explicit-any -- untyped interop with jsonld.js / rdf-validate-shacl internals
// JouleClaw SPEC §13 — JSON documents as JSON-LD, and JSON-LD as RDF quads, entirely offline.
//
// `toJsonLd` turns the JSON projection of a receipt (verify/'s `toJson`) or any other JouleClaw
// document into JSON-LD: it adds `@context` (the v1 context URL), `@id` when the caller names the
// node (a log entry's URL), and `@type` on the document and on every nested object whose class the
// schema knows, so each node is targeted by its shape. The JSON-LD processor (jsonld.js) then
// expands it to RDF; its document loader serves the v1 context from memory and refuses every
// other URL, so converting never touches the network.
import { CodedError } from "../net/mod.ts";

import jsonld from "jsonld";
import { V1_JSONLD } from "./assets.ts";
import { CLASS_BY_NAME, type ClassDef, CLASSES, CONTEXT_URL, ENUM_BY_NAME } from "./schema/mod.ts";

/** A malformed document or an impossible conversion; `code` is stable (docs/RDF.md). */
export class VocabError extends CodedError {
  /** `code`: stable reason code. */
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(code, message, "internal", options);
    this.name = "VocabError";
  }
}

/** An RDF term as jsonld.js produces it (RDF/JS shaped plain object). */
export interface Term {
  termType: "NamedNode" | "BlankNode" | "Literal" | "DefaultGraph";
  value: string;
  datatype?: { termType: "NamedNode"; value: string };
  language?: string;
}

/** One RDF quad. */
export interface Quad {
  subject: Term;
  predicate: Term;
  object: Term;
  graph: Term;
}

const CONTEXT_DOC = JSON.parse(V1_JSONLD);

/** URLs the offline loader answers: the published context (SPEC §13) and nothing else. */
export const KNOWN_CONTEXTS: ReadonlySet<string> = new Set([CONTEXT_URL]);

/**
 * The JSON-LD document loader: the v1 context from memory; any other URL is refused without a
 * request (a JSON-LD processor must never fetch what a submitted document names).
 */
export function documentLoader(
  url: string,
): Promise<{ contextUrl: null; documentUrl: string; document: unknown }> {
  if (KNOWN_CONTEXTS.has(url)) {
    return Promise.resolve({ contextUrl: null, documentUrl: url, document: CONTEXT_DOC });
  }
  return Promise.reject(
    new VocabError(
      "context-not-available",
      `Cannot load JSON-LD context ${url}: this processor never fetches remote documents; only ${CONTEXT_URL} is available`,
    ),
  );
}

/** The class a top-level JSON document is, by its schema discriminator (e.g. `jc_receipt: "1"`). */
export function classify(json: Record<string, unknown>): ClassDef | undefined {
  for (const c of CLASSES) {
    if (c.discriminator && json[c.discriminator.key] === c.discriminator.value) return c;
  }
  return undefined;
}

/** Options of `toJsonLd`. */
export interface ToJsonLdOptions {
  /** the node's IRI (`@id`), e.g. the log entry's URL */
  id?: string;
  /** the class, for documents without a discriminator (WorkerHandoff, TreeHead) */
  cls?: string;
  /** log facts about the entry (API.md `GET /v1/log/export`) */
  logIndex?: number;
  leafHash?: string;
  /** Issue 30: the envelope's content id (hex) and the entry's integration time (ms). */
  contentId?: string;
  integratedAt?: number;
  /** the entry's verdict class (JCR-1 §6, SPEC §6), as `verification_verdict` */
  verdict?: string;
  /** Issue 23: the IRI of the configuration entry the entry was judged under. */
  verifierConfig?: string;
  /** embed the context object instead of referencing its URL */
  embedContext?: boolean;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/** A bigint as a JSON-LD value object: an exact integer literal (JSON numbers stop at 2^53-1). */
function bigValue(v: bigint): Record<string, string> {
  const dt = v < 0n ? "xsd:integer" : "xsd:nonNegativeInteger";
  return { "@value": v.toString(), "@type": `http://www.w3.org/2001/XMLSchema#${dt.slice(4)}` };
}

/**
 * Replaces every bigint of a JSON-LD document (as `parseJsonExact` produces them) by an exact
 * integer value object, which jsonld.js can process.
 */
export function exactIntegers(v: unknown): unknown {
  if (typeof v === "bigint") return bigValue(v);
  if (Array.isArray(v)) return v.map(exactIntegers);
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = exactIntegers(x);
    return out;
  }
  return v;
}

/** JSON-safe copy of a plain JSON document: bigint → exact integer literal, `@`-keys dropped. */
function plain(v: unknown): unknown {
  if (typeof v === "bigint") return bigValue(v);
  if (Array.isArray(v)) return v.map(plain);
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    // A plain JSON document carries no JSON-LD keywords: an `@`-key would otherwise be obeyed.
    for (const [k, x] of Object.entries(v)) if (!k.startsWith("@")) out[k] = plain(x);
    return out;
  }
  return v;
}

/** Adds `@type` to every nested object whose class the schema knows (in place, on a fresh copy). */
function typeNested(obj: Record<string, unknown>, c: ClassDef): void {
  const fields = c.kinds
    ? (CLASS_BY_NAME.get(c.kinds[String(obj["kind"])] ?? "")?.fields ?? [])
    : c.fields;
  for (const f of fields) {
    if (f.range.t === "enum") {
      // An enumeration value that is not a tag still becomes an IRI (…/unknown/<prop>#<value>), so
      // sh:in refuses it. Percent-encoding keeps that IRI valid (JSON-LD drops a triple whose IRI
      // is not, which would let an optional field vanish) and keeps "jc:Model" from reading as a
      // compact IRI of a real individual.
      const e = ENUM_BY_NAME.get(f.range.e)!;
      const v = obj[f.key];
      if (typeof v === "string" && !e.values.some((x) => x.tag === v)) {
        obj[f.key] = encodeURIComponent(v);
      }
      continue;
    }
    if (f.range.t !== "node") continue;
    const inner = CLASS_BY_NAME.get(f.range.c)!;
    const v = obj[f.key];
    const members = f.list && Array.isArray(v) ? v : [v];
    for (const m of members) {
      if (!isPlainObject(m)) continue;
      if (inner.kinds && typeof m["kind"] === "string" && !(m["kind"] in inner.kinds)) {
        m["kind"] = encodeURIComponent(m["kind"]); // an unknown variant: still an IRI, refused by sh:in
      }
      // A `kinds` class takes its type from `kind` (aliased to @type by the context).
      if (!inner.kinds) m["@type"] = inner.name;
      typeNested(m, inner);
    }
  }
}

/**
 * The JSON-LD form of a JouleClaw JSON document (SPEC §13): the document with `@context`,
 * `@type` on it and on its nested objects, and `@id` when given. Throws `VocabError`
 * ("not-an-object", "unknown-document-type") when the document's class cannot be told.
 *
 * @example
 * ```ts
 * const doc = toJsonLd({ jc_receipt: "1", tier: "L3", joules_uj: 5 }, { id: "https://x/v1/log/entries/0" });
 * // doc["@type"] === "Receipt"; the context maps tier "L3" to jc:Model
 * ```
 */
export function toJsonLd(json: unknown, opts: ToJsonLdOptions = {}): Record<string, unknown> {
  if (!isPlainObject(json)) {
    throw new VocabError(
      "not-an-object",
      "Cannot convert to JSON-LD: the document is not a JSON object",
    );
  }
  let c: ClassDef | undefined;
  if (opts.cls !== undefined) {
    c = CLASS_BY_NAME.get(opts.cls);
    if (!c || c.kinds || c.noShape) {
      throw new VocabError(
        "unknown-document-type",
        `Cannot convert to JSON-LD: ${opts.cls} is not a document class of the vocabulary`,
      );
    }
  } else {
    c = classify(json);
    if (!c) {
      const tag = ["jc_receipt", "jcp_receipt", "jc_workspace", "jc_contract", "jc_verdict"].find((
        k,
      ) => k in json);
      throw new VocabError(
        "unknown-document-type",
        tag
          ? `Cannot convert to JSON-LD: ${tag} ${
            JSON.stringify(json[tag])
          } is not a schema of the vocabulary`
          : "Cannot convert to JSON-LD: the document has no schema tag (jc_receipt, jcp_receipt, jc_workspace, jc_contract, jc_verdict); name its class",
      );
    }
  }
  const body = plain(json) as Record<string, unknown>;
  typeNested(body, c);
  const out: Record<string, unknown> = {
    "@context": opts.embedContext ? CONTEXT_DOC["@context"] : CONTEXT_URL,
  };
  if (opts.id !== undefined) out["@id"] = opts.id;
  out["@type"] = c.name;
  Object.assign(out, body);
  if (opts.logIndex !== undefined) out["log_index"] = opts.logIndex;
  if (opts.leafHash !== undefined) out["leaf_hash"] = opts.leafHash;
  if (opts.contentId !== undefined) out["content_id"] = opts.contentId;
  if (opts.integratedAt !== undefined) out["integrated_at"] = opts.integratedAt;
  if (opts.verdict !== undefined) out["verification_verdict"] = opts.verdict;
  if (opts.verifierConfig !== undefined) out["verifier_config"] = { "@id": opts.verifierConfig };
  return out;
}

/**
 * RDF quads of a JSON-LD document (JSON-LD 1.1 §8 "Deserialize JSON-LD to RDF"), offline. Relative
 * IRIs are dropped as JSON-LD specifies; contexts other than the v1 context are refused
 * (`VocabError` "context-not-available"); other processing errors are "invalid-jsonld".
 */
export async function toQuads(doc: unknown): Promise<Quad[]> {
  try {
    const quads = await jsonld.toRDF(
      doc as any,
      { documentLoader: documentLoader as any, base: null } as any,
    ) as unknown as (Quad | { subject: null; predicate: null; object: null })[];
    // JSON-LD 1.1 API §8.5 (List to RDF): "unless object is null" a list item gets its rdf:first;
    // jsonld.js emits that triple with a null object for an item that converts to nothing (a
    // relative IRI such as "" under `@type: @id`), which no RDF consumer can take.
    return quads.filter((q): q is Quad => !!(q.subject && q.predicate && q.object));
  } catch (e) {
    throw asVocabError(e);
  }
}

function asVocabError(e: unknown): VocabError {
  if (e instanceof VocabError) return e;
  // jsonld.js wraps loader failures: find ours in the cause chain.
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur && typeof cur === "object"; i++) {
    if (cur instanceof VocabError) return cur;
    const o = cur as { cause?: unknown; details?: { cause?: unknown } };
    cur = o.details?.cause ?? o.cause;
  }
  const msg = e instanceof Error ? e.message : String(e);
  return new VocabError("invalid-jsonld", `Cannot convert the JSON-LD document to RDF: ${msg}`, {
    cause: e,
  });
}

/**
 * Parses request JSON exactly: integers beyond 2^53-1 become bigints carrying the digits the client
 * sent instead of being rounded by `JSON.parse`, so a u64 is judged on its real value (`toJsonLd`
 * and `exactIntegers` turn them into exact integer literals).
 */
export function parseJsonExact(text: string): unknown {
  try {
    return JSON.parse(text, function (_k, v, ctx?: { source?: string }) {
      if (
        typeof v === "number" && !Number.isSafeInteger(v) && ctx?.source &&
        /^-?\d+$/.test(ctx.source)
      ) return BigInt(ctx.source);
      return v;
    });
  } catch (e) {
    throw new VocabError("bad-json", `Cannot parse the document: ${(e as Error).message}`);
  }
}
