// Public surface of api/ (docs/CONTRACTS.md "api/"): the platform-neutral app factory, the route
// table and its row type, the Hydra generators, errors, configuration and metrics. Platform
// entries (api/deno/main.ts for Deno, edge/worker/worker.ts for Cloudflare Workers) import from here.
export { createApp } from "./http/app.ts";
export { type AppFetch, type FrontStage, ServiceApp } from "./http/front_door.ts";
export { allRoutes, ROUTE_GROUPS } from "./http/routes.ts";
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
} from "./http/route.ts";
export { pathParams, pathRegExp, route, toUriTemplate } from "./http/route.ts";
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
} from "./http/hydra.ts";
export {
  ApiError,
  errorAnswer,
  HTTP_CODES,
  problem,
  PROBLEM_TYPE_BASE,
  problemResponse,
} from "./http/errors.ts";
export type { HttpCode } from "./http/errors.ts";
export { ConfigError, defaultConfig, ENV_KEYS, resolveConfig } from "./services/config.ts";
export type { RateSpec, ServiceConfig } from "./services/config.ts";
export { Metrics } from "./http/metrics.ts";
export { TokenBuckets } from "./http/middleware/mod.ts";
export { negotiate, negotiateOr406 } from "./http/negotiate.ts";
export { ENTRY_FORMATS, entryJson } from "./http/entry_formats.ts";
export type { EntryFormat, EntryView } from "./http/entry_formats.ts";
export { MAX_ENTRY_BYTES, readEnvelope } from "./http/envelope_input.ts";
export { readBodyLimited, readTextLimited, withDeadline, withTimeout } from "./http/limits.ts";
export { hashParam, intParam, optIntParam } from "./http/params.ts";
export { outcomeCode } from "./http/routes/verify.ts";
export { verifierOptions, verifyWith } from "./http/verifier_options.ts";
// The Worker host's view (edge/worker/): the shard routes, the request guards, the shard logs and
// the witness collector it runs inside its Durable Objects.
export { SHARD_ROUTE_GROUPS } from "./http/routes.ts";
export { badHost, validHost } from "./http/public_url.ts";
export { readingLink } from "./http/reading_link.ts";
export { secured } from "./http/middleware/mod.ts";
export { AsyncActiveShardLog } from "./services/shard_active.ts";
export { parseDuration } from "./services/shard_config.ts";
export type { ShardLogs } from "./services/shard_logs.ts";
export { headReader } from "./services/tile_readers.ts";
export { WitnessCollector } from "./services/witness_collector.ts";
export type {
  CheckpointSource,
  CosignedCheckpoints,
  WitnessStatus,
} from "./services/witness_collector.ts";
export { defaultWitnessName } from "./services/witness_name.ts";
export { sha256Source } from "./services/witness_source.ts";
// Issue 23: the configuration in force, published by the Worker's sequencers and read by its apps.
export {
  defaultRules,
  entryLink,
  operatorDid,
  publishVerifierConfig,
  VerifierConfigError,
  VerifierConfigs,
} from "./services/verifier_config_log.ts";
export type { ConfigHeadOf } from "./services/verifier_config_log.ts";
