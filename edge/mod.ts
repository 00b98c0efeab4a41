// edge/: tooling of the Cloudflare Worker build (docs/EDGE.md) — bundle a Worker entry with
// `deno bundle`, install the pinned local runtime (Miniflare → workerd, `npm ci` in edge/), and run
// a bundled Worker in real local workerd. `deno task edge` is edge/main.ts.
export {
  buildWorker,
  localLogKey,
  localOperatorKey,
  varOverrides,
  WORKER_BUNDLE,
  WORKER_ENTRY,
} from "./main.ts";
export {
  type EdgeOptions,
  type EdgeRuntime,
  freeLocalPort,
  readWorkerOptions,
  startEdge,
  type WorkerOptions,
} from "./runtime.ts";
export {
  type BundleInfo,
  bundleWorker,
  ensureEdgeTooling,
  nodeVersion,
  repoPath,
  withRequirePrelude,
} from "./tooling.ts";
