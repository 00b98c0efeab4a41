// The store side of the RDF sync (issue 15): SPARQL 1.1 Protocol queries (§2.1) and updates
// (§2.2, `update=` form-encoded), and the SPARQL 1.1 Graph Store HTTP Protocol's PUT (§5.3,
// `?graph=` — Virtuoso's /sparql-graph-crud takes `graph-uri=`, which the URL may already carry
// as a template, see `gspUrl`). Every request goes through net/'s `request`: connect and total
// deadlines and a budget on the answer's body. HTTP Basic credentials when given.
import { request, type RequestOptions } from "../net/mod.ts";

/** A store refused or failed a request; `status` is its HTTP status (0: no answer). */
export class StoreError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
    this.name = "StoreError";
  }
}

/** Where and how to reach the store. */
export interface StoreOptions {
  /** SPARQL query endpoint */
  endpoint: string;
  /** SPARQL update endpoint (default: the query endpoint) */
  update?: string;
  /** Graph Store Protocol endpoint; given, graphs are written with PUT */
  graphStore?: string;
  user?: string;
  password?: string;
  /** per-request deadline, ms (default 120 s: a batch of updates can be slow) */
  totalMs?: number;
  fetch?: typeof fetch;
}

/** Times a request the store refused as transient (deadlock, 503) is sent again. */
const RETRIES = 6;

/** One SELECT solution: variable → its value's lexical form. */
export type Row = Record<string, string>;

/** A SPARQL store over HTTP. */
export class SparqlHttp {
  readonly #o: StoreOptions;
  readonly #auth: Record<string, string>;
  /** requests sent (bench, tests) */
  requests = 0;

  constructor(o: StoreOptions) {
    this.#o = o;
    this.#auth = o.user !== undefined
      ? { authorization: `Basic ${btoa(`${o.user}:${o.password ?? ""}`)}` }
      : {};
  }

  /** Whether graphs are written by Graph Store Protocol PUT. */
  get gsp(): boolean {
    return this.#o.graphStore !== undefined;
  }

  async #send(url: string, opts: RequestOptions, what: string) {
    for (let attempt = 0;; attempt++) {
      this.requests++;
      const res = await request(url, {
        totalMs: this.#o.totalMs ?? 120_000,
        // Virtuoso echoes the whole request in its error answers.
        errorMaxBytes: 4 * 1024 * 1024,
        fetch: this.#o.fetch,
        ...opts,
        headers: { ...this.#auth, ...opts.headers },
      });
      if (res.ok) return res;
      let detail = "";
      try {
        detail = res.text().slice(0, 500);
      } catch { /* not text */ }
      // A transaction the store gave up (Virtuoso: SR172 "Transaction deadlocked", SQL state
      // 40001, under concurrent graph replaces) or a busy store: the same request again, later.
      const transient = res.status === 503 ||
        (res.status === 500 && /deadlock|40001/i.test(detail));
      if (transient && attempt < RETRIES) {
        await new Promise((r) => setTimeout(r, 100 * 2 ** attempt + Math.random() * 100));
        continue;
      }
      throw new StoreError(
        `Cannot ${what}: the store answered ${res.status}: ${detail}`,
        res.status,
      );
    }
  }

  /** A SELECT's solutions (SPARQL 1.1 Query Results JSON), at most `maxBytes` of answer. */
  async select(query: string, maxBytes = 16 * 1024 * 1024): Promise<Row[]> {
    const res = await this.#send(this.#o.endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/sparql-results+json",
      },
      body: new URLSearchParams({ query }).toString(),
      kind: "json",
      maxBytes,
    }, "query the store");
    const doc = res.json() as {
      results?: { bindings?: Record<string, { value: string }>[] };
    };
    return (doc.results?.bindings ?? []).map((b) =>
      Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.value]))
    );
  }

  /** Runs a SPARQL update request. */
  async update(text: string): Promise<void> {
    await this.#send(this.#o.update ?? this.#o.endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ update: text }).toString(),
      kind: "json",
    }, "update the store");
  }

  /** Replaces graph `iri` with `ntriples` (Graph Store Protocol PUT). */
  async put(iri: string, ntriples: string): Promise<void> {
    if (!this.#o.graphStore) throw new Error("Cannot PUT a graph: no --graph-store given");
    await this.#send(gspUrl(this.#o.graphStore, iri), {
      method: "PUT",
      headers: { "content-type": "application/n-triples" },
      body: ntriples,
      kind: "json",
    }, `PUT graph ${iri}`);
  }
}

/**
 * The GSP URL of graph `iri`: `{graph}` in `base` is replaced by the encoded IRI (e.g.
 * `http://host/sparql-graph-crud?graph-uri={graph}` for Virtuoso); otherwise `?graph=` is added
 * (Graph Store Protocol §4.2, indirect identification).
 */
export function gspUrl(base: string, iri: string): string {
  const g = encodeURIComponent(iri);
  if (base.includes("{graph}")) return base.replace("{graph}", g);
  return `${base}${base.includes("?") ? "&" : "?"}graph=${g}`;
}
