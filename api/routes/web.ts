// The verification page's assets (issue 13): its script and stylesheet, and the self-contained
// offline verifier. All are web/'s generated constants (web/build.ts), so the Deno service and the
// Worker serve the same bytes. Each carries the strict Content-Security-Policy; the versioned asset
// URLs the page links are immutable.
import type { RouteDef, RouteGroup } from "../route.ts";
import { APP_JS, PAGE_CSP, PAGE_CSS, VERIFIER_CSP, VERIFIER_HTML } from "../../web/mod.ts";

function asset(
  path: string,
  mediaType: string,
  body: string,
  csp: string,
  title: string,
  toolId: string,
): RouteDef {
  return {
    method: "GET",
    path,
    cors: true,
    class: { id: `jc:${toolId.split(":")[1]}`, title, description: `${title} (issue 13).` },
    operation: {
      title: `Get the ${title.toLowerCase()}`,
      description: `The ${title.toLowerCase()} as ${mediaType}.`,
      expects: "owl:Nothing",
      returns: "owl:Thing",
      possibleStatus: [{ status: 200, description: `The ${title.toLowerCase()}.` }],
      toolId,
      mutating: false,
    },
    handler: (c) => {
      // `?v=` names a version of the bundle: such a URL never changes.
      const versioned = c.req.query("v") !== undefined;
      return new Response(body, {
        headers: {
          "content-type": `${mediaType}; charset=utf-8`,
          "cache-control": versioned ? "public, max-age=31536000, immutable" : "no-cache",
          "content-security-policy": csp,
          "x-content-type-options": "nosniff",
        },
      });
    },
  };
}

/** The page asset route group. */
export const webRoutes: RouteGroup = {
  name: "web",
  routes: [
    asset(
      "/assets/app.js",
      "text/javascript",
      APP_JS,
      PAGE_CSP,
      "Verification page script",
      "jouleclaw:page_script",
    ),
    asset(
      "/assets/page.css",
      "text/css",
      PAGE_CSS,
      PAGE_CSP,
      "Verification page stylesheet",
      "jouleclaw:page_style",
    ),
    asset(
      "/verifier.html",
      "text/html",
      VERIFIER_HTML,
      VERIFIER_CSP,
      "Offline verifier",
      "jouleclaw:offline_verifier",
    ),
  ],
};
