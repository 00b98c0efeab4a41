// The one SQL store of the log's storage contract (log/storage.ts, docs/STORAGE.md; issue 22 "One
// SQL store"): one schema (log/sql/schema.ts), one set of queries (log/sql/queries.ts) over a
// three-method executor (log/sql/executor.ts) that node:sqlite (log/sqlite/storage.ts) and a
// Durable Object's SQL (log/durable/storage.ts) both satisfy. What differs between the two is
// given as options: node:sqlite's durability off the event loop (`sync`: the WAL's fdatasync
// after a commit, before it is acknowledged; the staged commit), its group reader on a second
// connection (`tileGroup`); the Durable Object's table prefix and candidate confirmation.
//
// The leaf index keys the first 6 bytes of the leaf hash (candidates are confirmed against the
// level-0 tile), which keeps the per-entry overhead under 100 bytes (docs/DECISIONS.md). It lags:
// the newest entries' prefixes are held in memory (log/sql/leaf_tail.ts, rebuilt on open from the
// level-0 tiles, the durable truth) and written to `leaves` in one sorted insert per
// `leafIndexLag` entries, inside a batch's transaction (docs/STORAGE.md "Lagging leaf index").
import {
  type AgentHead,
  type AgentHeads,
  type Batch,
  checkBatchExtends,
  type ContentIndex,
  type KeyIndex,
  type LeafLookupMany,
  leafPrefix,
  type LogStorage,
  type StorageCapabilities,
  StorageConflictError,
  type StoredHead,
  type StreamBackfillStep,
  type StreamIndex,
  type TileGroups,
  type TreeView,
  type ViewBackfill,
  type ViewMigration,
} from "../storage.ts";
import { LogStorageError } from "../errors.ts";
import type { SqlExecutor, SqlParam, SqlRow } from "./executor.ts";
import { insertPairs, type Queries, queries } from "./queries.ts";
import { openSchema, type SchemaLineage } from "./schema.ts";
import { LEVEL1, viewTables, ViewTiles } from "./tiles.ts";
import { LeafTail } from "./leaf_tail.ts";
import { SqlStreams } from "./streams.ts";
import { SEARCH_KEY_LAG } from "./search_tail.ts";
import { SqlStreamsBackfill } from "./streams_backfill.ts";
import { SqlAccounts } from "./accounts.ts";
import { type AccountPage, type AccountQuery, foldAccounts } from "../accounts/mod.ts";
import { EntryRounds } from "./entry_rounds.ts";
import { SqlGrants } from "./grants.ts";
import {
  checkStreams,
  type GrantRecord,
  type StreamFinding,
  type StreamSummary,
} from "../streams/mod.ts";
import { SqlKeys } from "./keys.ts";
import type { CarriedKeys, IdentityRecord, KeyChainEvent, KeyHead } from "../keys/mod.ts";

/** Default of `leafIndexLag`: entries held in memory before the leaf index is flushed. */
export const LEAF_INDEX_LAG = 65_536;

/** Durability after a commit (node:sqlite's WAL fdatasync, log/sqlite/wal_sync.ts). */
export interface StoreSync {
  /** Resolves once every commit so far survives power loss; rejects (and keeps rejecting) if not. */
  durable(): Promise<void>;
  /** The error of a failed sync: every later write is refused with it. */
  failed(): Error | undefined;
}

/** Options of `SqlStore`. */
export interface SqlStoreOptions {
  /** Table-name prefix ("" in a data directory; "jc_" in a Durable Object). */
  prefix?: string;
  /** Whose schema numbering an existing store follows (default "sqlite"). */
  lineage?: SchemaLineage;
  /** The store in words, for messages (a path). */
  name?: string;
  /**
   * Most entries whose leaf-index rows are held in memory before one sorted flush to `leaves`;
   * 0 writes them with every batch. Default LEAF_INDEX_LAG.
   */
  leafIndexLag?: number;
  /**
   * Most entries whose search keys wait in `search_tail` before one sorted move into
   * `search_keys` (log/sql/search_tail.ts); 0 writes them with every batch. Default
   * SEARCH_KEY_LAG, and 0 with `roundRows` (a move writes each key twice).
   */
  searchKeyLag?: number;
  /** Rows per multi-row INSERT (default 64: 128 bound parameters). */
  rowsPerInsert?: number;
  /**
   * Drops leaf-index candidates that the stored level-0 tile refutes (a Durable Object, whose
   * caller asks R2 only when the store has no candidate).
   */
  confirmCandidates?: boolean;
  /**
   * Each batch's entries and content identities as one row (log/sql/entry_rounds.ts) instead of
   * a row per entry, and no leaf-index rows (the in-memory tail, never flushed): a Durable Object,
   * billed per row written (issue 29). Rows written per entry before stay readable.
   */
  roundRows?: boolean;
  /** Durability after each write; with it the store offers the staged commit (`StagedCommit`). */
  sync?: StoreSync;
  /** A faster read of a group row (node:sqlite's group reader); else a point read here. */
  tileGroup?: (level: number, group: number, view: 0 | 1) => Uint8Array | undefined;
  /** Runs when the store is closed (after which every call is refused). */
  onClose?: () => void;
  /** Test hook: inside the commit transaction after every row is written (throwing rolls back). */
  beforeCommitEnd?: (batch: Batch) => void;
}

/** A BLOB cell; anything else is a damaged store. */
function blob(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  throw new LogStorageError(
    "storage-corrupt",
    `Cannot read store: expected a BLOB, got ${typeof v}`,
  );
}

const toHead = (r: SqlRow): StoredHead => ({
  size: r.size as number,
  root: blob(r.root),
  timestamp: r.ts as number,
  signature: blob(r.sig),
  sha256Root: r.sha_root === null || r.sha_root === undefined ? undefined : blob(r.sha_root),
});

const same = (a: Uint8Array, b: Uint8Array) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

// Most entries have no candidate: they share one frozen empty list (a push into it throws).
const NONE = Object.freeze([]) as unknown as number[];

/**
 * The log store over an executor, with the extensions every SQL store has (and the staged commit
 * with `sync`). Methods are own properties (arrow functions), so a wrapper may spread the store
 * (`{ ...store, tile }`) as it may a plain object; its capabilities stay the store's own.
 */
export class SqlStore
  implements
    LogStorage,
    TileGroups,
    LeafLookupMany,
    ContentIndex,
    AgentHeads,
    ViewMigration,
    StreamIndex,
    KeyIndex {
  protected readonly x: SqlExecutor;
  protected readonly q: Queries;
  protected readonly prefix: string;
  readonly #o: SqlStoreOptions;
  readonly #lag: number;
  /** Both views' tiles: [blake3, sha256]. */
  protected readonly views: [ViewTiles, ViewTiles];
  readonly #tail = new LeafTail(0);
  readonly #streams: SqlStreams;
  readonly #backfill: SqlStreamsBackfill;
  readonly #accounts: SqlAccounts;
  /** With `roundRows`: the batches' rows. */
  protected readonly rounds: EntryRounds | undefined;
  readonly #grants: SqlGrants;
  readonly #keys: SqlKeys;
  #closed = false;

  constructor(x: SqlExecutor, o: SqlStoreOptions = {}) {
    const lag = o.roundRows ? Number.MAX_SAFE_INTEGER : o.leafIndexLag ?? LEAF_INDEX_LAG;
    if (!Number.isSafeInteger(lag) || lag < 0) {
      throw new RangeError(
        `Cannot open log store: leafIndexLag must be an integer >= 0, got ${lag}`,
      );
    }
    const p = o.prefix ?? "";
    if (p !== "" && !/^[a-z][a-z0-9_]*$/.test(p)) {
      throw new RangeError(
        `Cannot open store: table prefix ${JSON.stringify(p)} is not [a-z][a-z0-9_]*`,
      );
    }
    this.x = x;
    this.prefix = p;
    this.#o = o;
    this.#lag = lag;
    this.q = queries(p, o.rowsPerInsert ?? 64);
    openSchema(x, p, o.lineage ?? "sqlite", o.name ?? "");
    const t = viewTables(p);
    this.views = [new ViewTiles(x, t.blake3), new ViewTiles(x, t.sha256)];
    const searchLag = o.searchKeyLag ?? (o.roundRows ? 0 : SEARCH_KEY_LAG);
    const rows = o.rowsPerInsert ?? 64;
    this.#streams = new SqlStreams(x, p, { rows, lag: searchLag });
    this.#backfill = new SqlStreamsBackfill(x, p, { rows, lag: searchLag });
    this.#accounts = new SqlAccounts(x, p);
    this.rounds = o.roundRows ? new EntryRounds(x, p) : undefined;
    this.#grants = new SqlGrants(x, p);
    this.#keys = new SqlKeys(x, p);
    this.#syncTail();
  }

  /**
   * The extensions this store offers (a subclass adds its own): all but the write probe, and
   * the staged commit with `sync`.
   */
  protected storeCapabilities(): StorageCapabilities {
    const sync = this.#o.sync;
    return {
      tileGroups: this,
      leafLookupMany: this,
      contentIndex: this,
      agentHeads: this,
      viewMigration: this,
      streamIndex: this,
      keyIndex: this,
      stagedCommit: sync && {
        commitBatchStaged: async (batch: Batch) => {
          this.#writable();
          await this.#op("commit batch", () => this.#commit(batch));
          return { durable: sync.durable() };
        },
      },
    };
  }

  /** Runs a read or write, its failure a `LogStorageError` (`storage-fault` unless coded). */
  protected read<T>(what: string, fn: () => T): Promise<T> {
    return this.#op(what, fn);
  }

  #op<T>(what: string, fn: () => T): Promise<T> {
    if (this.#closed) {
      return Promise.reject(
        new LogStorageError("storage-closed", `Cannot ${what}: store is closed`),
      );
    }
    try {
      return Promise.resolve(fn());
    } catch (err) {
      if (err instanceof StorageConflictError || err instanceof LogStorageError) {
        return Promise.reject(err);
      }
      return Promise.reject(
        new LogStorageError("storage-fault", `Cannot ${what}: ${(err as Error)?.message ?? err}`, {
          cause: err,
        }),
      );
    }
  }

  /** A write, in one transaction, durable (with `sync`) before it resolves. */
  protected async write(what: string, fn: () => void): Promise<void> {
    this.#writable();
    await this.#op(what, () => this.x.transaction(fn));
    await this.#o.sync?.durable();
  }

  #writable(): void {
    const failed = this.#o.sync?.failed();
    if (failed) throw failed;
  }

  #view(view: TreeView | undefined): ViewTiles {
    return this.views[view === "sha256" ? 1 : 0];
  }

  /**
   * Brings the in-memory tail up to the store: rebuilt when `leaves` moved (another connection
   * flushed), extended from the level-0 tiles by entries committed since. An entry whose leaf
   * hash is missing from the tiles (a damaged or pruned store) gets no prefix; fsck reports it.
   */
  #syncTail(): void {
    const r = this.x.all(this.q.reach)[0];
    const upto = Number(r?.upto ?? 0), size = Number(r?.size ?? 0);
    const tail = this.#tail;
    if (upto !== tail.base || tail.base + tail.size > size) tail.reset(upto);
    const from = tail.base + tail.size;
    if (from >= size) return;
    const first = Math.floor(from / 16);
    const n = Math.min(LEVEL1, Math.floor((size - 1) / 16) + 1) - first;
    const tiles = this.views[0].range(0, first, n);
    for (let i = from; i < size; i++) {
      const b = tiles[Math.floor(i / 16) - first];
      const off = (i % 16) * 32;
      tail.push(b && b.length >= off + 32 ? leafPrefix(b.subarray(off, off + 32)) : -1);
    }
  }

  /** The stored leaf hash of entry `index` (from the level-0 tile), if stored. */
  protected storedLeaf(index: number): Uint8Array | undefined {
    const b = this.views[0].tile(0, Math.floor(index / 16));
    const off = (index % 16) * 32;
    return b && b.length >= off + 32 ? b.subarray(off, off + 32) : undefined;
  }

  /** Candidates of many leaf-hash prefixes with one statement ([k] answers prefixes[k]). */
  #candidatesMany(prefixes: number[]): number[][] {
    const out: number[][] = new Array(prefixes.length).fill(NONE);
    if (prefixes.length === 0) return out;
    const add = (k: number, i: number) => (out[k] === NONE ? (out[k] = [i]) : out[k].push(i));
    for (const r of this.x.all(this.q.leafMany, JSON.stringify(prefixes))) {
      add(r.k as number, r.idx as number);
    }
    const tail = this.#tail;
    for (let k = 0; k < prefixes.length; k++) {
      if (tail.has(prefixes[k])) {
        tail.candidates(prefixes[k], out[k] === NONE ? (out[k] = []) : out[k]);
      }
    }
    return out;
  }

  /** With `confirmCandidates`: drops the candidates whose stored leaf hash is another. */
  #confirm(list: number[], leafHash: Uint8Array): number[] {
    if (!this.#o.confirmCandidates || list.length === 0) return list;
    return list.filter((i) => {
      const stored = this.storedLeaf(i);
      return stored === undefined || same(stored, leafHash);
    });
  }

  latestHead = (): Promise<StoredHead | undefined> =>
    this.#op("read the latest head", () => {
      const r = this.x.all(this.q.latest)[0];
      return r && toHead(r);
    });
  head = (size: number): Promise<StoredHead | undefined> =>
    this.#op("read a head", () => {
      const r = this.x.all(this.q.head, size)[0];
      return r && toHead(r);
    });
  heads = (fromSize: number, limit: number): Promise<StoredHead[]> =>
    this.#op("read heads", () => this.x.all(this.q.heads, fromSize, limit).map(toHead));
  entry = (index: number): Promise<Uint8Array | undefined> =>
    this.#op("read an entry", () => {
      const e = this.rounds?.entry(index);
      if (e) return e;
      const r = this.x.all(this.q.entry, index)[0];
      return r && blob(r.bytes);
    });
  entries = (start: number, limit: number): Promise<Uint8Array[]> =>
    this.#op("read entries", () => {
      // consecutive from `start` (the contract): a row a damaged page no longer holds ends the
      // run there, never shifts a later entry into its place (log/read_faults.ts)
      const out: Uint8Array[] = this.rounds?.entries(start, limit) ?? [];
      if (out.length) return out;
      for (const r of this.x.all(this.q.entries, start, limit)) {
        if (r.idx !== start + out.length) break;
        out.push(blob(r.bytes));
      }
      // an object that wrote per entry before: its newest rows, then round rows
      if (this.rounds && out.length) {
        out.push(...this.rounds.entries(start + out.length, limit - out.length));
      }
      return out;
    });
  tile = (level: number, index: number, view?: TreeView): Promise<Uint8Array | undefined> =>
    this.#op("read a tile", () => this.#view(view).tile(level, index));
  tileRange = (
    level: number,
    start: number,
    count: number,
    view?: TreeView,
  ): Promise<(Uint8Array | undefined)[]> =>
    this.#op("read tiles", () => this.#view(view).range(level, start, count));
  tileGroup = (level: number, group: number, view?: TreeView): Promise<Uint8Array | undefined> =>
    this.#op("read a tile group", () => {
      const v = view === "sha256" ? 1 : 0;
      return this.#o.tileGroup
        ? this.#o.tileGroup(level, group, v)
        : this.views[v].group(level, group);
    });
  leafCandidates = (leafHash: Uint8Array): Promise<number[]> =>
    this.#op("read the leaf index", () => {
      this.#syncTail();
      const lp = leafPrefix(leafHash);
      const out = this.x.all(this.q.leaf, lp).map((r) => r.idx as number);
      this.#tail.candidates(lp, out);
      return this.#confirm(out, leafHash);
    });
  leafCandidatesMany = (leafHashes: Uint8Array[]): Promise<number[][]> =>
    this.#op("read the leaf index", () => {
      this.#syncTail();
      const out = this.#candidatesMany(leafHashes.map(leafPrefix));
      return out.map((c, k) => this.#confirm(c, leafHashes[k]));
    });
  contentIndex = (ids: Uint8Array[]): Promise<(number | undefined)[]> =>
    this.#op(
      "read the content index",
      () =>
        ids.map((id) =>
          this.rounds?.contentIndex(id) ??
            this.x.all(this.q.contentId, id)[0]?.idx as number | undefined
        ),
    );
  contentIndexReach = (): Promise<number | "all"> =>
    this.#op("read the content index reach", () => {
      const v = String(this.x.all(this.q.getMeta, "content_ids_upto")[0]?.v ?? "all");
      return v === "all" ? "all" : Number(v);
    });
  backfillContentIndex = (
    rows: { index: number; contentId: Uint8Array }[],
    reach: number | "all",
  ): Promise<void> =>
    this.write("backfill the content index", () => {
      for (const r of rows) this.x.run(this.q.backfillContentId, r.contentId, r.index); // first wins
      this.x.run(this.q.setContentReach, String(reach));
    });
  commitBatch = async (batch: Batch): Promise<void> => {
    this.#writable();
    await this.#op("commit batch", () => this.#commit(batch));
    await this.#o.sync?.durable();
  };

  /** One batch in one transaction (the tail moves only once it committed). */
  #commit(batch: Batch): void {
    let prefixes: number[] = [];
    let ids: [string, number][] = [];
    let streamTx: { committed(): void } | undefined;
    const flush = this.x.transaction(() => {
      const latest = this.x.all(this.q.latestSize)[0];
      checkBatchExtends(batch, latest?.size as number | undefined);
      this.#syncTail();
      prefixes = batch.entries.map((e) => leafPrefix(e.leafHash));
      this.#checkUnique(batch, prefixes);
      const q = this.q, rows = q.rows;
      if (this.rounds) {
        // a twin of a legacy row (an object written per entry) fails as content_ids' key would
        const old = batch.entries.filter((e) =>
          e.contentId && this.x.all(q.contentId, e.contentId).length > 0
        );
        if (old.length) throw new StorageConflictError("Cannot commit batch: a content is stored");
        ids = this.rounds.insert(batch.entries);
      } else {
        const rowArgs: SqlParam[] = [];
        for (const e of batch.entries) rowArgs.push(e.index, e.bytes);
        insertPairs(this.x, rows, q.insEntries, q.insEntry, rowArgs);
        const idArgs: SqlParam[] = [];
        for (const e of batch.entries) if (e.contentId) idArgs.push(e.contentId, e.index);
        insertPairs(this.x, rows, q.insContentIds, q.insContentId, idArgs); // unique: twin fails
      }
      this.views[0].put(batch.tiles);
      this.views[1].put(batch.sha256Tiles);
      const h = batch.head;
      this.x.run(q.insHead, h.size, h.root, h.timestamp, h.signature, h.sha256Root ?? null);
      for (const a of batch.agents ?? []) this.#putAgent(a);
      if (batch.entries.length) {
        this.#streams.putIntegration(batch.entries[0].index, h.size, h.timestamp);
      }
      const st = batch.streams;
      if (st) {
        // issue 24: the stream checks' state moves in the entries' own transaction
        const tx = streamTx = this.#streams.tx();
        tx.grants = this.#grants.tx(); // issue 25: grants and revocations, in the same order
        st.revocations = new Map();
        st.findings = checkStreams(tx, st.entries, h.timestamp, st.skewMs, st.revocations);
        tx.flush();
        // issue 30: the accounts move in the same transaction (docs/ACCOUNTING.md)
        const receipts = [];
        for (const e of st.entries) {
          const a = e.facts.account;
          if (a) receipts.push({ index: e.index, cid: e.facts.cid, facts: a });
        }
        if (receipts.length) {
          const ax = this.#accounts.tx();
          foldAccounts(ax, receipts, h.timestamp);
          ax.flush();
        }
      }
      if (batch.unchecked && batch.entries.length) {
        // checks off: neither streams nor accounts cover these entries (each reach moves past)
        this.#backfill.unchecked(h.size);
        this.x.run(this.q.putMeta, "accounts_upto", String(h.size));
      }
      if (batch.keys) this.#keys.put(batch.keys); // issue 25: the key state moves with its entries
      // Lagging leaf index: once the tail would exceed the lag, the tail and this batch go to
      // `leaves` in key order (each index page written once), in this same transaction.
      const tail = this.#tail;
      const flush = tail.size + batch.entries.length > this.#lag;
      if (flush) {
        const all = tail.sorted();
        batch.entries.forEach((e, k) => all.push({ prefix: prefixes[k], index: e.index }));
        all.sort((a, b) => a.prefix - b.prefix || a.index - b.index);
        const leafArgs: SqlParam[] = [];
        for (const r of all) if (r.prefix >= 0) leafArgs.push(r.prefix, r.index);
        insertPairs(this.x, rows, q.insLeaves, q.insLeaf, leafArgs);
        this.x.run(q.setUpto, String(h.size));
      }
      this.#o.beforeCommitEnd?.(batch);
      return flush;
    });
    this.rounds?.remember(ids);
    streamTx?.committed();
    if (flush) this.#tail.reset(batch.head.size);
    else for (const lp of prefixes) this.#tail.push(lp);
  }

  /** The leaf index is unique (docs/STORAGE.md): a stored or repeated leaf refuses the batch. */
  #checkUnique(batch: Batch, prefixes: number[]): void {
    const stored = this.#candidatesMany(prefixes);
    // prefix → the leaf hash(es) of this batch with that prefix (a list only on collision)
    const seen = new Map<number, Uint8Array | Uint8Array[]>();
    for (let k = 0; k < batch.entries.length; k++) {
      const e = batch.entries[k];
      for (const i of stored[k]) {
        const old = this.storedLeaf(i);
        if (old && same(old, e.leafHash)) {
          throw new StorageConflictError(
            `Cannot commit batch: entry ${e.index} is already stored at ${i}`,
          );
        }
      }
      const lp = prefixes[k];
      const twins = seen.get(lp);
      if (twins === undefined) seen.set(lp, e.leafHash);
      else {
        const list = twins instanceof Uint8Array ? [twins] : twins;
        if (list.some((x) => same(x, e.leafHash))) {
          throw new StorageConflictError("Cannot commit batch: an entry is in it twice");
        }
        list.push(e.leafHash);
        seen.set(lp, list);
      }
    }
  }

  #putAgent(a: AgentHead): void {
    this.x.run(this.q.putAgent, a.did, a.seq, a.prev, a.index);
    if (a.end !== undefined || a.calibrations !== undefined) {
      const cal = a.calibrations === undefined ? null : JSON.stringify(a.calibrations);
      this.x.run(this.q.putAgentState, a.did, a.index, a.end ?? null, cal);
    }
  }

  agentHead = (did: string): Promise<AgentHead | undefined> =>
    this.#op("read an agent's chain head", () => {
      const r = this.x.all(this.q.agent, did)[0];
      if (!r) return undefined;
      const h: AgentHead = {
        did: r.did as string,
        seq: r.seq as number,
        prev: blob(r.prev),
        index: r.idx as number,
      };
      // the state row of the head's own entry only (s.idx = h.idx): never an older reading's
      if (r.span_end !== null && r.span_end !== undefined) h.end = Number(r.span_end);
      if (typeof r.calibrations === "string") h.calibrations = JSON.parse(r.calibrations);
      return h;
    });
  agentHeadsComplete = (): Promise<boolean> =>
    this.#op(
      "read the agent heads' mark",
      () => this.x.all(this.q.getMeta, "agent_heads").length > 0,
    );
  putAgentHeads = (heads: AgentHead[], complete: boolean): Promise<void> =>
    this.write("write agents' chain heads", () => {
      for (const a of heads) this.#putAgent(a);
      if (complete) this.x.run(this.q.putMeta, "agent_heads", "complete");
    });
  commitViewBackfill = (b: ViewBackfill): Promise<void> =>
    this.write("migrate the SHA-256 view", () => {
      this.views[1].put(b.sha256Tiles);
      for (const r of b.roots) this.x.run(this.q.setShaRoot, r.sha256Root, r.size);
    });
  logName = (): Promise<string | undefined> =>
    this.#op(
      "read the log name",
      () => this.x.all(this.q.getMeta, "log_name")[0]?.v as string | undefined,
    );
  setLogName = (name: string): Promise<void> =>
    this.write("name the log", () => {
      const old = this.x.all(this.q.getMeta, "log_name")[0]?.v as string | undefined;
      if (old !== undefined && old !== name) {
        throw new StorageConflictError(`Cannot name the log ${name}: it is named ${old}`);
      }
      if (old === undefined) this.x.run(this.q.addMeta, "log_name", name);
    });
  /**
   * A value of the store's own state in `meta` (the signed-head pin's mark, a shard's marks), or
   * undefined. Synchronous: read while the store opens.
   */
  readMeta = (key: string): string | undefined => {
    if (this.#closed) {
      throw new LogStorageError("storage-closed", "Cannot read meta: store is closed");
    }
    return this.x.all(this.q.getMeta, key)[0]?.v as string | undefined;
  };
  /** Sets a value of the store's own state in `meta`, durably. */
  writeMeta = (key: string, value: string): Promise<void> =>
    this.write(`write ${key}`, () => void this.x.run(this.q.putMeta, key, value));
  streams = (steward: string): Promise<StreamSummary[]> =>
    this.#op("read streams", () => this.#streams.streams(steward));
  streamFindings = (steward: string, after: number, limit: number): Promise<StreamFinding[]> =>
    this.#op("read stream findings", () => this.#streams.findings(steward, after, limit));
  entryFindings = (index: number): Promise<StreamFinding[]> =>
    this.#op("read an entry's findings", () => this.#streams.entryFindings(index));
  search = (keys: Uint8Array[], after: number, limit: number): Promise<number[]> =>
    this.#op("search the log", () => this.#streams.search(keys, after, limit));
  integration = (index: number): Promise<{ size: number; timestamp: number } | undefined> =>
    this.#op("read an entry's integration", () => this.#streams.integration(index));
  grant = (id: Uint8Array): Promise<GrantRecord | undefined> =>
    this.#op("read a grant", () => this.#grants.grant(id));
  streamsReach = (): Promise<number | "all"> =>
    this.#op("read the streams reach", () => this.#streams.reach());
  boundOutcomes = (activities: number[]): Promise<(number | undefined)[]> =>
    this.#op("read activity bindings", () => this.#streams.boundOutcomes(activities));
  streamsBackfillNext = (): Promise<number | undefined> =>
    this.#op("read the stream backfill's progress", () => this.#backfill.next());
  backfillStreams = async (step: StreamBackfillStep): Promise<number | "all"> => {
    let next: number | "all" = "all";
    await this.write("backfill streams", () => void (next = this.#backfill.step(step)));
    return next;
  };
  accounts = (q: AccountQuery): Promise<AccountPage> =>
    this.#op("read accounts", () => ({
      ...this.#accounts.page(q),
      counted_from: this.#accounts.reach(),
    }));
  keyHeads = (identities: string[]): Promise<Map<string, KeyHead>> =>
    this.#op("read key heads", () => this.#keys.heads(identities));
  keyEvent = (identity: string, seq: number): Promise<KeyChainEvent | undefined> =>
    this.#op("read a key event", () => this.#keys.event(identity, seq));
  identityRecord = (identity: string): Promise<IdentityRecord | undefined> =>
    this.#op("read an identity", () => this.#keys.record(identity));
  carriedKeys = (from: string): Promise<CarriedKeys> =>
    this.#op("read the key state to carry", () => this.#keys.carried(from));
  carryKeys = async (c: CarriedKeys): Promise<string> => {
    let mark = "";
    await this.write("carry key state", () => void (mark = this.#keys.carry(c)));
    return mark;
  };
  capabilities = (): StorageCapabilities => this.storeCapabilities();
  close = (): Promise<void> => {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    try {
      this.#o.onClose?.();
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(
        new LogStorageError(
          "storage-fault",
          `Cannot close store: ${(err as Error)?.message ?? err}`,
          { cause: err },
        ),
      );
    }
  };
}
