// One row shape for the routes that serve a constant text (the vocabulary files, the page's assets):
// the Hydra class and operation from a title, the body with its media type and headers. Pure.
import type { Context } from "hono";
import type { AppEnv, RouteDef } from "./route.ts";

/** What a constant-text route serves. */
export interface StaticText {
  path: string;
  mediaType: string;
  body: () => string;
  /** Hydra class of the resource (compact IRI). */
  id: string;
  title: string;
  description: string;
  toolId: string;
  /** Query parameters it takes (RouteDef.query): none unless named. */
  query?: string[];
  /** Response headers besides Content-Type (Cache-Control, CSP...), from the request. */
  headers: (c: Context<AppEnv>) => Record<string, string>;
}

/** A GET route serving `s.body()` as `s.mediaType` (UTF-8). */
export function staticTextRoute(s: StaticText): RouteDef {
  return {
    method: "GET",
    path: s.path,
    ...(s.query ? { query: s.query } : {}),
    cors: true,
    class: { id: s.id, title: s.title, description: s.description },
    operation: {
      title: `Get the ${s.title.toLowerCase()}`,
      description: `The ${s.title.toLowerCase()} as ${s.mediaType}.`,
      expects: "owl:Nothing",
      returns: s.id,
      possibleStatus: [{ status: 200, description: `The ${s.title.toLowerCase()}.` }],
      toolId: s.toolId,
      mutating: false,
    },
    handler: (c) =>
      new Response(s.body(), {
        headers: { "content-type": `${s.mediaType}; charset=utf-8`, ...s.headers(c) },
      }),
  };
}
