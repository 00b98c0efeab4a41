// SPARQL 1.1 Query over the log's RDF (API.md `GET|POST /v1/sparql`), in-process Oxigraph (WASM).
//
// Deno entry only: Oxigraph's store lives in memory, which a Worker's 128 MB does not hold (the
// edge build decides how to bound or refuse it, docs/EDGE.md). The store is kept in step with the
// log by `sync()`: before every query it loads the entries the latest signed tree head covers and
// it has not loaded yet, each as its own named graph (graph IRI = entry URL), so an answer always
// reflects exactly a prefix of the log — the first `size` entries, reported with the answer. The
// default graph of a query is the union of the named graphs (the log as one graph).

import { Store } from "oxigraph";
import { type EntryInput, entryNQuads } from "../rdf.ts";
import { type QueryForm, queryForm } from "./query_form.ts";

export { type QueryForm, queryForm };

/** Result media types for SELECT / ASK (SPARQL 1.1 Protocol §2.1, Query Results JSON/XML/CSV/TSV). */
export const RESULT_TYPES = [
  "application/sparql-results+json",
  "application/sparql-results+xml",
  "text/csv",
  "text/tab-separated-values",
] as const;
/** Graph media types for CONSTRUCT / DESCRIBE. */
export const GRAPH_TYPES = ["text/turtle", "application/n-triples"] as const;

/** Where the store reads the log from. */
export interface LogSource {
  /** entries covered by the latest signed tree head */
  size(): Promise<number>;
  /** one entry's RDF input */
  read(index: number): Promise<EntryInput>;
}

/** A query's answer. */
export interface SparqlAnswer {
  contentType: string;
  body: string;
  /** how many log entries the answer covers */
  size: number;
}

/** A malformed or refused query; `code` is stable. */
export class SparqlError extends Error {
  code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "SparqlError";
    this.code = code;
  }
}

/** The log's RDF in an in-memory Oxigraph store. */
export class SparqlStore {
  readonly #store = new Store();
  readonly #source: LogSource;
  #loaded = 0;
  #syncing: Promise<number> | undefined;

  constructor(source: LogSource) {
    this.#source = source;
  }

  /** Entries loaded so far. */
  get size(): number {
    return this.#loaded;
  }

  /** Triples (quads) in the store. */
  get quadCount(): number {
    return this.#store.size;
  }

  /** Loads what the log has and the store lacks; concurrent callers share one pass. */
  sync(): Promise<number> {
    return this.#syncing ??= this.#sync().finally(() => this.#syncing = undefined);
  }

  async #sync(): Promise<number> {
    const target = await this.#source.size();
    const batch = 256;
    while (this.#loaded < target) {
      const end = Math.min(target, this.#loaded + batch);
      const parts: string[] = [];
      for (let i = this.#loaded; i < end; i++) {
        parts.push(await entryNQuads(await this.#source.read(i)));
      }
      this.#store.load(parts.join(""), { format: "application/n-quads" });
      this.#loaded = end;
    }
    return this.#loaded;
  }

  /**
   * Runs a query (never an update) after syncing with the log, serialized as `mediaType` (one of
   * RESULT_TYPES for SELECT/ASK, GRAPH_TYPES for CONSTRUCT/DESCRIBE). Throws SparqlError
   * "sparql-update-refused" or "sparql-bad-query".
   */
  async query(q: string, mediaType: string): Promise<SparqlAnswer> {
    const form = queryForm(q);
    if (form === "update") {
      throw new SparqlError(
        "sparql-update-refused",
        "Cannot run an update: this endpoint answers queries only (SPARQL 1.1 Protocol §2.1)",
      );
    }
    const size = await this.sync();
    let body: unknown;
    try {
      body = this.#store.query(q, { results_format: mediaType, use_default_graph_as_union: true });
    } catch (e) {
      throw new SparqlError(
        "sparql-bad-query",
        `Cannot run the query: ${(e as Error).message ?? String(e)}`,
      );
    }
    return { contentType: mediaType, body: String(body), size };
  }
}

/** The SPARQL 1.1 Service Description (W3C sd:) of the endpoint at `endpoint`, as Turtle. */
export function serviceDescription(endpoint: string): string {
  const formats = [
    "http://www.w3.org/ns/formats/SPARQL_Results_JSON",
    "http://www.w3.org/ns/formats/SPARQL_Results_XML",
    "http://www.w3.org/ns/formats/SPARQL_Results_CSV",
    "http://www.w3.org/ns/formats/SPARQL_Results_TSV",
    "http://www.w3.org/ns/formats/Turtle",
    "http://www.w3.org/ns/formats/N-Triples",
  ].map((f) => `<${f}>`).join(", ");
  return `@prefix sd: <http://www.w3.org/ns/sparql-service-description#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

<${endpoint}> a sd:Service ;
  sd:endpoint <${endpoint}> ;
  sd:supportedLanguage sd:SPARQL11Query ;
  sd:feature sd:UnionDefaultGraph ;
  sd:resultFormat ${formats} ;
  rdfs:comment "The transparency log's entries, one named graph per entry (graph IRI = the entry's URL); the default graph is their union. Vocabulary: https://jouleclaw.transaction.science/vocab/v1#. Queries only: updates are refused." .
`;
}

/** The provider the HTTP service's `/v1/sparql` route takes as `deps.extra.sparql` (api/routes/sparql.ts). */
export const sparqlProvider = {
  open(source: LogSource) {
    const s = new SparqlStore(source);
    return { query: (q: string, mt: string) => s.query(q, mt), form: queryForm, store: s };
  },
  describe: serviceDescription,
  resultTypes: RESULT_TYPES,
  graphTypes: GRAPH_TYPES,
};
