// The verification page's assets (issue 13): its script and stylesheet, and the self-contained
// offline verifier. All are web/'s generated constants (web/build.ts), so the Deno service and the
// Worker serve the same bytes. Each carries the strict Content-Security-Policy; the versioned asset
// URLs the page links are immutable.
import type { RouteDef, RouteGroup } from "../route.ts";
import { staticTextRoute } from "../static_route.ts";
import { APP_JS, PAGE_CSP, PAGE_CSS, VERIFIER_CSP, VERIFIER_HTML } from "../../../web/mod.ts";

function asset(
  path: string,
  mediaType: string,
  body: string,
  csp: string,
  title: string,
  toolId: string,
): RouteDef {
  return staticTextRoute({
    path,
    mediaType,
    body: () => body,
    id: `jc:${toolId.split(":")[1]}`,
    title,
    description: `${title} (issue 13, docs/PAGE.md).`,
    toolId,
    query: path.startsWith("/assets/") ? ["v"] : undefined,
    // `?v=` names a version of the bundle: such a URL never changes.
    headers: (c) => ({
      "cache-control": c.req.query("v") !== undefined
        ? "public, max-age=31536000, immutable"
        : "no-cache",
      "content-security-policy": csp,
      "x-content-type-options": "nosniff",
    }),
  });
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
      // its own CSP (the <meta> one, for file://) and, served, never framed (issue 27):
      // frame-ancestors works only in a header (CSP3 §6.4.2)
      `${VERIFIER_CSP}; frame-ancestors 'none'`,
      "Offline verifier",
      "jouleclaw:offline_verifier",
    ),
  ],
};
