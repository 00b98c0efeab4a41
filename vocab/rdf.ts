// JouleClaw SPEC §13, API.md (`GET /v1/log/entries/{index}` as RDF, `GET /v1/log/export`) — log
// entries as RDF, and the RDF 1.1 N-Quads / Turtle serializations.
//
// An entry's node is the entry's URL (`@id`), carries the receipt's triples (through the v1
// context) and the facts of the log: `jc:logIndex` and `jc:leafHash`, so an RDF store can tie each
// receipt to its inclusion proof, and `jc:verificationVerdict`, the entry's verdict class (JCR-1 §6,
// SPEC §6) where the caller knows it. In the export every entry is one named graph whose name is the
// entry's URL, and its blank nodes are relabelled per entry so two graphs never share one.

import {
  DataFactory,
  type Quad_Predicate as N3Predicate,
  type Quad_Subject as N3Subject,
  Writer,
} from "n3";
import { type Quad, type Term, toJsonLd, toQuads, VocabError } from "./jsonld.ts";
import { CONTEXT_URL, JC, JCP_OBJECT_CLASS } from "./schema/mod.ts";
import { fastQuads } from "./fast.ts";
import {
  blake3,
  decodeCbor,
  entryLeafHash,
  loggedVerdict,
  parseCoseSign1,
  type ProfileOptions,
  readJcpObject,
  toHex,
  toJson,
  verifierConfigCoreOf,
} from "../verify/mod.ts";

const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";

/** What an entry's RDF is made from (the fields of API.md's entry object). */
export interface EntryInput {
  index: number;
  leafHash: string;
  /** Issue 30: JCP §3, the envelope's content id (BLAKE3 of its bytes), lowercase hex. */
  contentId?: string;
  /**
   * Issue 30: JCP §11, the timestamp (ms) of the first signed head covering the entry, when the
   * log keeps it (a store with stream state): the time an accounts window reads.
   */
  integratedAt?: number;
  /** the entry's verdict class (verify/'s loggedVerdict), when known */
  verdict?: string;
  /** the receipt's JSON projection (verify/'s report `receipt`), or null when it could not be read */
  receipt: unknown;
  /** the entry's absolute URL: the node's IRI and, in the export, the graph's name */
  url: string;
  /** issue 23: the URL of the configuration entry it was judged under, if any */
  verifierConfig?: string;
  /**
   * Issue 25: the vocabulary class of a JCP object (a Grant, a Revocation), which carries no
   * schema tag to be classified by (docs/DECISIONS.md "JCP objects on the wire").
   */
  cls?: string;
}

/** An IRI in N-Quads form; characters IRIREF forbids are percent-encoded (RDF 1.1 N-Quads §2.4). */
function iri(v: string): string {
  // deno-lint-ignore no-control-regex
  return `<${v.replace(/[\u0000-\u0020<>"{}|^`\\]/g, (c) => encodeURIComponent(c))}>`;
}

/** A string literal's body with the N-Quads ECHAR escapes (RDF 1.1 N-Quads §2.4, canonical form). */
function quoted(v: string): string {
  return `"${
    v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r")
  }"`;
}

function term(t: Term, bnodePrefix: string): string {
  switch (t.termType) {
    case "NamedNode":
      return iri(t.value);
    case "BlankNode":
      return `_:${bnodePrefix}${t.value.startsWith("_:") ? t.value.slice(2) : t.value}`;
    case "Literal": {
      if (t.language) return `${quoted(t.value)}@${t.language}`;
      const dt = t.datatype?.value;
      return dt && dt !== XSD_STRING ? `${quoted(t.value)}^^${iri(dt)}` : quoted(t.value);
    }
    default:
      return "";
  }
}

/**
 * Serializes quads as N-Quads lines (RDF 1.1 N-Quads). `graph` overrides every quad's graph;
 * `bnodePrefix` is prepended to blank-node labels (unique per entry in an export).
 */
export function toNQuads(
  quads: Quad[],
  opts: { graph?: string; bnodePrefix?: string } = {},
): string {
  const p = opts.bnodePrefix ?? "";
  const g = opts.graph !== undefined ? ` ${iri(opts.graph)}` : "";
  let out = "";
  for (const q of quads) {
    const graph = g || (q.graph.termType === "DefaultGraph" ? "" : ` ${term(q.graph, p)}`);
    out += `${term(q.subject, p)} ${term(q.predicate, p)} ${term(q.object, p)}${graph} .\n`;
  }
  return out;
}

/** Serializes quads (default graph) as Turtle with the vocabulary's prefixes. */
export function toTurtle(quads: Quad[]): Promise<string> {
  const { namedNode, blankNode, literal } = DataFactory;
  const n3 = (t: Term) =>
    t.termType === "NamedNode"
      ? namedNode(t.value)
      : t.termType === "BlankNode"
      ? blankNode(t.value.startsWith("_:") ? t.value.slice(2) : t.value)
      : literal(t.value, t.language || namedNode(t.datatype?.value ?? XSD_STRING));
  const w = new Writer({
    prefixes: {
      jc: JC,
      xsd: "http://www.w3.org/2001/XMLSchema#",
      rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    },
  });
  for (const q of quads) {
    w.addQuad(n3(q.subject) as N3Subject, n3(q.predicate) as N3Predicate, n3(q.object));
  }
  return new Promise((resolve, reject) => w.end((err, text) => err ? reject(err) : resolve(text)));
}

function logOpts(e: EntryInput) {
  return {
    id: e.url,
    logIndex: e.index,
    leafHash: e.leafHash,
    contentId: e.contentId,
    integratedAt: e.integratedAt,
    verdict: e.verdict,
    verifierConfig: e.verifierConfig,
    cls: e.cls,
  };
}

/** The entry's JSON-LD document (SPEC §13): the receipt with `@context`, `@id` = its URL, and the log facts. */
export function entryJsonLd(e: EntryInput): Record<string, unknown> {
  try {
    return toJsonLd(e.receipt, logOpts(e));
  } catch (err) {
    if (!(err instanceof VocabError)) throw err;
    // A receipt of a schema the vocabulary does not know: the log's facts are still RDF.
    return {
      "@context": CONTEXT_URL,
      "@id": e.url,
      log_index: e.index,
      leaf_hash: e.leafHash,
      ...(e.contentId !== undefined ? { content_id: e.contentId } : {}),
      ...(e.integratedAt !== undefined ? { integrated_at: e.integratedAt } : {}),
      ...(e.verdict !== undefined ? { verification_verdict: e.verdict } : {}),
      ...(e.verifierConfig ? { verifier_config: { "@id": e.verifierConfig } } : {}),
    };
  }
}

/** The entry's quads, in the default graph. */
export function entryQuads(e: EntryInput): Promise<Quad[]> {
  let doc: Record<string, unknown>;
  try {
    doc = toJsonLd(e.receipt, logOpts(e));
  } catch (err) {
    if (!(err instanceof VocabError)) throw err;
    return Promise.resolve(logFacts(e));
  }
  const fast = fastQuads(doc);
  return fast ? Promise.resolve(fast) : toQuads(doc);
}

/** `jc:logIndex`, `jc:leafHash`, `jc:contentId`, `jc:integratedAt` (and the verdict) of an entry whose receipt has no RDF form. */
function logFacts(e: EntryInput): Quad[] {
  const s: Term = { termType: "NamedNode", value: e.url };
  const g: Term = { termType: "DefaultGraph", value: "" };
  const verdict: Quad[] = e.verdict === undefined ? [] : [{
    subject: s,
    predicate: { termType: "NamedNode", value: JC + "verificationVerdict" },
    object: {
      termType: "Literal",
      value: e.verdict,
      datatype: { termType: "NamedNode", value: XSD_STRING },
    },
    graph: g,
  }];
  const config: Quad[] = e.verifierConfig
    ? [{
      subject: s,
      predicate: { termType: "NamedNode", value: JC + "verifierConfig" },
      object: { termType: "NamedNode", value: e.verifierConfig },
      graph: g,
    }]
    : [];
  const str = (p: string, v: string): Quad => ({
    subject: s,
    predicate: { termType: "NamedNode", value: JC + p },
    object: {
      termType: "Literal",
      value: v,
      datatype: { termType: "NamedNode", value: XSD_STRING },
    },
    graph: g,
  });
  const at: Quad[] = e.integratedAt === undefined ? [] : [{
    subject: s,
    predicate: { termType: "NamedNode", value: JC + "integratedAt" },
    object: {
      termType: "Literal",
      value: String(e.integratedAt),
      datatype: {
        termType: "NamedNode",
        value: "http://www.w3.org/2001/XMLSchema#nonNegativeInteger",
      },
    },
    graph: g,
  }];
  return [
    ...verdict,
    ...config,
    ...(e.contentId !== undefined ? [str("contentId", e.contentId)] : []),
    ...at,
    {
      subject: s,
      predicate: { termType: "NamedNode", value: JC + "leafHash" },
      object: {
        termType: "Literal",
        value: e.leafHash,
        datatype: { termType: "NamedNode", value: XSD_STRING },
      },
      graph: g,
    },
    {
      subject: s,
      predicate: { termType: "NamedNode", value: JC + "logIndex" },
      object: {
        termType: "Literal",
        value: String(e.index),
        datatype: {
          termType: "NamedNode",
          value: "http://www.w3.org/2001/XMLSchema#nonNegativeInteger",
        },
      },
      graph: g,
    },
  ];
}

/**
 * The blank-node label prefix of an entry: unique per entry IRI over every shard of a service
 * (docs/RDF.md "Entry IRIs"), so one store holding several shards merges nothing: `e<i>_` for the
 * first shard's `<base>/v1/log/entries/<i>` (as before shards), `sN_e<i>_` for shard sN's
 * `<base>/shards/sN/v1/log/entries/<i>`.
 */
export function entryBnodePrefix(url: string, index: number): string {
  const m = /\/shards\/(s[1-9][0-9]*)\/v1\/log\/entries\/[0-9]+$/.exec(url);
  return m ? `${m[1]}_e${index}_` : `e${index}_`;
}

/** One entry as N-Quads lines of its own named graph (graph IRI = entry URL, API.md export). */
export async function entryNQuads(e: EntryInput): Promise<string> {
  return toNQuads(await entryQuads(e), {
    graph: e.url,
    bnodePrefix: entryBnodePrefix(e.url, e.index),
  });
}

/**
 * The export (API.md `GET /v1/log/export`): N-Quads of entries `start..end-1`, one named graph per
 * entry, produced lazily so a response can stream it. `read(i)` supplies each entry.
 */
export async function* exportNQuads(
  start: number,
  end: number,
  read: (index: number) => Promise<EntryInput>,
): AsyncGenerator<string> {
  for (let i = start; i < end; i++) yield await entryNQuads(await read(i));
}

/**
 * Issue 25: whether an entry is a JCP object (a grant, a revocation, a key event: no receipt, no
 * verdict class), and its vocabulary class where the vocabulary has one. A JCP object carries no
 * schema tag: the log names its class (docs/DECISIONS.md "JCP objects on the wire").
 */
export function jcpEntryClass(envelope: Uint8Array): { jcp: boolean; cls?: string } {
  try {
    const kind = readJcpObject(envelope)?.kind;
    return kind === undefined ? { jcp: false } : { jcp: true, cls: JCP_OBJECT_CLASS[kind] };
  } catch {
    return { jcp: false };
  }
}

/**
 * An entry's RDF input from its stored envelope bytes: the signed core's JSON projection (verify/'s
 * `toJson`), without re-verifying the signature (the log verified it before appending). A payload
 * that cannot be decoded gives `receipt: null`, whose RDF is the log facts only. Given the
 * options of the configuration it was judged under, the entry carries its verdict class
 * (loggedVerdict: step 6 under them), and `verifierConfig`, that configuration entry's IRI
 * (issue 23; jc:verifierConfig). Every entry carries its envelope's content id, and its
 * integration time when the caller knows it (issue 30: what the accounts queries join and window on).
 */
export function entryInputFromEnvelope(
  index: number,
  envelope: Uint8Array,
  url: string,
  verifier?: ProfileOptions,
  verifierConfig?: string,
  integratedAt?: number,
): EntryInput {
  let receipt: unknown = null;
  try {
    receipt = toJson(decodeCbor(parseCoseSign1(envelope).payload));
  } catch { /* not decodable: the log facts alone */ }
  const { jcp, cls } = jcpEntryClass(envelope);
  // a configuration entry (issue 23) and a JCP object are no receipts: they have no verdict class
  const verdict = verifier && !verifierConfigCoreOf(envelope) && !jcp
    ? loggedVerdict(envelope, verifier)
    : undefined;
  const e: EntryInput = {
    index,
    leafHash: toHex(entryLeafHash(envelope)),
    contentId: toHex(blake3(envelope)),
    verdict,
    receipt,
    url,
    verifierConfig,
  };
  if (integratedAt !== undefined) e.integratedAt = integratedAt;
  if (cls) e.cls = cls;
  return e;
}
