// SPARQL 1.1 Protocol §2.1 (query operation only) over the log's RDF: `GET /v1/sparql?query=`,
// `POST` with `application/x-www-form-urlencoded` (`query=`) or `application/sparql-query`.
// Results as SPARQL JSON / XML / CSV / TSV (SELECT, ASK) or Turtle / N-Triples (CONSTRUCT,
// DESCRIBE); 400 for a malformed query or an update, 406 / 415 as the protocol says; with no query,
// the SPARQL Service Description. The store (Oxigraph in a Worker under time, size and memory
// limits, api/services/sparql_worker.ts) is imported only when the endpoint is first used; a platform entry
// may pass its own provider as `deps.services.sparql`, or `null` to refuse the endpoint with 501
// `sparql-unavailable`.
import type { Context } from "hono";
import { ApiError } from "../errors.ts";
import { readTextLimited } from "../limits.ts";
import { negotiate } from "../negotiate.ts";
import type { AppDeps, AppEnv, RouteDef, RouteGroup } from "../route.ts";
import type { SparqlProvider } from "../../services/services.ts";
import { publicBase, publicRoot } from "../public_url.ts";
import { judgedTable } from "../judged_configs.ts";
import { listedShards, shardBase } from "../../services/shard_logs.ts";

export type { SparqlProvider, SparqlStoreHandle } from "../../services/services.ts";

const defaults = new WeakMap<AppDeps, SparqlProvider>();

async function provider(c: Context<AppEnv>): Promise<SparqlProvider> {
  const deps = c.get("deps");
  const given = deps.services?.sparql;
  if (given !== undefined) {
    if (given === null) {
      throw new ApiError(
        "sparql-unavailable",
        "Cannot answer SPARQL here: this deployment has no SPARQL store (docs/RDF.md)",
        { status: 501 },
      );
    }
    return given;
  }
  // The embedded default: Oxigraph in a Worker, loaded only when the endpoint is first used.
  let p = defaults.get(deps);
  if (!p) {
    const { EmbeddedSparqlProvider } = await import("../../services/sparql_worker.ts");
    defaults.set(deps, p = defaults.get(deps) ?? new EmbeddedSparqlProvider());
  }
  return p;
}

function store(c: Context<AppEnv>, p: SparqlProvider) {
  const deps = c.get("deps");
  // Graph IRIs are entry URLs under the public URL, never a request's Host (issue 27); every
  // listed shard's entries, each shard's IRIs below its prefix (docs/RDF.md "Entry IRIs").
  const root = publicRoot(deps);
  return p.open({
    log: deps.log,
    config: deps.config,
    origin: publicBase(deps),
    sources: async () =>
      (await listedShards(deps)).map((s) => ({
        log: s.log,
        origin: root + shardBase(s.prefix),
        // each entry's verdict class (jc:verificationVerdict) and configuration
        // (jc:verifierConfig), as its own views show them (issue 23)
        judged: async () =>
          (await judgedTable(deps, s.log)).segments.map((g) => ({
            from: g.from,
            ...(g.ref ? { config: g.ref.url } : {}),
            referenceVectors: g.options.referenceVectors ?? {},
          })),
      })),
    metrics: deps.metrics,
    referenceVectors: deps.verifier.referenceVectors,
  });
}

/** SPARQL 1.1 Protocol §2.2: an update is a POST; this endpoint is read-only, so never one. */
function refuseUpdate(): never {
  throw new ApiError(
    "sparql-update-refused",
    "Cannot run an update: this endpoint answers queries only (SPARQL 1.1 Protocol §2.1; " +
      "updates are POST only, §2.2, and none is run here)",
    { status: 400 },
  );
}

async function queryText(c: Context<AppEnv>): Promise<string | undefined> {
  if (c.req.method === "GET") {
    // GET ?update= used to answer 200 with the service description, as if no query were given.
    if (c.req.query("update") !== undefined) refuseUpdate();
    return c.req.query("query");
  }
  const ct = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  // The body through the one limited reader (body_limit, the deadline, the least rate; issue 27).
  const limit = c.get("deps").config.bodyLimit;
  if (ct === "application/sparql-query") return await readTextLimited(c.req.raw, limit);
  if (ct === "application/x-www-form-urlencoded") {
    const form = new URLSearchParams(await readTextLimited(c.req.raw, limit));
    if (form.has("update")) refuseUpdate();
    return form.get("query") ?? undefined;
  }
  // SPARQL 1.1 Protocol §2.1.3: a POST query is form-encoded or application/sparql-query.
  throw new ApiError(
    "unsupported-media-type",
    `Cannot read a SPARQL query from ${
      ct || "a body without Content-Type"
    }: send application/sparql-query or application/x-www-form-urlencoded`,
  );
}

async function handler(c: Context<AppEnv>): Promise<Response> {
  const p = await provider(c);
  const q = await queryText(c);
  const endpoint = `${publicBase(c.get("deps"))}/v1/sparql`;
  if (q === undefined || !q.trim()) {
    // SPARQL 1.1 Service Description §2: the description, when no query is given.
    return new Response(p.describe(endpoint), {
      headers: { "content-type": "text/turtle; charset=utf-8", vary: "Accept" },
    });
  }
  const s = store(c, p);
  const form = s.form(q);
  if (form === "update") {
    throw new ApiError(
      "sparql-update-refused",
      "Cannot run an update: this endpoint answers queries only (SPARQL 1.1 Protocol §2.1)",
      { status: 400 },
    );
  }
  const types = form === "construct" || form === "describe" ? p.graphTypes : p.resultTypes;
  const mt = negotiate(c.req.header("accept"), [...types]) ??
    // Clients often send Accept: application/json for results.
    (types === p.resultTypes && /application\/json/.test(c.req.header("accept") ?? "")
      ? types[0]
      : undefined);
  if (!mt) {
    throw new ApiError(
      "not-acceptable",
      `Cannot produce ${c.req.header("accept")} for a ${form} query: available ${types.join(", ")}`,
      { extra: { available: types } },
    );
  }
  const a = await s.query(q, mt);
  return new Response(a.body as BodyInit, {
    headers: {
      "content-type": `${mt}; charset=utf-8`,
      "jc-tree-size": String(a.size),
      vary: "Accept",
    },
  });
}

const DOC = {
  expects: "owl:Nothing",
  returns: "jc:SparqlResults",
  possibleStatus: [
    {
      status: 200,
      description: "Query results (or the service description when no query is given).",
    },
    { status: 400, description: "A malformed query, or an update." },
    { status: 406, description: "No acceptable result format for the query form." },
    {
      status: 413,
      description: "The answer is larger than sparql_max_result_bytes (sparql-result-too-large).",
    },
    { status: 415, description: "POST body neither application/sparql-query nor form-encoded." },
    { status: 501, description: "No SPARQL store in this deployment." },
    {
      status: 503,
      description:
        "Past sparql_timeout_ms (sparql-timeout), too many queries (sparql-busy), or the store is still loading (sparql-loading, Retry-After).",
    },
    {
      status: 507,
      description:
        "The log is longer than sparql_max_entries (sparql-log-too-large): query a store fed by deno task rdf:sync.",
    },
  ],
  mutating: false,
};
const CLASS = {
  id: "jc:SparqlEndpoint",
  title: "SPARQL endpoint",
  description:
    "SPARQL 1.1 Protocol query endpoint over the log's RDF (one named graph per entry; default graph = their union).",
};

/** The SPARQL route group (kept apart so a Worker can omit or replace it). */
export const sparqlRoutes: RouteGroup = {
  name: "sparql",
  routes: [
    {
      method: "GET",
      path: "/v1/sparql",
      query: ["query"],
      ownQuery: { refuses: ["update"] }, // sparql-update-refused, not unknown-query-parameter
      cors: true,
      class: CLASS,
      operation: {
        ...DOC,
        title: "SPARQL query (GET)",
        description: "?query= a SPARQL 1.1 query; no query gives the service description.",
        toolId: "jouleclaw:sparql.get",
      },
      // The store's own limit (sparql_timeout_ms, at most 600 s) answers first: sparql-timeout.
      timeoutMs: 610_000,
      handler,
    } satisfies RouteDef,
    {
      method: "POST",
      path: "/v1/sparql",
      cors: true,
      rate: "read",
      class: CLASS,
      operation: {
        ...DOC,
        expects: "jc:SparqlQuery",
        title: "SPARQL query (POST)",
        description:
          "A query as application/sparql-query, or form-encoded query=. Updates are refused.",
        toolId: "jouleclaw:sparql.post",
      },
      // The store's own limit (sparql_timeout_ms, at most 600 s) answers first: sparql-timeout.
      timeoutMs: 610_000,
      handler,
    } satisfies RouteDef,
  ],
};
