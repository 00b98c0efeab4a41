// SPARQL 1.1 Query over the log's RDF (API.md `GET|POST /v1/sparql`), in-process Oxigraph (WASM).
//
// Deno entry only: Oxigraph's store lives in memory, which a Worker's 128 MB does not hold (the
// edge build decides how to bound or refuse it, docs/EDGE.md). The store is kept in step with the
// log by `sync()`: before every query it loads the entries the latest signed tree head covers and
// it has not loaded yet, each as its own named graph (graph IRI = entry URL), so an answer always
// reflects exactly a prefix of the log — the first `size` entries, reported with the answer. The
// default graph of a query is the union of the named graphs (the log as one graph).
import { CodedError } from "../../net/mod.ts";

import { Store } from "oxigraph";
import { type EntryInput, entryNQuads, toNQuads } from "../rdf.ts";
import { type FindingInput, findingIri, findingQuads } from "../findings.ts";
import { type IdentityInput, identityIri, identityQuads } from "../identities.ts";
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
export class SparqlError extends CodedError {
  constructor(code: string, message: string) {
    super(code, message, "internal");
    this.name = "SparqlError";
  }
}

/** The log's RDF in an in-memory Oxigraph store. */
export class SparqlStore {
  readonly #store: Store;
  readonly #source: LogSource;
  #loaded = 0;
  #syncing: Promise<number> | undefined;

  /** `store`: an empty Oxigraph store (default: a new one of the `oxigraph` package's build). */
  constructor(source: LogSource, store: Store = new Store()) {
    this.#source = source;
    this.#store = store;
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
      const inputs: EntryInput[] = [];
      for (let i = this.#loaded; i < end; i++) inputs.push(await this.#source.read(i));
      await this.append(inputs);
    }
    return this.#loaded;
  }

  /**
   * Loads the next entries (their indexes must continue the loaded prefix: `inputs[0].index ===
   * size`), each as its own named graph. The store's `size` moves only once all are loaded.
   */
  async append(inputs: EntryInput[]): Promise<number> {
    if (inputs.length === 0) return this.#loaded;
    if (inputs[0].index !== this.#loaded) {
      throw new RangeError(
        `Cannot load entry ${inputs[0].index}: the store holds the first ${this.#loaded}`,
      );
    }
    const parts: string[] = [];
    for (const e of inputs) parts.push(await entryNQuads(e));
    // Our own well-formed N-Quads: the parser's checks and the transaction only cost time (3×).
    this.#store.load(parts.join(""), {
      format: "application/n-quads",
      lenient: true,
      no_transaction: true,
    });
    this.#loaded += inputs.length;
    return this.#loaded;
  }

  /**
   * Puts the current state of stream findings (issue 24; docs/RDF.md "Stream findings"), each as
   * its own named graph whose IRI is the finding's (vocab/findings.ts): a finding seen again (a
   * gap cleared since) replaces its graph. Entries are named by their URLs under `origin`.
   */
  async putFindings(fs: FindingInput[], origin: string): Promise<void> {
    if (fs.length === 0) return;
    const parts: string[] = [];
    for (const f of fs) {
      const g = findingIri(f, origin);
      // internal, over an IRI we built (no user text): the finding's previous state goes
      this.#store.update(`DROP SILENT GRAPH <${g}>`);
      parts.push(toNQuads(await findingQuads(f, origin), { graph: g }));
    }
    this.#store.load(parts.join(""), { format: "application/n-quads", lenient: true });
  }

  /**
   * Puts the current state of identities (issue 25; docs/RDF.md "Identities"), each as its own
   * named graph whose IRI is the identity's (vocab/identities.ts): an identity seen again (a
   * rotation since) replaces its graph. Its blank nodes (its events' list) are labelled by the
   * identity, so two identities' lists never share a node.
   */
  async putIdentities(ids: IdentityInput[], origin: string): Promise<void> {
    if (ids.length === 0) return;
    const parts: string[] = [];
    for (const i of ids) {
      const g = identityIri(i.identity, origin);
      // internal, over an IRI built from a did:key the log checked (base58 characters only)
      this.#store.update(`DROP SILENT GRAPH <${g}>`);
      const bnodePrefix = `id_${i.identity.slice("did:key:".length)}_`;
      parts.push(toNQuads(await identityQuads(i, origin), { graph: g, bnodePrefix }));
    }
    this.#store.load(parts.join(""), { format: "application/n-quads", lenient: true });
  }

  /**
   * Runs a query (never an update) over what is loaded now, serialized as `mediaType`. An answer
   * longer than `maxChars` (default: no limit) is refused with SparqlError
   * "sparql-result-too-large".
   */
  run(q: string, mediaType: string, maxChars = Infinity): SparqlAnswer {
    if (queryForm(q) === "update") {
      throw new SparqlError(
        "sparql-update-refused",
        "Cannot run an update: this endpoint answers queries only (SPARQL 1.1 Protocol §2.1)",
      );
    }
    let body: string;
    try {
      body = String(
        this.#store.query(q, { results_format: mediaType, use_default_graph_as_union: true }),
      );
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError) {
        // Oxigraph aborted (in a memory-capped build: out of memory); the store is unusable now.
        throw new SparqlError(
          "sparql-memory-limit",
          `Cannot run the query: it needs more memory than the store may use (${e.message})`,
        );
      }
      throw new SparqlError(
        "sparql-bad-query",
        `Cannot run the query: ${(e as Error).message ?? String(e)}`,
      );
    }
    if (body.length > maxChars) {
      throw new SparqlError(
        "sparql-result-too-large",
        `Cannot send an answer of ${body.length} characters: at most ${maxChars} ` +
          "(sparql_max_result_bytes); add LIMIT or narrow the query",
      );
    }
    return { contentType: mediaType, body, size: this.#loaded };
  }

  /**
   * Runs a query (never an update) after syncing with the log, serialized as `mediaType` (one of
   * RESULT_TYPES for SELECT/ASK, GRAPH_TYPES for CONSTRUCT/DESCRIBE). Throws SparqlError
   * "sparql-update-refused" or "sparql-bad-query".
   */
  async query(q: string, mediaType: string): Promise<SparqlAnswer> {
    if (queryForm(q) !== "update") await this.sync();
    return this.run(q, mediaType);
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
  rdfs:comment "The transparency log's entries, one named graph per entry (graph IRI = the entry's URL), and the stream findings about them, one named graph per jc:StreamFinding; the default graph is their union. Vocabulary: https://jouleclaw.transaction.science/vocab/v1#. Queries only: updates are refused." .
`;
}
