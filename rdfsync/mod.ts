// rdfsync/: the verified, resumable sync of the log into an external SPARQL store (issue 15;
// docs/RDF.md "Sync into an external store"): tiles in, named graphs out, progress and alarms in
// the store's sync-state graph. `deno task rdf:sync` is rdfsync/cli.ts.
export { type EntryGraph, entryGraph, narrowIntegers } from "./entry_graph.ts";
export { gspUrl, type Row, SparqlHttp, StoreError, type StoreOptions } from "./sparql_http.ts";
export {
  JCS,
  readState,
  stateGraph,
  SyncAlarm,
  syncOnce,
  type SyncOptions,
  type SyncReport,
  type SyncState,
} from "./sync.ts";
export { fileFetch } from "./file_fetch.ts";
export { type SyncTarget, type SyncTargetOptions, syncTargets } from "./targets.ts";
