// The storage contract every backend implements (docs/STORAGE.md): point reads plus one atomic,
// durable `commitBatch`. Nothing here is Deno-only: the SQLite file (node:sqlite), a Cloudflare
// Durable Object's SQLite storage (`ctx.storage.sql.exec` inside `transactionSync`) and memory
// all fit it. Methods return promises so an asynchronous store fits too; synchronous stores just
// resolve. A required core plus named optional extensions (`StorageCapabilities`), which a log
// reads once when it opens (issue 22 "Narrow storage"); nothing probes a store's methods. The
// shared contract tests are log/storage_contract_tests.ts.
import type { Tile } from "./tiles.ts";
import type { CheckedEntry } from "./streams/check.ts";
import type { EntryFacts, StreamFinding } from "./streams/facts.ts";
import type { RevocationStatus } from "./streams/revocation.ts";
import type { StreamSummary } from "./streams/summary.ts";
import type { AccountPage, AccountQuery } from "./accounts/mod.ts";
import type { GrantRecord } from "./streams/grants.ts";
import type { CarriedKeys, IdentityRecord, KeyStateReads, KeyWrites } from "./keys/mod.ts";

/**
 * The two Merkle views of the one entry sequence (PUBLICATION.md Decision P1): `blake3` is the
 * JouleClaw tree (SPEC §22.1), `sha256` the RFC 6962 tree C2SP clients and witnesses read.
 */
export type TreeView = "blake3" | "sha256";

/** Both views, in the order the service lists them. */
export const TREE_VIEWS: readonly TreeView[] = ["blake3", "sha256"];

/** A signed tree head as stored (raw bytes; the JSON form is `TreeHead`). */
export interface StoredHead {
  size: number;
  root: Uint8Array; // 32 bytes
  timestamp: number; // ms since the epoch
  signature: Uint8Array; // 64 bytes, Ed25519 over treeHeadBytes(size, root, timestamp)
  /**
   * The SHA-256 view's root (RFC 6962 over the same entries) at `size`. Every head committed by
   * this schema has it; a head of a store written before the SHA-256 view existed gets it from
   * the migration (`ViewMigration.commitViewBackfill`), which `openLog` runs before serving.
   */
  sha256Root?: Uint8Array;
}

/** One entry to append: its index, its leaf hash (for the leaf index) and its exact bytes. */
export interface EntryWrite {
  index: number;
  leafHash: Uint8Array;
  bytes: Uint8Array;
  /**
   * The entry's content identity (32 bytes; verify/content_id.ts), when it has one: a backend with
   * the `ContentIndex` extension stores it in a unique index beside the leaf index (docs/DECISIONS.md "One entry
   * per signed content").
   */
  contentId?: Uint8Array;
}

/**
 * An agent's chain head (docs/METER-READING.md, JCP §5): its last accepted chained entry (a meter
 * reading), kept by the store so that the next one is checked in O(1) at any log size.
 */
export interface AgentHead {
  /** The agent (its did:key). */
  did: string;
  /** The last accepted entry's seq. */
  seq: number;
  /** The next entry's required prev: the BLAKE3 of the last accepted entry's bytes, 32 bytes. */
  prev: Uint8Array;
  /** The last accepted entry's index in the log. */
  index: number;
  /**
   * The last accepted reading's span end, ms (`reading-overlap`: the next span starts there);
   * absent for a head stored before it was kept.
   */
  end?: number;
  /**
   * Per domain, the agent's latest accepted HwShunt reading: the calibration a `model` reading of
   * that domain must name (JCP §5.1 rung 5; docs/METER-READING.md). Carried from head to head.
   */
  calibrations?: Record<string, AgentCalibration>;
}

/** A host calibration an agent's chain holds: the HwShunt reading and the power it measured. */
export interface AgentCalibration {
  /** The reading's content id (verify/content_id.ts), lowercase hex. */
  reading: string;
  /** Its rate, mW (energy_uj over the span). */
  power_mw: number;
}

/** What the appender of a chained entry tells the sequencer (the index is the sequencer's). */
export type AgentLink = Omit<AgentHead, "index">;

/** Everything one sequencer step writes, atomically. */
export interface Batch {
  /** Consecutive indices from the previous head's size (may be empty only for the first head). */
  entries: EntryWrite[];
  /** BLAKE3-view tiles that changed; a tile at an existing (level, index) replaces the old one. */
  tiles: Tile[];
  /** The SHA-256 view's tiles that changed (same layout as `tiles`). */
  sha256Tiles: Tile[];
  /** The new signed head; head.size = previous size + entries.length. */
  head: StoredHead;
  /**
   * Agents' chain heads moved by this batch's entries, in index order: written in the same
   * transaction; per agent the one with the largest index is kept.
   */
  agents?: AgentHead[];
  /**
   * The entries' stream facts (issue 24), for a store with `streamIndex`: checked and indexed in
   * the same transaction (log/streams/check.ts); the store puts the findings they caused in
   * `findings` (an out-list: emptied and refilled by each commit attempt).
   */
  streams?: StreamBatch;
  /**
   * The store keeps stream state but this batch's entries were not checked (stream checks off):
   * the store moves its reach past them, so the backfill (log/streams_backfill.ts) checks them.
   */
  unchecked?: boolean;
  /**
   * Issue 25 (docs/KEYS.md): the key state the batch's accepted key events move, judged by the
   * sequencer before it sequenced them; written in the same transaction (a store with `keyIndex`).
   */
  keys?: KeyWrites;
}

/** A batch's stream checks (`Batch.streams`). */
export interface StreamBatch {
  /** The checked entries (those with facts), in index order. */
  entries: CheckedEntry[];
  /** `closed-after-integration` skew, ms: a receipt closed this long after the head is flagged. */
  skewMs: number;
  /** Filled by the store: the findings the entries caused, by the causing entry's index. */
  findings: Map<number, StreamFinding[]>;
  /**
   * Filled by the store, where it keeps grants: each allow's revocation status (issue 25;
   * log/streams/revocation.ts), by its index. An out-list like `findings`.
   */
  revocations?: Map<number, RevocationStatus>;
}

/** One step of the SHA-256 view's migration (`ViewMigration.commitViewBackfill`). */
export interface ViewBackfill {
  sha256Tiles: Tile[];
  /** SHA-256 roots of existing heads, by the head's size. */
  roots: { size: number; sha256Root: Uint8Array }[];
}

/**
 * The storage contract's required core (docs/STORAGE.md; issue 22 "Narrow storage"): heads,
 * entries, tiles (point and range), leaf candidates, one commit form, the log's name, close —
 * and `capabilities`, the optional extensions this store offers, read once when a log opens.
 */
export interface LogStorage {
  /** The newest head (largest size), or undefined for a store never written. */
  latestHead(): Promise<StoredHead | undefined>;
  /** The head published at exactly `size` leaves. */
  head(size: number): Promise<StoredHead | undefined>;
  /** Up to `limit` heads with size >= `fromSize`, ascending by size. */
  heads(fromSize: number, limit: number): Promise<StoredHead[]>;
  /** The entry at `index`, byte-exact. */
  entry(index: number): Promise<Uint8Array | undefined>;
  /** Up to `limit` consecutive entries from `start` (fewer at the end of the log). */
  entries(start: number, limit: number): Promise<Uint8Array[]>;
  /** Tile (level, index) of a view (default `blake3`): 1..16 concatenated 32-byte hashes. */
  tile(level: number, index: number, view?: TreeView): Promise<Uint8Array | undefined>;
  /**
   * Tiles (level, start) .. (level, start + count - 1) of a view in one read, `[k]` for index
   * `start + k` (undefined where absent): the published (height-8) tile reader's one range read
   * instead of up to 16 point reads.
   */
  tileRange(
    level: number,
    start: number,
    count: number,
    view?: TreeView,
  ): Promise<(Uint8Array | undefined)[]>;
  /**
   * Indices whose leaf hash may equal `leafHash`: must include the true one when present; may
   * include others (a backend may index a prefix). Callers confirm against the level-0 tile.
   */
  leafCandidates(leafHash: Uint8Array): Promise<number[]>;
  /**
   * Writes the batch atomically and durably: after it resolves, all of it survives a crash;
   * when it rejects, either all of it or none of it is stored (never a part). Refuses
   * (`StorageConflictError`, nothing written) a batch whose first index is not the stored
   * latest head's size or whose head size does not follow from it (a second writer).
   */
  commitBatch(batch: Batch): Promise<void>;
  /**
   * The log's name (origins `<name>/blake3`, `<name>/sha256`; PUBLICATION.md P1) bound to this
   * store, or undefined before it is bound.
   */
  logName(): Promise<string | undefined>;
  /**
   * Binds the log's name to the store, once and durably: the same name again is a no-op, another
   * name is refused (`StorageConflictError`, nothing written). A name is stable for the life of
   * the store (its checkpoints' origins and the vkeys clients pinned depend on it).
   */
  setLogName(name: string): Promise<void>;
  /** Releases the store. */
  close(): Promise<void>;
  /**
   * The optional extensions this store offers. Read once, when a log opens (log/open.ts), and
   * handed to the parts that use them: nothing else asks a store what it can do.
   */
  capabilities(): StorageCapabilities;
}

/**
 * The optional extensions of a store (each a named interface below), as discovered once. A store
 * usually offers itself (`{ contentIndex: this }`); a wrapper offers what it forwards.
 */
export interface StorageCapabilities {
  /** Full tile groups as one read (SQLite's group rows). */
  tileGroups?: TileGroups;
  /** Many leaf hashes' candidates in one call (the sequencer's batch dedup). */
  leafLookupMany?: LeafLookupMany;
  /** The content identities' unique index and its migration. */
  contentIndex?: ContentIndex;
  /** A commit acknowledged before it is durable, its durability a promise. */
  stagedCommit?: StagedCommit;
  /** A small durable write: the health check's probe while commits fail. */
  writeProbe?: WriteProbe;
  /** Agents' chain heads, written with the batches, and their one-time backfill. */
  agentHeads?: AgentHeads;
  /** The SHA-256 view's migration of a store written before it. */
  viewMigration?: ViewMigration;
  /** Stream state, findings and search keys, written with the batches (issue 24). */
  streamIndex?: StreamIndex;
  /** Key-event chains' state, written with the batches (issue 25; docs/KEYS.md). */
  keyIndex?: KeyIndex;
}

/**
 * Extension: identities' key-event chains (issue 25; docs/KEYS.md): the reads the sequencer's
 * checks make (log/keys/judge.ts) and the record GET /v1/keys/{identity} answers.
 */
export interface KeyIndex extends KeyStateReads {
  identityRecord(identity: string): Promise<IdentityRecord | undefined>;
  /**
   * The whole key state, each index qualified by its shard (`from`: this store's own), for a
   * rotation of the log to carry into the next shard (docs/SHARDS.md "Carried state").
   */
  carriedKeys(from: string): Promise<CarriedKeys>;
  /**
   * Writes carried key state into a store that holds no entry yet, in one durable transaction
   * with its `keys_carried` mark, which it answers (a store with entries: `StorageConflictError`).
   */
  carryKeys(c: CarriedKeys): Promise<string>;
}

/** Extension: streams, findings and lookups (issue 24; docs/STREAMS.md). */
export interface StreamIndex {
  /** A steward's hash-chained streams. */
  streams(steward: string): Promise<StreamSummary[]>;
  /** A steward's findings after finding number `after`, at most `limit`, oldest first. */
  streamFindings(steward: string, after: number, limit: number): Promise<StreamFinding[]>;
  /** The findings about one entry (it caused them, is their other side, or cleared the gap). */
  entryFindings(index: number): Promise<StreamFinding[]>;
  /** Indices under all of 1-3 search keys (log/streams/check.ts `searchKey`), after `after`. */
  search(keys: Uint8Array[], after: number, limit: number): Promise<number[]>;
  /**
   * The first signed head covering entry `index` (size and timestamp), from the batch records
   * (never pruned); undefined for an entry committed before they were kept.
   */
  integration(index: number): Promise<{ size: number; timestamp: number } | undefined>;
  /** From which index on the entries were checked: "all" for a store created with streams. */
  streamsReach(): Promise<number | "all">;
  /**
   * JCP §5.3: the outcome entry each activity entry is bound to (undefined: none); `[k]` answers
   * `activities[k]`. Written by the stream checks (`StreamTx.bind`) in the outcome's commit.
   */
  boundOutcomes(activities: number[]): Promise<(number | undefined)[]>;
  /**
   * The stream backfill's progress (docs/STREAMS.md "Backfill"): the next entry the rebuilt
   * state checks (0 before it began), undefined when every entry was checked (reach "all").
   */
  streamsBackfillNext(): Promise<number | undefined>;
  /** One bounded step of the stream backfill, in one transaction (`StreamBackfillStep`). */
  backfillStreams(step: StreamBackfillStep): Promise<number | "all">;
  /** A steward's accounts over a window (issue 30; docs/ACCOUNTING.md), kept with the checks. */
  accounts(q: AccountQuery): Promise<AccountPage>;
  /** Optional (issue 25): a logged grant, its links and first revocation (docs/GRANTS.md). */
  grant?(id: Uint8Array): Promise<GrantRecord | undefined>;
}

/**
 * One step of the stream backfill (log/streams_backfill.ts): the rebuilt state, a recomputation
 * of every entry's checks in log order kept beside the live state, checks `facts` (entries
 * `from` ..); once it is within `catchUp` entries of the log's size, the store checks the rest
 * itself (`read`) and the rebuilt state replaces the live one, in the same transaction. Answers
 * the next progress, or "all" once replaced. A `from` other than the store's progress is refused
 * (`StorageConflictError`, nothing written).
 */
export interface StreamBackfillStep {
  from: number;
  /** Entries `from` .. in order: each one's facts, undefined for an entry without. */
  facts: (EntryFacts | undefined)[];
  /** Reads an entry's facts from its bytes (the last entries, read inside the transaction). */
  read: (entry: Uint8Array) => EntryFacts | undefined;
  /** `closed-after-integration` skew, ms. */
  skewMs: number;
  /** Most entries the final step checks itself. */
  catchUp: number;
}

/** Extension: full tile groups as one read. */
export interface TileGroups {
  /**
   * The 16 full tiles (level, 16·group) .. (level, 16·group + 15) of a view as one 8 KiB array —
   * one published (height-8) tile when `level` is even — or undefined when the backend does not
   * hold them as one (then `tile`/`tileRange` answer). A backend that stores full groups as one
   * row (SQLite, docs/STORAGE.md "Tile groups") serves a published tile from one point read with
   * it; the bytes are the caller's.
   */
  tileGroup(level: number, group: number, view?: TreeView): Promise<Uint8Array | undefined>;
}

/** Extension: batched leaf lookup. */
export interface LeafLookupMany {
  /** `leafCandidates` of many leaf hashes in one call; `[k]` answers `leafHashes[k]`. */
  leafCandidatesMany(leafHashes: Uint8Array[]): Promise<number[][]>;
}

/**
 * Extension: the content index (docs/DECISIONS.md "One entry per signed content"). A store with
 * it stores `EntryWrite.contentId` in `commitBatch`, unique like the leaf index (a stored
 * identity refuses the batch).
 */
export interface ContentIndex {
  /** Each content identity's stored index (undefined: none); `[k]` answers `contentIds[k]`. */
  contentIndex(contentIds: Uint8Array[]): Promise<(number | undefined)[]>;
  /**
   * How many leading entries the index covers — "all" for a store whose every entry was
   * committed with its identity (a store created with the index); a number for a store written
   * before it existed, until `backfillContentIndex` completes it.
   */
  contentIndexReach(): Promise<number | "all">;
  /**
   * Adds identities of entries already stored (an identity already indexed keeps its first
   * index), then records the new reach; one atomic write.
   */
  backfillContentIndex(
    rows: { index: number; contentId: Uint8Array }[],
    reach: number | "all",
  ): Promise<void>;
}

/** Extension: the commit in two stages. */
export interface StagedCommit {
  /**
   * `commitBatch` in two stages. Resolves once the batch is committed (atomic, read back by this
   * store) with `durable`, which resolves once it, and every batch committed before it, survives
   * power loss (and rejects, as do all later ones, if that fails). The sequencer answers a batch
   * only after its `durable`, and meanwhile sequences and commits the next.
   */
  commitBatchStaged(batch: Batch): Promise<{ durable: Promise<void> }>;
}

/** Extension: the write probe. */
export interface WriteProbe {
  /**
   * One small durable write that changes no log data, the health check's probe while commits
   * fail (a full disk): resolves once the store accepts writes again.
   */
  probeWrite(): Promise<void>;
}

/** Extension: agents' chain heads (docs/METER-READING.md, JCP §5). */
export interface AgentHeads {
  /** An agent's chain head (written by `commitBatch`'s `agents`), or undefined. */
  agentHead(did: string): Promise<AgentHead | undefined>;
  /**
   * Whether the agents' chain heads cover the whole log: true for a store created with them;
   * false for a store written before them, until `putAgentHeads(…, true)` backfills it once.
   */
  agentHeadsComplete(): Promise<boolean>;
  /**
   * The one-time backfill's write: `heads` (per agent the larger index wins over what is stored)
   * and, when `complete`, the mark that the heads now cover the log, atomically.
   */
  putAgentHeads(heads: AgentHead[], complete: boolean): Promise<void>;
}

/** Extension: the SHA-256 view's migration (docs/STORAGE.md "Migration"). */
export interface ViewMigration {
  /**
   * Writes SHA-256-view tiles and sets `sha256Root` of existing heads (by size), atomically per
   * call. Idempotent (a tile rewritten with the same bytes, a root set again), so an interrupted
   * migration is simply run again; `openLog` calls it while the latest head has no
   * `sha256Root`. Writes nothing else.
   */
  commitViewBackfill(b: ViewBackfill): Promise<void>;
}

/** A batch that does not extend the stored log (another writer, or a stale sequencer). */
export class StorageConflictError extends Error {
  readonly code = "storage-conflict";
  constructor(message: string) {
    super(message);
    this.name = "StorageConflictError";
  }
}

/** Checks a batch against the stored head size; every backend calls this inside its transaction. */
export function checkBatchExtends(batch: Batch, storedSize: number | undefined): void {
  if (batch.head.sha256Root?.length !== 32) {
    throw new RangeError("Cannot commit batch: its head has no 32-byte SHA-256 view root");
  }
  const base = storedSize ?? 0;
  const first = batch.entries.length ? batch.entries[0].index : base;
  if (storedSize !== undefined && batch.entries.length === 0) {
    throw new StorageConflictError("Cannot commit batch: it has no entries and a head exists");
  }
  if (first !== base || batch.head.size !== base + batch.entries.length) {
    throw new StorageConflictError(
      `Cannot commit batch: it starts at ${first} with head size ${batch.head.size}, ` +
        `the stored log has ${base} entries`,
    );
  }
  batch.entries.forEach((e, i) => {
    if (e.index !== first + i) {
      throw new StorageConflictError("Cannot commit batch: entry indices are not consecutive");
    }
  });
}

/**
 * The first 6 bytes of a leaf hash as a non-negative integer (< 2^48, exact in a JS number and
 * stored in 6 bytes by SQLite): a compact key for a leaf index. A forged collision costs ~2^48
 * hashes per entry, so candidate lists stay short even under attack.
 */
export function leafPrefix(leafHash: Uint8Array): number {
  const h = leafHash;
  // bytes 0-1 times 2^32 plus bytes 2-5 as an unsigned 32-bit integer (big-endian, exact)
  return ((h[0] << 8) | h[1]) * 4294967296 +
    (((h[2] << 24) | (h[3] << 16) | (h[4] << 8) | h[5]) >>> 0);
}
