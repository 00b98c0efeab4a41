// log/: the JouleClaw transparency log's pure core (SPEC §22): RFC 6962 tree math with the hash as
// a parameter, proofs and their RFC 9162 verification, signed tree heads (§22.2), the storage
// contract (docs/STORAGE.md), the memory backend with fault injection, the sequencer and fsck.
// Runs unchanged in Deno, Node and workerd: no Deno.* and no node:* here (log/sqlite/ has I/O).
import { createMemoryStore, type MemoryStore } from "./memory.ts";
import type { Log, SequencerOptions } from "./log.ts";
import { openLog } from "./open.ts";
import { ed25519GenerateSecret } from "./crypto.ts";

export { blake3Hasher, HASH_SIZE, type Hasher, sha256Hasher } from "./hasher.ts";
export { MAX_PROOF_HASHES, verifyConsistency, verifyInclusion } from "./proof.ts";
export {
  consistencyProof,
  consistencyRanges,
  inclusionProof,
  inclusionRanges,
  type LeafRange,
  type NodeId,
  type NodeReader,
  rangeNodes,
  referenceRoot,
  rootNodes,
  splitPoint,
  treeRoot,
} from "./tree.ts";
export {
  checkTreeHead,
  signTreeHead,
  type TreeHead,
  treeHeadBytes,
  type TreeHeadCheck,
  verifyTreeHead,
} from "./head.ts";
export {
  isPinnedHeadRefusal,
  LogInputError,
  LogIntegrityError,
  LogStateError,
  LogStorageError,
  PINNED_HEAD_CODES,
  PushbackError,
  STORE_BEHIND_SIGNED_HEAD,
  STORE_FORKS_SIGNED_HEAD,
} from "./errors.ts";
export {
  type AgentHead,
  type AgentHeads,
  type AgentLink,
  type Batch,
  checkBatchExtends,
  type ContentIndex,
  type EntryWrite,
  type KeyIndex,
  type LeafLookupMany,
  leafPrefix,
  type LogStorage,
  type StagedCommit,
  type StorageCapabilities,
  StorageConflictError,
  type StoredHead,
  type StreamBackfillStep,
  type StreamBatch,
  type StreamIndex,
  type TileGroups,
  TREE_VIEWS,
  type TreeView,
  type ViewBackfill,
  type ViewMigration,
  type WriteProbe,
} from "./storage.ts";
export { type CommitFault, createMemoryStore, type MemoryStore } from "./memory.ts";
export {
  type AllowFacts,
  answerStreamQuery,
  CLOSED_SKEW_MS,
  type EntryFacts,
  entryFacts,
  factsOfCore,
  FINDING_CODES,
  type FindingCode,
  type GrantAnswer,
  type GrantRecord,
  type Integration,
  integrationTimes,
  jcpObjectFacts,
  LINK_MALFORMED,
  LogStreams,
  malformedLink,
  MAX_GRANT_DEPTH,
  NOT_CHECKED,
  queriedStreamReads,
  type RevocationStatus,
  type SearchQuery,
  SEQ_RANGE,
  type StreamFinding,
  type StreamQuery,
  type StreamReads,
  type StreamSummary,
} from "./streams/mod.ts";
export {
  ACCOUNT_MAX,
  type AccountFacts,
  accountFactsOf,
  type AccountPage,
  type AccountQuery,
  type AccountRow,
  COUNTERS,
} from "./accounts/mod.ts";
export * from "./keys/mod.ts";
export { type Tile, TILE_HEIGHT, TILE_WIDTH } from "./tiles.ts";
export {
  type AppendResult,
  defaultLogName,
  type Log,
  type LogAppends,
  type LogOptions,
  MAX_ENTRY_BYTES,
  SEQUENCER_DEFAULTS,
  type SequencerOptions,
} from "./log.ts";
export { openLog } from "./open.ts";
export { SEARCH_KEY_LAG } from "./sql/search_tail.ts";
export { OUTCOME_REFUSALS } from "./outcomes.ts";
export {
  headJson,
  LogReader,
  type LogReads,
  type LogSource,
  type ReaderIdentity,
} from "./reader.ts";
export { ReadFaults } from "./read_faults.ts";
export { fsckLog, type FsckReport } from "./fsck.ts";
export { BatchTree } from "./batch_tree.ts";
export { checkStoreAgainstPin } from "./pin.ts";
export { readPublishedTile } from "./published_tiles.ts";
/** The C2SP formats of the static tiled publication (docs/PUBLICATION.md). */
export * as c2sp from "./c2sp/mod.ts";

/** Options of `openMemoryLog`. */
export interface MemoryLogOptions extends SequencerOptions {
  /** Reopen an existing store (tests restart a log over the same memory). */
  store?: MemoryStore;
  /** The log key; a fresh one when absent. */
  secretKey?: Uint8Array;
  /** The log's name (LogOptions.logName). */
  logName?: string;
  now?: () => number;
}

/**
 * A log over a memory store (tests, and the fault-injection suite).
 *
 * @example
 * ```ts
 * const log = await openMemoryLog();
 * const r = await log.append(new TextEncoder().encode("entry"));
 * ```
 */
export function openMemoryLog(opts: MemoryLogOptions = {}): Promise<Log> {
  return openLog(opts.store ?? createMemoryStore(), {
    ...opts,
    secretKey: opts.secretKey ?? ed25519GenerateSecret(),
  });
}
