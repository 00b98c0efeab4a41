// web/: the verification page and the offline verifier (issue 13) — a thin browser entry bundled
// from verify/ and log/ (never a copy of them) by web/build.ts, served by the Deno service and the
// Worker from the generated web/assets_gen.ts.
export { APP_JS, ASSET_VERSION, PAGE_CSS, VERIFIER_CSP, VERIFIER_HTML } from "./assets_gen.ts";
export { PAGE_CSP, pageHtml } from "./page.ts";
