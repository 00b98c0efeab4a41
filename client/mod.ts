// Public surface of client/: the checking HTTP client and the monitor (pure), and the tile reader,
// witness policy and shard directory helpers rdfsync/ builds on (loadPolicy and the key resolver
// read files). The CLI is client/main.ts.
export { HttpError, LogClient, VerificationFailure } from "./client.ts";
export type { CheckedAppend, CheckedBulkItem, CheckedInclusion } from "./client.ts";
export { emptyState, MAX_REMEMBERED, parseState, poll } from "./monitor.ts";
export type { MonitorState, PollResult } from "./monitor.ts";
export {
  coreFromProjection,
  KEY_SCHEMES,
  keyFileText,
  keyScheme,
  parseKeyFile,
  sealCore,
  SealRefused,
} from "./seal.ts";
export type { KeyScheme, SigningAlg, SigningKey } from "./seal.ts";
export { TileClient, type TileNet, type View, type ViewCheckpoint } from "./tiles.ts";
export { BelowQuorum, checkPolicy, loadPolicy, policyForShard } from "./policy.ts";
export { resolveLogKey } from "./tile_commands.ts";
export { allShards } from "./shard_commands.ts";
