// Public surface of api/ (docs/CONTRACTS.md "api/"): the platform-neutral app factory, the route
// table and its row type, the Hydra generators, errors, configuration and metrics. Platform
// entries (api/main.ts for Deno, api/worker.ts for Cloudflare Workers) import from here.
export { createApp } from "./app.ts";
export { allRoutes, ROUTE_GROUPS } from "./routes.ts";
export type {
  AppDeps,
  AppEnv,
  ClassDoc,
  Handler,
  Method,
  OperationDoc,
  RateClass,
  RouteDef,
  RouteGroup,
  StatusDoc,
} from "./route.ts";
export { pathParams, pathRegExp, route, toUriTemplate } from "./route.ts";
export {
  API_DOC_LINK,
  API_DOC_PATH,
  apiDocumentation,
  ENTRY_POINT_CLASS,
  entryPoint,
  HYDRA_CONTEXT,
  linkPropertyOf,
  NS,
  statusesOf,
} from "./hydra.ts";
export { ApiError, HTTP_CODES, problem, PROBLEM_TYPE_BASE, problemResponse } from "./errors.ts";
export type { HttpCode } from "./errors.ts";
export { ConfigError, defaultConfig, ENV_KEYS, resolveConfig } from "./config.ts";
export type { RateSpec, ServiceConfig } from "./config.ts";
export { Metrics } from "./metrics.ts";
export { TokenBuckets } from "./rate_limit.ts";
export { negotiate, negotiateOr406 } from "./negotiate.ts";
export { ENTRY_FORMATS, entryJson } from "./entry_formats.ts";
export type { EntryFormat, EntryView } from "./entry_formats.ts";
export { MAX_ENTRY_BYTES, readEnvelope } from "./envelope_input.ts";
export { readBodyLimited, readTextLimited, withDeadline, withTimeout } from "./limits.ts";
export { hashParam, intParam, optIntParam } from "./params.ts";
export { outcomeCode } from "./routes/verify.ts";
export { verifierOptions, verifyWith } from "./verifier_options.ts";
