// log/durable/: the Cloudflare Durable Object backend of the log's storage contract
// (docs/STORAGE.md, docs/EDGE.md): a SQLite-backed Durable Object's `ctx.storage.sql`, written in
// `transactionSync`. Runs inside workerd; the shared contract suite runs against it there
// (tests/edge/contract_test.ts).
export {
  DURABLE_SCHEMA_VERSION,
  type DurableLogStorage,
  type DurableStorageOptions,
  openDurableStorage,
} from "./storage.ts";
export { openDurableWitnessState } from "./witness_state.ts";
export type {
  DurableSqlStorage,
  SqlBinding,
  SqlCursor,
  SqlStorage,
  SqlValue,
} from "./sql_types.ts";
