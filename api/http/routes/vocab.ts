// JouleClaw SPEC §13 (vocabulary files, human index) and §15 (`POST /v1/validate`): the vocabulary
// routes (API.md "Discovery and vocabulary"). Platform-neutral: the texts are vocab/'s constants.
import { negotiateOr406 } from "../negotiate.ts";
import { staticTextRoute } from "../static_route.ts";
import { ApiError } from "../errors.ts";
import { readTextLimited } from "../limits.ts";
import type { AppEnv, RouteDef, RouteGroup } from "../route.ts";
import type { Context } from "hono";
import {
  V1_JSONLD,
  V1_SHAPES_TTL,
  V1_TTL,
  validateDocument,
  VOCAB_INDEX_CSP,
  VocabError,
  vocabularyIndexHtml,
} from "../../../vocab/mod.ts";

/** The published vocabulary changes only with a release: a day's cache. */
const CACHE = "public, max-age=86400";

function file(
  path: string,
  mediaType: string,
  body: () => string,
  id: string,
  title: string,
  toolId: string,
): RouteDef {
  return staticTextRoute({
    path,
    mediaType,
    body,
    id,
    title,
    description: `${title} of the JouleClaw v1 vocabulary (SPEC §13, §15).`,
    toolId,
    headers: () => ({ "cache-control": CACHE }),
  });
}

const VALIDATE_TYPES = ["application/json", "application/ld+json"];

async function validateHandler(c: Context<AppEnv>): Promise<Response> {
  const ct = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (!VALIDATE_TYPES.includes(ct)) {
    throw new ApiError(
      "unsupported-media-type",
      `Cannot validate a ${ct || "body without Content-Type"}: send ${VALIDATE_TYPES.join(" or ")}`,
    );
  }
  const deps = c.get("deps");
  // The body through the one limited reader (body_limit, the deadline, the least rate; issue 27).
  const text = await readTextLimited(c.req.raw, deps.config.bodyLimit);
  if (!text.trim()) throw new ApiError("empty-body", "Cannot validate: the body is empty");
  const cls = c.req.query("class");
  if (deps.validate) return c.json(await deps.validate(text, cls));
  try {
    // In-thread (no Worker here: the edge): the node limit still bounds the work.
    return c.json(await validateDocument(text, { cls, maxNodes: deps.config.validateMaxNodes }));
  } catch (e) {
    if (e instanceof VocabError) {
      throw new ApiError(e.code, e.message, {
        status: e.code === "validate-too-many-nodes" ? 413 : 400,
      });
    }
    throw e;
  }
}

/** The vocabulary route group. */
export const vocabRoutes: RouteGroup = {
  name: "vocab",
  routes: [
    file(
      "/vocab/v1.jsonld",
      "application/ld+json",
      () => V1_JSONLD,
      "jc:JsonLdContext",
      "JSON-LD context",
      "jouleclaw:vocab.context",
    ),
    file(
      "/vocab/v1.ttl",
      "text/turtle",
      () => V1_TTL,
      "jc:Ontology",
      "Turtle ontology",
      "jouleclaw:vocab.ontology",
    ),
    file(
      "/vocab/v1.shapes.ttl",
      "text/turtle",
      () => V1_SHAPES_TTL,
      "jc:ShapesGraph",
      "SHACL shapes",
      "jouleclaw:vocab.shapes",
    ),
    {
      method: "GET",
      path: "/vocab/v1",
      cors: true,
      class: {
        id: "jc:VocabularyIndex",
        title: "Vocabulary index",
        description:
          "The human-readable index of the v1 vocabulary, generated from the ontology (SPEC §13).",
      },
      operation: {
        title: "Get the vocabulary index",
        description: "HTML for browsers; Accept: text/turtle gives the ontology itself.",
        expects: "owl:Nothing",
        returns: "jc:VocabularyIndex",
        possibleStatus: [{ status: 200, description: "The index." }, {
          status: 406,
          description: "No acceptable representation.",
        }],
        toolId: "jouleclaw:vocab.index",
        mutating: false,
      },
      handler: (c) => {
        const mt = negotiateOr406(c.req.header("accept"), ["text/html", "text/turtle"]);
        const html = mt === "text/html";
        return new Response(html ? vocabularyIndexHtml() : V1_TTL, {
          headers: {
            "content-type": `${mt}; charset=utf-8`,
            "cache-control": CACHE,
            vary: "Accept",
            // issue 27: every HTML page has its CSP (nosniff and framing: api/http/app.ts)
            ...(html ? { "content-security-policy": VOCAB_INDEX_CSP } : {}),
          },
        });
      },
    },
    {
      method: "POST",
      path: "/v1/validate",
      query: ["class"],
      cors: true,
      class: {
        id: "jc:Validation",
        title: "Validation",
        description: "SHACL validation of a candidate document against the v1 shapes (SPEC §15).",
      },
      operation: {
        title: "Validate a document",
        description:
          "Validates a JSON document (typed by its schema tag, or by ?class= for a WorkerHandoff or TreeHead) or a JSON-LD document " +
          "against v1.shapes.ttl. 200 with {conforms, focus_nodes, results[{path, field, message, severity, focus, value, constraint}], report} " +
          "where report is the sh:ValidationReport as JSON-LD. A document whose root node no shape targets does not conform.",
        expects: "jc:Document",
        returns: "sh:ValidationReport",
        possibleStatus: [
          { status: 200, description: "Validated (conforming or not)." },
          {
            status: 400,
            description: "Not JSON, not an object, no known schema, or a remote @context.",
          },
          {
            status: 413,
            description: "Body over the size limit, or more nodes than validate_max_nodes.",
          },
          { status: 415, description: "Not application/json or application/ld+json." },
          {
            status: 503,
            description: "Past validate_timeout_ms (validate-timeout), or too many at once.",
          },
        ],
        toolId: "jouleclaw:validate",
        mutating: false,
      },
      // The Worker's own limit (validate_timeout_ms, at most 600 s) answers first.
      timeoutMs: 610_000,
      handler: validateHandler,
    },
  ],
};
