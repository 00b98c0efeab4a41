// Hydra ApiDocumentation and EntryPoint generated from the route table (JouleClaw SPEC §14,
// Hydra Core Vocabulary https://www.hydra-cg.com/spec/latest/core/). Every row becomes one
// `hydra:Operation` (method, expects, returns, possibleStatus, jc_tool_id, jc_mutating) of the
// `hydra:Class` whose instances live at its path; the EntryPoint links every class's path (a
// `hydra:Link`, or a `hydra:TemplatedLink` holding a `hydra:IriTemplate` when the path has
// variables), so a generic Hydra client discovers every operation from `GET /` alone.
//
// §14 names the status list `statusCodes` (the Hydra draft of its time); the current vocabulary
// calls it `possibleStatus`, a list of `hydra:Status` with `statusCode` and `description`. The
// §14 `statusCodes` of an operation is exactly the set of `possibleStatus[*].statusCode`.
// Pure.
import type { RouteDef, StatusDoc } from "./route.ts";
import { pathParams, toUriTemplate } from "./route.ts";

/** Vocabulary namespaces used in the generated documents. */
export const NS = {
  hydra: "http://www.w3.org/ns/hydra/core#",
  jc: "https://jouleclaw.transaction.science/vocab/v1#",
  owl: "http://www.w3.org/2002/07/owl#",
  rdfs: "http://www.w3.org/2000/01/rdf-schema#",
  xsd: "http://www.w3.org/2001/XMLSchema#",
} as const;

/** Path of the ApiDocumentation (API.md). */
export const API_DOC_PATH = "/v1/api-doc";

/** The Link header every response carries (API.md). */
export const API_DOC_LINK = `<${API_DOC_PATH}>; rel="${NS.hydra}apiDocumentation"`;

/** Inline JSON-LD context (no remote fetch needed by clients). */
export const HYDRA_CONTEXT = {
  hydra: NS.hydra,
  jc: NS.jc,
  owl: NS.owl,
  rdfs: NS.rdfs,
  xsd: NS.xsd,
  ApiDocumentation: "hydra:ApiDocumentation",
  Class: "hydra:Class",
  Operation: "hydra:Operation",
  Status: "hydra:Status",
  Link: "hydra:Link",
  TemplatedLink: "hydra:TemplatedLink",
  IriTemplate: "hydra:IriTemplate",
  IriTemplateMapping: "hydra:IriTemplateMapping",
  SupportedProperty: "hydra:SupportedProperty",
  title: "hydra:title",
  description: "hydra:description",
  entrypoint: { "@id": "hydra:entrypoint", "@type": "@id" },
  supportedClass: { "@id": "hydra:supportedClass", "@type": "@vocab" },
  supportedOperation: { "@id": "hydra:supportedOperation" },
  supportedProperty: { "@id": "hydra:supportedProperty" },
  property: { "@id": "hydra:property", "@type": "@vocab" },
  range: { "@id": "rdfs:range", "@type": "@vocab" },
  method: "hydra:method",
  expects: { "@id": "hydra:expects", "@type": "@vocab" },
  returns: { "@id": "hydra:returns", "@type": "@vocab" },
  possibleStatus: { "@id": "hydra:possibleStatus" },
  statusCode: "hydra:statusCode",
  template: "hydra:template",
  variableRepresentation: { "@id": "hydra:variableRepresentation", "@type": "@vocab" },
  BasicRepresentation: "hydra:BasicRepresentation",
  mapping: { "@id": "hydra:mapping" },
  variable: "hydra:variable",
  required: "hydra:required",
  readable: "hydra:readable",
  writeable: "hydra:writeable",
  jc_tool_id: "jc:toolId",
  jc_mutating: { "@id": "jc:mutating", "@type": "xsd:boolean" },
} as const;

/** Statuses every operation may answer besides its own (documented once, added to each). */
function commonStatus(r: RouteDef): StatusDoc[] {
  // issue 27: a Host header that is not a host[:port] is refused on every route
  const out: StatusDoc[] = [{ status: 400, description: "Malformed Host header (bad-host)." }];
  if ((r.rate ?? (r.method === "GET" ? "read" : "write")) !== "none") {
    out.push({ status: 429, description: "Rate limit exceeded; Retry-After says when to retry." });
  }
  if (r.method !== "GET") out.push({ status: 413, description: "Body over the size limit." });
  out.push({ status: 500, description: "Internal error." });
  out.push({ status: 503, description: "Timed out or unavailable; Retry-After says when." });
  return out;
}

/** All statuses an operation may answer, deduplicated and sorted. */
export function statusesOf(r: RouteDef): StatusDoc[] {
  const seen = new Map<number, StatusDoc>();
  for (const s of [...r.operation.possibleStatus, ...commonStatus(r)]) {
    if (!seen.has(s.status)) seen.set(s.status, s);
  }
  return [...seen.values()].sort((a, b) => a.status - b.status);
}

/** Class of the EntryPoint resource served at `/`. */
export const ENTRY_POINT_CLASS = "jc:EntryPoint";

/**
 * The EntryPoint's link property to a class, always in the jc: namespace:
 * `jc:LogEntry` → `jc:logEntryLink`, `hydra:ApiDocumentation` → `jc:apiDocumentationLink`.
 */
export function linkPropertyOf(classId: string): string {
  const local = /([^:#/]+)$/.exec(classId)?.[1] ?? "resource";
  return `jc:${local[0].toLowerCase()}${local.slice(1)}Link`;
}

/** `@id` of a row's operation in the ApiDocumentation. */
export function operationId(base: string, r: RouteDef): string {
  return `${base}${API_DOC_PATH}#${r.operation.toolId.replace(/[^A-Za-z0-9._-]/g, "_")}`;
}

interface PathGroup {
  path: string;
  query: string[];
  rows: RouteDef[];
}

/** Rows grouped by class; checks that rows sharing a class share a path. */
export function classes(routes: RouteDef[]): Map<string, PathGroup> {
  const byClass = new Map<string, PathGroup>();
  for (const r of routes) {
    const g = byClass.get(r.class.id);
    if (!g) {
      byClass.set(r.class.id, { path: r.path, query: [...(r.query ?? [])], rows: [r] });
      continue;
    }
    if (g.path !== r.path) {
      throw new Error(
        `Cannot build the Hydra documentation: class ${r.class.id} is used by ${g.path} and ${r.path}`,
      );
    }
    for (const q of r.query ?? []) if (!g.query.includes(q)) g.query.push(q);
    g.rows.push(r);
  }
  return byClass;
}

/** Builds the `hydra:ApiDocumentation` for `routes`, with absolute IRIs under `base`. */
export function apiDocumentation(routes: RouteDef[], base: string): Record<string, unknown> {
  const groups = classes(routes);
  const supportedClass: unknown[] = [];
  const entryProps: unknown[] = [];
  for (const [classId, g] of groups) {
    const c = g.rows[0].class;
    supportedClass.push({
      "@id": classId,
      "@type": "Class",
      title: c.title,
      description: c.description,
      supportedOperation: g.rows.map((r) => ({
        "@id": operationId(base, r),
        "@type": "Operation",
        title: r.operation.title,
        description: r.operation.description,
        method: r.method,
        expects: r.operation.expects,
        returns: r.operation.returns,
        possibleStatus: statusesOf(r).map((s) => ({
          "@type": "Status",
          statusCode: s.status,
          description: s.description,
        })),
        jc_tool_id: r.operation.toolId,
        jc_mutating: r.operation.mutating,
      })),
    });
    if (classId === ENTRY_POINT_CLASS) continue;
    const templated = pathParams(g.path).length > 0 || g.query.length > 0;
    entryProps.push({
      "@type": "SupportedProperty",
      property: {
        "@id": linkPropertyOf(classId),
        "@type": templated ? "TemplatedLink" : "Link",
        title: c.title,
        range: classId,
      },
      readable: true,
      writeable: false,
      required: false,
    });
  }
  const ep = supportedClass.find((x) => (x as { "@id": string })["@id"] === ENTRY_POINT_CLASS);
  if (ep) (ep as Record<string, unknown>).supportedProperty = entryProps;
  else {
    supportedClass.push({
      "@id": ENTRY_POINT_CLASS,
      "@type": "Class",
      title: "Entry point",
      description: "The service's entry point: links to every resource it publishes.",
      supportedProperty: entryProps,
      supportedOperation: [],
    });
  }
  return {
    "@context": HYDRA_CONTEXT,
    "@id": base + API_DOC_PATH,
    "@type": "ApiDocumentation",
    title: "JouleClaw receipt verification and transparency log",
    description:
      "Verifies JouleClaw energy receipts (JCR-1 COSE_Sign1 envelopes) and appends valid ones " +
      "to an append-only BLAKE3 Merkle log with signed tree heads, inclusion and consistency " +
      "proofs (JouleClaw SPEC §22).",
    entrypoint: base + "/",
    supportedClass,
  };
}

/** Builds the EntryPoint resource (`GET /` as JSON-LD) linking every class's path. */
export function entryPoint(routes: RouteDef[], base: string): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    "@context": HYDRA_CONTEXT,
    "@id": base + "/",
    "@type": "jc:EntryPoint",
    title: "JouleClaw receipt verification and transparency log",
  };
  for (const [classId, g] of classes(routes)) {
    if (classId === ENTRY_POINT_CLASS) continue;
    const vars = [...pathParams(g.path), ...g.query];
    const prop = linkPropertyOf(classId);
    if (vars.length === 0) {
      doc[prop] = { "@id": base + g.path };
      continue;
    }
    doc[prop] = {
      "@type": "IriTemplate",
      template: base + toUriTemplate(g.path, g.query),
      variableRepresentation: "BasicRepresentation",
      mapping: vars.map((v) => ({
        "@type": "IriTemplateMapping",
        variable: v,
        property: `jc:${v}`,
        required: pathParams(g.path).includes(v),
      })),
    };
  }
  return doc;
}
