// edge/worker/: the Cloudflare Worker deployment's parts (docs/EDGE.md): the sequencer Durable
// Object, the `Log` the Worker's app uses (r2_log.ts: reads from R2, appends to the objects), the
// edge HTTP cache, and the RPC wire format. edge/worker/worker.ts is the entry that wires them together.
// Only durable_object.ts needs workerd (it imports cloudflare:workers); it is re-exported by
// edge/worker/worker.ts, not from here, so Deno tests can import this module.
export { ImmutableCache } from "./immutable_cache.ts";
export {
  cacheKey,
  type CacheOptions,
  EDGE_CACHE_HEADER,
  type EdgeCache,
  isImmutable,
  serveCached,
} from "./http_cache.ts";
export { LOG_KEY_SECRET, logKeyFromEnv, openEdgeLog, SequencerCore } from "./sequencer.ts";
export { EdgeConfigError, edgeErrorAnswer } from "./errors.ts";
export { capture, fromWire, type Outcome, toWire, unwrap, type WireError } from "./wire.ts";
export { edgeConfig, type EdgeSettings, edgeSettings, stringBindings } from "./settings.ts";
