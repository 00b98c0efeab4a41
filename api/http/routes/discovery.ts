// Discovery routes (API.md "Discovery"; JouleClaw SPEC §14): `GET /` is the Hydra EntryPoint to
// `Accept: application/ld+json` and an HTML page to browsers; `GET /v1/api-doc` is the
// ApiDocumentation and `GET /v1/openapi.json` the OpenAPI 3.1 document, both generated from the
// same route table the app is built from.
import { apiDocumentation, ENTRY_POINT_CLASS, entryPoint } from "../hydra.ts";
import { negotiateOr406 } from "../negotiate.ts";
import { OPENAPI_PATH, openApiDocument } from "../openapi.ts";
import type { RouteGroup } from "../route.ts";
import { ASSET_VERSION, PAGE_CSP, pageHtml } from "../../../web/mod.ts";
import { publicRoot } from "../public_url.ts";

const LD = "application/ld+json";

/** The discovery route group. */
export const discoveryRoutes: RouteGroup = {
  name: "discovery",
  routes: [
    {
      method: "GET",
      path: "/",
      cors: true,
      // The page's links (`?view=explore`, `?index=`, `?leaf=`, `?url=`…, web/app/main.ts) are
      // read by its script in the browser; the service serves the same page for any.
      ownQuery: "page",
      class: {
        id: ENTRY_POINT_CLASS,
        title: "Entry point",
        description: "The service's entry point: links to every resource it publishes.",
      },
      operation: {
        title: "Get the entry point",
        description: "HTML for browsers; the Hydra EntryPoint for Accept: application/ld+json.",
        expects: "owl:Nothing",
        returns: ENTRY_POINT_CLASS,
        possibleStatus: [
          { status: 200, description: "The entry point." },
          { status: 406, description: "Neither HTML nor JSON-LD is acceptable." },
        ],
        toolId: "jouleclaw:entrypoint",
        mutating: false,
      },
      handler: (c) => {
        const mt = negotiateOr406(c.req.header("accept"), ["text/html", LD, "application/json"]);
        c.header("vary", "Accept");
        if (mt === "text/html") {
          c.header("content-security-policy", PAGE_CSP);
          c.header("x-content-type-options", "nosniff");
          return c.html(pageHtml(ASSET_VERSION));
        }
        const base = publicRoot(c.get("deps"));
        c.header("content-type", `${LD}; charset=utf-8`);
        return c.body(JSON.stringify(entryPoint(c.get("routes"), base)));
      },
    },
    {
      method: "GET",
      path: "/v1/api-doc",
      cors: true,
      class: {
        id: "hydra:ApiDocumentation",
        title: "API documentation",
        description: "This service's Hydra ApiDocumentation (JouleClaw SPEC §14).",
      },
      operation: {
        title: "Get the API documentation",
        description: "The Hydra ApiDocumentation, generated from the route table.",
        expects: "owl:Nothing",
        returns: "hydra:ApiDocumentation",
        possibleStatus: [{ status: 200, description: "The documentation." }],
        toolId: "jouleclaw:api_doc",
        mutating: false,
      },
      handler: (c) => {
        const base = publicRoot(c.get("deps"));
        c.header("content-type", `${LD}; charset=utf-8`);
        return c.body(JSON.stringify(apiDocumentation(c.get("routes"), base)));
      },
    },
    {
      method: "GET",
      path: OPENAPI_PATH,
      cors: true,
      class: {
        id: "jc:OpenApiDocument",
        title: "OpenAPI description",
        description: "This service's OpenAPI 3.1 description, from the same route table as the " +
          "Hydra ApiDocumentation.",
      },
      operation: {
        title: "Get the OpenAPI description",
        description: "The OpenAPI 3.1 document (JSON), for HTTP tooling and client generators.",
        expects: "owl:Nothing",
        returns: "jc:OpenApiDocument",
        possibleStatus: [{ status: 200, description: "The OpenAPI document." }],
        toolId: "jouleclaw:openapi",
        mutating: false,
      },
      handler: (c) => {
        const base = publicRoot(c.get("deps"));
        c.header("content-type", "application/json; charset=utf-8");
        return c.body(JSON.stringify(openApiDocument(c.get("routes"), base)));
      },
    },
  ],
};
