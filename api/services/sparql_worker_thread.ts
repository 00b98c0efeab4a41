// The Worker of api/services/sparql_worker.ts: holds the log's RDF in Oxigraph (vocab/sparql/mod.ts) and
// runs one job at a time: `load` (entry envelopes → RDF, vocab/rdf.ts, each its own named graph;
// with the stream findings they touch, vocab/findings.ts, each its own graph, replaced when seen again)
// or `query` (SPARQL 1.1 Query over what is loaded; the serialized answer is refused past
// `maxBytes`, and moved to the main thread as UTF-8 bytes). Everything CPU-heavy of the endpoint
// happens here; the main thread's time limit ends this Worker when a query runs too long. An init
// or a job of another shape is refused with a stable code (api/services/worker_message.ts).
/// <reference lib="deno.worker" />
import { entryInputFromEnvelope, type FindingInput, type IdentityInput } from "../../vocab/mod.ts";
import type { ProfileOptions } from "../../verify/mod.ts";
import { SparqlError, SparqlStore } from "../../vocab/sparql/mod.ts";
import { serveJobs } from "./off_loop_worker.ts";
import { boundedOxigraph, oxigraphMemoryBytes } from "./oxigraph_bounded.ts";
import { isRecord, UnexpectedMessageError } from "./worker_message.ts";

/**
 * Issue 23: entries from `from` on (to the next segment's `from`) were judged under the
 * configuration entry `config` (its IRI; absent: none is logged), whose reference vectors decide
 * their verdict class (JCR-1 §6 step 6). A load job carries the segments, ascending by `from`.
 */
export interface LoadSegment {
  from: number;
  config?: string;
  referenceVectors: ProfileOptions["referenceVectors"];
}

/** A job of this Worker. */
export type SparqlJob =
  | {
    load: {
      start: number;
      envelopes: Uint8Array[];
      origin: string;
      judged: LoadSegment[];
      findings?: FindingInput[];
      /** Issue 30: each entry's integration time (ms), null where the log keeps none. */
      integrated?: (number | null)[];
      /** Issue 25: the identities whose key events the batch holds, as the log resolves them. */
      identities?: IdentityInput[];
    };
  }
  | { query: string; mediaType: string; maxBytes: number };

/** The answer of a query job. */
export interface SparqlJobAnswer {
  body: Uint8Array;
  size: number;
}

/** The answer of a load job: entries loaded, and the store's linear memory in bytes. */
export interface SparqlLoadAnswer {
  size: number;
  memory: number;
}

/** One Oxigraph store; one SparqlStore (a loaded prefix) per log origin, i.e. per shard. */
let oxigraph: InstanceType<ReturnType<typeof boundedOxigraph>>;
const stores = new Map<string, SparqlStore>();
const enc = new TextEncoder();

/** The loaded prefix of the shard whose entries' IRIs start with `origin`, in the one store. */
function storeOf(origin: string): SparqlStore {
  let s = stores.get(origin);
  if (!s) {
    s = new SparqlStore({
      size: () => Promise.resolve(0),
      read: () => Promise.reject(new Error("Cannot read the log from the SPARQL worker")),
    }, oxigraph);
    stores.set(origin, s);
  }
  return s;
}

/** Whether `f` is a finding as log/streams/facts.ts answers one (the members the RDF reads). */
function isFinding(f: unknown): f is FindingInput {
  const int = (v: unknown) => v === undefined || Number.isSafeInteger(v);
  return isRecord(f) && typeof f.code === "string" && typeof f.steward === "string" &&
    Number.isSafeInteger(f.index) && int(f.id) && int(f.seq) && int(f.other) &&
    int(f.cleared_by) && (f.stream === undefined || typeof f.stream === "string");
}

/** Whether `i` is an identity as log/keys answers one (the members the RDF reads). */
function isIdentity(i: unknown): i is IdentityInput {
  return isRecord(i) && typeof i.identity === "string" &&
    /^did:key:z[1-9A-HJ-NP-Za-km-z]+$/.test(i.identity) && Number.isSafeInteger(i.seq) &&
    typeof i.current === "string" && typeof i.next_hash === "string" && Array.isArray(i.events) &&
    i.events.every((n) => Number.isSafeInteger(n)) &&
    (i.forked_at === undefined || Number.isSafeInteger(i.forked_at));
}

/** Whether `m` is a job of this Worker (the fields of SparqlJob, with their types). */
function isJob(m: unknown): m is SparqlJob {
  if (!isRecord(m)) return false;
  if (isRecord(m.load)) {
    const { start, envelopes, origin, judged, findings, integrated, identities } = m.load;
    return Number.isSafeInteger(start) && typeof origin === "string" &&
      Array.isArray(envelopes) && envelopes.every((e) => e instanceof Uint8Array) &&
      Array.isArray(judged) && judged.length > 0 &&
      judged.every((g) =>
        isRecord(g) && Number.isSafeInteger(g.from) && isRecord(g.referenceVectors) &&
        (g.config === undefined || typeof g.config === "string")
      ) &&
      (findings === undefined || Array.isArray(findings) && findings.every(isFinding)) &&
      (integrated === undefined || Array.isArray(integrated) &&
          integrated.every((t) => t === null || Number.isSafeInteger(t) && t >= 0)) &&
      (identities === undefined || Array.isArray(identities) && identities.every(isIdentity));
  }
  return typeof m.query === "string" && typeof m.mediaType === "string" &&
    typeof m.maxBytes === "number";
}

serveJobs((config) => {
  if (!isRecord(config) || typeof config.maxMemoryBytes !== "number") {
    throw new UnexpectedMessageError(config, "an init of {maxMemoryBytes}");
  }
  const { maxMemoryBytes } = config;
  oxigraph = new (boundedOxigraph(maxMemoryBytes))();
  stores.clear();
}, async (msg) => {
  if (!isJob(msg)) {
    throw new UnexpectedMessageError(
      msg,
      "a job of {load: {start, envelopes, origin, judged, findings?, integrated?, identities?}} or " +
        "{query, mediaType, maxBytes}",
    );
  }
  const m = msg;
  if ("load" in m) {
    const { start, envelopes, origin, judged, findings, integrated, identities } = m.load;
    try {
      const store = storeOf(origin);
      // the entries ascend: each one's segment is the current one or a later one (O(1) amortized)
      let g = 0;
      const size = await store.append(envelopes.map((e, k) => {
        const i = start + k;
        while (g + 1 < judged.length && judged[g + 1].from <= i) g++;
        const { referenceVectors, config } = judged[g];
        const url = `${origin}/v1/log/entries/${i}`;
        const at = integrated?.[k] ?? undefined;
        return entryInputFromEnvelope(i, e, url, { referenceVectors }, config, at);
      }));
      // issue 24: the findings the batch's entries caused, are the other side of or cleared
      await store.putFindings(findings ?? [], origin);
      // issue 25: the identities the batch's key events moved, their state replaced
      await store.putIdentities(identities ?? [], origin);
      const answer: SparqlLoadAnswer = { size, memory: oxigraphMemoryBytes() };
      return { value: answer };
    } catch (e) {
      if (!(e instanceof WebAssembly.RuntimeError)) throw e;
      throw new SparqlError(
        "sparql-store-full",
        `Cannot load entry ${start}: the store needs more than sparql_max_memory_mb`,
      );
    }
  }
  // every shard's graphs are in the one store: any of its SparqlStores queries them all
  const a = storeOf(stores.keys().next().value ?? "").run(m.query, m.mediaType, m.maxBytes);
  a.size = [...stores.values()].reduce((n, s) => n + s.size, 0);
  const body = enc.encode(a.body);
  if (body.byteLength > m.maxBytes) {
    throw new SparqlError(
      "sparql-result-too-large",
      `Cannot send an answer of ${body.byteLength} bytes: at most ${m.maxBytes} ` +
        "(sparql_max_result_bytes); add LIMIT or narrow the query",
    );
  }
  const answer: SparqlJobAnswer = { body, size: a.size };
  return { value: answer, transfer: [body.buffer] };
});
