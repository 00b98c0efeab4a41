// OpenAPI 3.1 description of the service (`GET /v1/openapi.json`), generated from the same route
// table as the Hydra ApiDocumentation (api/http/hydra.ts), so a route cannot be in one and not the
// other: one operation per row (operationId from the row's tool id, summary and description
// from its Hydra operation, one response per `possibleStatus` plus the statuses every route may
// answer), path parameters from the Hono path, query parameters from `query`. Request bodies
// are described by the class the operation `expects` (BODIES below; a row expecting a class
// not listed there is refused, so a new body type cannot go undocumented). Pure.
import { statusesOf } from "./hydra.ts";
import { pathParams, type RouteDef, toUriTemplate } from "./route.ts";

/** Path of the OpenAPI document. */
export const OPENAPI_PATH = "/v1/openapi.json";

const HEX = { type: "string", pattern: "^[0-9a-f]*$" };
const HASH = { type: "string", pattern: "^[0-9a-f]{64}$" };
const COUNT = { type: "string", pattern: "^(0|[1-9][0-9]*)$" };

/** Parameters the routes use, by name: their schema and meaning. */
const PARAMS: Record<string, { schema: Record<string, unknown>; description: string }> = {
  index: { schema: COUNT, description: "Index of a log entry (0-based decimal)." },
  size: { schema: COUNT, description: "Tree size of a signed head (decimal)." },
  leaf_hash: { schema: HASH, description: "Leaf hash: BLAKE3(0x00 || entry), 64 lowercase hex." },
  first: { schema: COUNT, description: "The older tree size (decimal)." },
  second: { schema: COUNT, description: "The newer tree size (decimal)." },
  start: { schema: COUNT, description: "First index (decimal)." },
  end: { schema: COUNT, description: "One past the last index (decimal)." },
  limit: { schema: COUNT, description: "Most items in the page (decimal)." },
  did: { schema: { type: "string" }, description: "A did:key." },
  query: { schema: { type: "string" }, description: "A SPARQL 1.1 query." },
  class: { schema: { type: "string" }, description: "The jc: class to validate the body as." },
};

const ENVELOPE_JSON = {
  type: "object",
  required: ["envelope"],
  properties: { envelope: { ...HEX, description: "The COSE_Sign1 envelope, hex." } },
};

/** Request bodies by the Hydra class an operation expects. */
const BODIES: Record<string, { description: string; content: Record<string, unknown> }> = {
  "jc:Envelope": {
    description: "A COSE_Sign1 receipt envelope (JCR-1 §4): raw bytes, or JSON with its hex.",
    content: {
      "application/cose": { schema: { type: "string", contentMediaType: "application/cose" } },
      "application/json": { schema: ENVELOPE_JSON },
    },
  },
  "jc:MeterReadingBatch": {
    description: "Signed meter-reading/1 envelopes, in seq order (docs/METER-READING.md).",
    content: {
      "application/json": {
        schema: {
          type: "object",
          required: ["envelopes"],
          properties: { envelopes: { type: "array", items: HEX } },
        },
      },
      "application/cbor-seq": {
        schema: { type: "string", contentMediaType: "application/cbor-seq" },
      },
    },
  },
  "jc:Document": {
    description: "A JSON or JSON-LD document to validate against the SHACL shapes.",
    content: {
      "application/ld+json": { schema: { type: "object" } },
      "application/json": { schema: { type: "object" } },
    },
  },
  "jc:AddCheckpointRequest": {
    description: "C2SP tlog-witness add-checkpoint: `old N`, up to 63 base64 consistency proof " +
      "lines, an empty line, then the signed checkpoint note (docs/WITNESS.md).",
    content: { "text/plain": { schema: { type: "string" } } },
  },
  "jc:SparqlQuery": {
    description: "A SPARQL 1.1 query (SPARQL 1.1 Protocol §2.1.2, §2.1.3).",
    content: {
      "application/sparql-query": { schema: { type: "string" } },
      "application/x-www-form-urlencoded": {
        schema: { type: "object", required: ["query"], properties: { query: { type: "string" } } },
      },
    },
  },
};

const PROBLEM = {
  type: "object",
  description: "RFC 9457 problem details; `code` is stable (docs/CONFIG.md, docs/REASON-CODES.md).",
  required: ["type", "title", "status", "detail", "code"],
  properties: {
    type: { type: "string", description: "urn:jouleclaw:problem:<code>" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    code: { type: "string" },
  },
};

/** `jouleclaw:log.prove_inclusion` → `log.prove_inclusion` (unique per row). */
function operationIdOf(r: RouteDef): string {
  return r.operation.toolId.replace(/^jouleclaw:/, "").replace(/[^A-Za-z0-9._-]/g, "_");
}

function operation(r: RouteDef): Record<string, unknown> {
  const parameters = [
    ...pathParams(r.path).map((name) => ({
      name,
      in: "path",
      required: true,
      ...(PARAMS[name] ?? { schema: { type: "string" }, description: name }),
    })),
    ...(r.query ?? []).map((name) => ({
      name,
      in: "query",
      required: false,
      ...(PARAMS[name] ?? { schema: { type: "string" }, description: name }),
    })),
  ];
  const responses: Record<string, unknown> = {};
  for (const s of statusesOf(r)) {
    responses[String(s.status)] = s.status >= 400
      ? {
        description: s.description,
        content: {
          "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } },
        },
      }
      : { description: s.description };
  }
  const op: Record<string, unknown> = {
    operationId: operationIdOf(r),
    summary: r.operation.title,
    description: r.operation.description,
    "x-hydra-class": r.class.id,
    "x-hydra-returns": r.operation.returns,
    "x-jc-mutating": r.operation.mutating,
    responses,
  };
  if (parameters.length) op.parameters = parameters;
  if (r.operation.expects !== "owl:Nothing") {
    const body = BODIES[r.operation.expects];
    if (!body) {
      throw new Error(
        `Cannot build the OpenAPI document: ${r.method} ${r.path} expects ${r.operation.expects}, ` +
          "which api/http/openapi.ts BODIES does not describe",
      );
    }
    op.requestBody = { required: true, ...body };
  }
  return op;
}

/** The OpenAPI 3.1 document of `routes`, served from `base`. */
export function openApiDocument(routes: RouteDef[], base: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const p = toUriTemplate(r.path);
    const item = paths[p] ??= {};
    const m = r.method.toLowerCase();
    if (item[m]) {
      throw new Error(`Cannot build the OpenAPI document: two rows for ${r.method} ${r.path}`);
    }
    item[m] = operation(r);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "JouleClaw receipt verification and transparency log",
      version: "1",
      description: "Verifies JouleClaw energy receipts (JCR-1 COSE_Sign1 envelopes) and appends " +
        "valid ones to an append-only BLAKE3 Merkle log with signed tree heads, inclusion and " +
        "consistency proofs (JouleClaw SPEC §22). Generated from the route table that also " +
        "yields the Hydra ApiDocumentation at /v1/api-doc.",
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [{ url: base }],
    paths,
    components: { schemas: { Problem: PROBLEM } },
  };
}
