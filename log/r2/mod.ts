// The log's R2 backend (docs/EDGE.md "R2"): the published log's object layout over a bucket
// interface (r2.ts), the sequencer's store that publishes rounds to it (r2_storage.ts), the
// published pin a restart is checked against (published_pin.ts), the shard directory kept beside
// the log (shards.ts) and the witness's guard on its state (witness_guard.ts). It needs only an
// R2-like bucket, so it is exercised in Deno over a directory or memory bucket as well as in workerd.
export * from "./r2.ts";
export * from "./index_segment.ts";
export * from "./index_segments.ts";
export * from "./r2_storage.ts";
export * from "./published_pin.ts";
export * from "./shards.ts";
export * from "./witness_guard.ts";
