// The route-table row: one HTTP route together with the Hydra description it publishes
// (JouleClaw SPEC §14). The app (api/http/app.ts) and the ApiDocumentation (api/http/hydra.ts) are both
// built from the same rows, so a route cannot exist undocumented or be documented without
// existing. Platform-neutral: no Deno.* or node:* here.
import type { AppServices } from "../services/services.ts";
import type { Context } from "hono";
import type { EntryFacts, Log } from "../../log/mod.ts";
import type { VerificationReport, VerifierOptions } from "../../verify/mod.ts";
import type { ServiceConfig } from "../services/config.ts";
import type { ValidateAnswer } from "../../vocab/mod.ts";
import type { Metrics } from "./metrics.ts";

/** HTTP methods a row may declare. */
export type Method = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";

/** One possible response of an operation (Hydra `possibleStatus` → `hydra:Status`). */
export interface StatusDoc {
  status: number;
  description: string;
}

/**
 * The Hydra class whose instances live at a route's path. Rows that share a path share a class
 * (one `hydra:Class` with one `supportedOperation` per verb, SPEC §14).
 */
export interface ClassDoc {
  /** Compact IRI (`jc:LogEntry`) or absolute IRI. */
  id: string;
  title: string;
  description: string;
}

/** The Hydra operation a row publishes (SPEC §14). */
export interface OperationDoc {
  title: string;
  description: string;
  /** Input class IRI; `owl:Nothing` for a parameterless operation (SPEC §14 default). */
  expects: string;
  /** Output class IRI. */
  returns: string;
  /** Every status the operation may answer, besides the ones every route may answer. */
  possibleStatus: StatusDoc[];
  /** Stable tool id, `jouleclaw:<name>` (SPEC §14 `jc_tool_id`). */
  toolId: string;
  /** Whether the operation changes state (SPEC §14 `jc_mutating`, mirror of MCP's flag). */
  mutating: boolean;
}

/** Which token bucket a route draws from (see api/http/middleware/rate_limit.ts); "none" exempts it. */
export type RateClass = "read" | "write" | "none";

/** Everything a handler may use. Platform entries (api/deno/main.ts, edge/worker/worker.ts) build it. */
export interface AppDeps {
  log: Log;
  config: ServiceConfig;
  /** Options for verifyEnvelope (key directory, gateway keys, reference vectors). */
  verifier: VerifierOptions;
  /**
   * Runs verifyEnvelope under `verifier`'s options somewhere else (api/deno/main.ts: a pool of
   * Workers, api/services/verify_pool.ts); the same report as the in-thread verifier, used when absent.
   */
  verify?: (envelope: Uint8Array) => Promise<VerificationReport>;
  /**
   * As `verify`, with the stream facts of a verified envelope (log/'s entryFacts) computed where
   * it ran: a bulk append hands them to the log (issue 29); when absent the sequencer reads them.
   */
  verifyForAppend?: (
    envelope: Uint8Array,
  ) => Promise<{ report: VerificationReport; facts?: EntryFacts }>;
  /**
   * Validates a document (vocab/validate.ts) somewhere else under a time limit (api/deno/main.ts: a
   * Worker, api/services/validate_pool.ts); in-thread, with the node limit only, when absent.
   */
  validate?: (text: string, cls?: string) => Promise<ValidateAnswer>;
  metrics: Metrics;
  /** Milliseconds since the Unix epoch; injectable for tests. */
  now?: () => number;
  /** Identifies the client for rate limiting; defaults to the `clientAddr` binding. */
  clientKey?: (c: Context<AppEnv>) => string;
  /** The optional services the platform entry provides (api/services/services.ts), each typed. */
  services?: AppServices;
}

/**
 * The log the service-level routes that append or resolve across shards use (readings, key
 * events, grants and revocations, identities: docs/SHARDS.md): the active shard's, following a
 * rotation, else the one log.
 */
export function activeLog(deps: Pick<AppDeps, "log" | "services">): Log {
  return deps.services?.activeLog ?? deps.log;
}

/** Hono environment of the app: bindings from the platform entry, variables per request. */
export interface AppEnv {
  Bindings: {
    /** Remote address of the TCP peer, set by api/deno/main.ts. */
    clientAddr?: string;
    [k: string]: unknown;
  };
  Variables: {
    deps: AppDeps;
    /** The whole route table the app was built from (for the Hydra documents). */
    routes: RouteDef[];
    /** performance.now()-style start time of the request, for latency metrics. */
    startedAt: number;
    /** Set by the matched route: whether it is open to cross-origin callers. */
    cors: boolean;
  };
}

/** Handler of one row. Throw ApiError (api/http/errors.ts) for an error answer. */
export type Handler = (c: Context<AppEnv>) => Response | Promise<Response>;

/** One row of the route table. */
export interface RouteDef {
  method: Method;
  /** Hono path syntax (`/v1/log/entries/:index`); `{index}` in Hydra templates. */
  path: string;
  class: ClassDoc;
  operation: OperationDoc;
  /**
   * Query parameters the operation takes (published as hydra:IriTemplate variables); any other
   * is refused 400 `unknown-query-parameter` (api/http/params.ts), unless `ownQuery` says otherwise.
   */
  query?: string[];
  /**
   * The query is not the service's to check: `"page"` (the page's own parameters, read in the
   * browser), or parameters the handler refuses itself with its own code (`refuses`).
   */
  ownQuery?: "page" | { refuses: string[] };
  /** Open to cross-origin callers (public read and verify routes). */
  cors?: boolean;
  /** Token bucket; defaults to "read" for GET and "write" otherwise. */
  rate?: RateClass;
  /** Per-route request timeout override in milliseconds. */
  timeoutMs?: number;
  /**
   * The handler reads the raw path and refuses every non-canonical form of it with its own 404
   * code (the tile paths, tlog-tiles): the app's general refusal of percent-encoded aliases
   * (api/http/app.ts) leaves such paths to it.
   */
  ownsRawPath?: boolean;
  handler: Handler;
  /**
   * Optional fast lane for a hot GET that waits on nothing but one bounded store read (the
   * publication's immutable tiles): `answer` gets the raw path (every path starting with
   * `prefix`) before the router and returns the body and headers of a 200, or undefined to leave
   * the request to the router (which then answers it, errors included, exactly as without the
   * lane). The app applies the same rate limit, CORS, Link header and metrics (api/http/app.ts).
   */
  fast?: {
    prefix: string;
    answer(deps: AppDeps, path: string): Promise<FastAnswer | undefined>;
  };
}

/** What a fast lane answers: a 200's body and its headers (api/http/app.ts adds the common ones). */
export interface FastAnswer {
  body: Uint8Array;
  headers: [string, string][];
}

/** A named group of rows, one file per group under api/http/routes/. */
export interface RouteGroup {
  name: string;
  routes: RouteDef[];
}

/** Identity helper that type-checks a row. */
export function route(def: RouteDef): RouteDef {
  return def;
}

/**
 * `/v1/log/entries/:index` → `/v1/log/entries/{index}` (RFC 6570 level 1); a rest parameter
 * `:path{.+}` (Hono: the rest of the path, slashes included) → `{+path}` (RFC 6570 level 2).
 */
export function toUriTemplate(path: string, query: string[] = []): string {
  const p = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)\{\.\+\}/g, "{+$1}")
    .replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
  return query.length ? `${p}{?${query.join(",")}}` : p;
}

/** Names of the path parameters of a Hono path. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
}

/** A RegExp matching concrete paths of a Hono path (for 405 detection and CORS preflight). */
export function pathRegExp(path: string): RegExp {
  const esc = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)\{\.\+\}/g, ":$1{rest}")
    .replace(/[.*+?^$()|[\]\\]/g, "\\$&")
    .replace(/:([A-Za-z_][A-Za-z0-9_]*)\{rest\}/g, ".+")
    .replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "[^/]+");
  return new RegExp(`^${esc}$`);
}

/** The methods `path` allows in `routes` (`matchers[i]`: route i's path), HEAD beside GET, sorted. */
export function allowedMethods(
  routes: Pick<RouteDef, "method">[],
  matchers: RegExp[],
  path: string,
): string[] {
  const methods = new Set<string>();
  routes.forEach((r, i) => {
    if (matchers[i].test(path)) {
      methods.add(r.method);
      if (r.method === "GET") methods.add("HEAD");
    }
  });
  return [...methods].sort();
}
