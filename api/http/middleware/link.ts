// The Link middleware (API.md "Hypermedia"; Hydra Core §4.1 "Discovering a Hydra-powered Web
// API"): every answer of the app, an error's or a refusal's too, carries the Link to the API's
// documentation, so a client that holds any one answer can discover the whole API. A route's own
// Link header is kept beside it (appended, never replaced). Platform-neutral.
import type { MiddlewareHandler } from "hono";
import { API_DOC_LINK } from "../hydra.ts";
import type { AppEnv } from "../route.ts";

/** API.md: every response carries the ApiDocumentation link. */
export const LINK: [string, string] = ["link", API_DOC_LINK];

/** Appends the documentation Link to every answer that passes through it. */
export function linkHeader(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    c.res.headers.append(...LINK);
  };
}
