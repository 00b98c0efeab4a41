// The sequencer's store at internet scale (docs/EDGE.md "R2"; issue 12; Azul's order): the log
// core's storage contract over two parts. The Durable Object's SQLite (log/durable/) holds only
// the latest head, the right edge (stored tiles whose published height-8 tile is not full yet),
// the rounds not yet in R2 (their entries, tiles and heads: the staged uploads) and a bounded
// dedup window; R2 holds everything public. A round is committed to SQLite (staged, the head
// swapped atomically), then its new full and partial tiles of both views, its bundles, the index
// segment of each block it completes (log/r2/index_segments.ts) and its signed head are put to R2
// (at most 6 at a time), and
// only then does `commitBatch` resolve — so the log core answers an append only once it is in R2
// and covered by a signed head there. The mutable checkpoints follow at most once a second (R2:
// one write per second per key). After a restart, and before any round, unpublished rounds are
// uploaded again (deterministic bytes: a replay rewrites what is already there identically).
// What SQLite no longer holds is read back from R2's immutable full tiles and bundles.
import {
  type AccountPage,
  type AccountQuery,
  type AgentHead,
  type AgentHeads,
  type Batch,
  blake3Hasher,
  type CarriedKeys,
  type ContentIndex,
  type GrantRecord,
  type IdentityRecord,
  type KeyChainEvent,
  type KeyHead,
  type KeyIndex,
  type LeafLookupMany,
  LogIntegrityError,
  type LogStorage,
  LogStorageError,
  type StorageCapabilities,
  type StoredHead,
  type StreamBackfillStep,
  type StreamFinding,
  type StreamIndex,
  type StreamSummary,
  TREE_VIEWS,
  type TreeView,
  type ViewBackfill,
  type ViewMigration,
} from "../mod.ts";
import type { DurableLogStorage } from "../durable/mod.ts";
import {
  encodeBundle,
  ENTRIES,
  newTiles,
  parseBundle,
  signCheckpoint,
  TILE_WIDTH,
} from "../c2sp/mod.ts";
import { readPublishedTile } from "../mod.ts";
import {
  checkpointKey,
  contentKey,
  FIRST_TIME_KEY,
  headFromJson,
  headKey,
  headToJson,
  LATEST_HEAD_KEY,
  leafKey,
  limited,
  putOnce,
  type R2BucketLike,
  r2RangeRead,
  roundKey,
  tileKey,
} from "./r2.ts";
import { storeBehind } from "./published_pin.ts";
import { PrunedTiles } from "./pruned_tiles.ts";
import { BLOCK, CONTENT_KIND, type IndexRecord, LEAF_KIND } from "./index_segment.ts";
import { INDEX_START_KEY, type IndexQuery, SegmentIndex, SegmentWriter } from "./index_segments.ts";

/** Steps of a round, named for fault injection (tests restart the object between each pair). */
export type RoundStep = "staged" | "uploaded" | "head" | "checkpoint" | "published";

/** Options of `R2PublishedStorage`. */
export interface R2StorageOptions {
  /** The log key (checkpoints are signed when they are put). */
  secretKey: Uint8Array;
  /** Entries whose leaf hash stays in SQLite for dedup (>= 256); older ones are found in R2. */
  window: number;
  /** Least time between two writes of the checkpoints (R2: 1 write/s per key), ms. */
  checkpointMs: number;
  now?: () => number;
  /** Called after each step of a round; a test throws or aborts the object from it. */
  onStep?: (step: RoundStep, size: number) => void | Promise<void>;
  /**
   * Told when a checkpoint is held back (the once-a-second rule) and at what time (ms) it is due:
   * the Durable Object arms an alarm then, so an evicted object still publishes it (a timer dies
   * with the object).
   */
  onCheckpointDeferred?: (dueAt: number) => void;
}

/** An R2 call that failed: an operational fault (503, retry safe), never a bad answer. */
function r2Failed(what: string, cause: unknown): LogStorageError {
  return new LogStorageError("r2-unavailable", `Cannot ${what} in R2`, { cause });
}

/** What the sequencer's store did (Durable Object stats, bench). */
export interface R2StorageStats {
  r2Gets: number;
  r2Puts: number;
  checkpointPuts: number;
  rounds: number;
  replays: number;
  /** SQLite rows the object's store wrote (issue 29: billed per row). */
  sqliteRowsWritten: number;
}

/**
 * The log core's store: SQLite in the object for what changes, R2 for what is published. Its
 * extensions: the batched leaf lookup and the content index (SQLite's window, then R2), and the
 * object's chain heads and view migration, forwarded.
 */
export class R2PublishedStorage
  implements
    LogStorage,
    LeafLookupMany,
    ContentIndex,
    AgentHeads,
    ViewMigration,
    StreamIndex,
    KeyIndex {
  readonly #hot: DurableLogStorage;
  readonly #r2: R2BucketLike;
  readonly #o: R2StorageOptions;
  readonly #now: () => number;
  #published: number | undefined;
  #name: string | undefined;
  /** What SQLite pruned, from R2's full tiles (log/r2/pruned_tiles.ts). */
  readonly #pruned = new PrunedTiles((key) => this.#get(key));
  #cpAt = -Infinity;
  #cpSize = -1;
  #cpPending: StoredHead | undefined;
  #cpTimer: ReturnType<typeof setTimeout> | undefined;
  #replaying: Promise<void> | undefined;
  readonly #segments: SegmentIndex;
  readonly #segWriter: SegmentWriter;
  #indexStart: number | undefined;
  readonly #counts: Omit<R2StorageStats, "sqliteRowsWritten"> = {
    r2Gets: 0,
    r2Puts: 0,
    checkpointPuts: 0,
    rounds: 0,
    replays: 0,
  };

  /** What this store did so far. */
  get stats(): R2StorageStats {
    return { ...this.#counts, sqliteRowsWritten: this.#hot.rowsWritten() };
  }

  constructor(hot: DurableLogStorage, r2: R2BucketLike, o: R2StorageOptions) {
    if (!Number.isSafeInteger(o.window) || o.window < TILE_WIDTH) {
      throw new RangeError(`Cannot open the R2 store: dedup window ${o.window} < ${TILE_WIDTH}`);
    }
    this.#hot = hot;
    this.#r2 = r2;
    this.#o = o;
    this.#now = o.now ?? Date.now;
    const read = r2RangeRead(r2, () => this.#counts.r2Gets++);
    this.#segments = new SegmentIndex(read);
    this.#segWriter = new SegmentWriter(read, (key, bytes) => this.#writeOnce(key, bytes));
  }

  /**
   * The first block the index segments cover (`index/start`, write-once): read once; written by
   * the first round of this build (0 for a new log; for a log upgraded from per-entry objects,
   * the block it was in, whose earlier entries keep their `leaves/` and `contents/` objects).
   */
  async #start(from?: number): Promise<number | undefined> {
    if (this.#indexStart !== undefined) return this.#indexStart;
    const b = await this.#get(INDEX_START_KEY);
    if (b) return this.#indexStart = Number(new TextDecoder().decode(b));
    if (from === undefined) return undefined;
    const start = Math.floor(from / BLOCK);
    await this.#writeOnce(INDEX_START_KEY, String(start));
    return this.#indexStart = start;
  }

  /** Bytes of the object's SQLite database. */
  databaseBytes(): number {
    return this.#hot.databaseBytes();
  }

  async #get(key: string): Promise<Uint8Array | undefined> {
    this.#counts.r2Gets++;
    try {
      const o = await this.#r2.get(key);
      return o ? new Uint8Array(await o.arrayBuffer()) : undefined;
    } catch (e) {
      throw r2Failed(`read ${key}`, e);
    }
  }

  async #put(key: string, value: Uint8Array | string, contentType: string): Promise<void> {
    this.#counts.r2Puts++;
    try {
      await this.#r2.put(key, value, { httpMetadata: { contentType } });
    } catch (e) {
      throw r2Failed(`write ${key}`, e);
    }
  }

  /**
   * Uploads every round SQLite holds past the published size, oldest first, then records it
   * published (pruning SQLite). Runs before any round and after a restart; one at a time.
   */
  replay(): Promise<void> {
    this.#replaying ??= this.#replay().finally(() => this.#replaying = undefined);
    return this.#replaying;
  }

  async #replay(): Promise<void> {
    const pub = this.#published ?? await this.#hot.publishedSize();
    this.#published = pub;
    const latest = await this.#hot.latestHead();
    if (!latest || latest.size <= pub) return;
    this.#counts.replays++;
    let from = Math.max(pub, 0);
    for (;;) {
      const heads = await this.#hot.heads(pub < 0 ? 0 : pub + 1, 64);
      const todo = heads.filter((h) => h.size > (this.#published ?? -1));
      if (todo.length === 0) break;
      for (const h of todo) {
        await this.#publish(from, h);
        from = h.size;
      }
    }
  }

  async #logName(): Promise<string> {
    this.#name ??= await this.#hot.logName();
    if (this.#name === undefined) {
      throw new LogIntegrityError("Cannot publish: the log has no name");
    }
    return this.#name;
  }

  /** One round's uploads, from `from` leaves to `head`, in Azul's order. */
  async #publish(from: number, head: StoredHead): Promise<void> {
    const to = head.size;
    const jobs: (() => Promise<void>)[] = [];
    for (const t of newTiles(from, to)) {
      if (t.level === ENTRIES) {
        jobs.push(async () => {
          const entries = await this.#hot.entries(t.index * TILE_WIDTH, t.width);
          if (entries.length !== t.width) {
            throw new LogIntegrityError(`Cannot publish bundle ${t.index}: entries missing`);
          }
          await this.#put(tileKey("blake3", t), encodeBundle(entries), "application/octet-stream");
        });
        continue;
      }
      for (const view of TREE_VIEWS) {
        jobs.push(async () => {
          const bytes = await readPublishedTile(
            { range: (l, i, n) => this.tileRange(l, i, n, view) },
            t.level,
            t.index,
            t.width,
          );
          if (!bytes) {
            throw new LogIntegrityError(`Cannot publish ${view} tile ${t.level}/${t.index}`);
          }
          await this.#put(tileKey(view, t), bytes, "application/octet-stream");
        });
      }
    }
    // Issue 29: the index segment of each block the round completes (leaf hash and content
    // identity → index, write-once): exactly-once beyond the dedup window, one object a block.
    const start = to > from ? await this.#start(from) ?? 0 : 0;
    const [b0, b1] = [Math.floor(from / BLOCK), Math.floor(to / BLOCK)];
    for (let b = b0; b < b1; b++) {
      const entries = await this.#hot.entries(b * BLOCK, BLOCK);
      if (entries.length !== BLOCK) {
        throw new LogIntegrityError(`Cannot index block ${b}: entries missing`);
      }
      const records: IndexRecord[] = entries.map((e, k) => ({
        key: blake3Hasher.leaf(e),
        kind: LEAF_KIND,
        index: b * BLOCK + k,
      }));
      for (const c of await this.#hot.contentIdsIn(b * BLOCK, (b + 1) * BLOCK)) {
        records.push({ key: c.contentId, kind: CONTENT_KIND, index: c.index });
      }
      const seg = this.#segWriter.block(b, records);
      jobs.push(() => this.#writeOnce(seg.key, seg.bytes));
    }
    if (to > from) {
      // Issue 27: the round's write-once marker, in the same wave (no added latency); it is in R2
      // before the head is, so a store rolled back to `from` finds it on open (published_pin.ts).
      // Another round already published from `from`: this store is behind R2 (code, no upload).
      jobs.push(() =>
        this.#writeOnce(roundKey(from), headToJson(head), (was) =>
          storeBehind(
            `Cannot publish the round from ${from}: R2 holds another round from there (${was})`,
          ))
      );
      // docs/SHARDS.md: the directory's first_time, the time of the first round's head.
      if (from === 0) {
        jobs.push(() => this.#writeOnce(FIRST_TIME_KEY, new Date(head.timestamp).toISOString()));
      }
    }
    await limited(jobs);
    await this.#segWriter.merges(b0, b1, start); // after their children are in R2
    await this.#o.onStep?.("uploaded", to);
    await this.#put(headKey(to), headToJson(head), "application/json");
    await this.#o.onStep?.("head", to);
    await this.#checkpoint(head);
    await this.#o.onStep?.("checkpoint", to);
    await this.#hot.markPublished(to, this.#o.window);
    this.#published = to;
    this.#counts.rounds++;
    await this.#o.onStep?.("published", to);
  }

  /** `putOnce` (log/r2/r2.ts), counted. */
  #writeOnce(
    key: string,
    value: string | Uint8Array,
    conflict?: (was: string | undefined) => Error,
  ): Promise<void> {
    this.#counts.r2Puts++;
    return putOnce(this.#r2, key, value, () => this.#get(key), conflict);
  }

  /**
   * Puts both views' checkpoints and the latest head, unless the last put was under
   * `checkpointMs` ago: then the newest head waits for a timer (R2: 1 write/s per key).
   */
  async #checkpoint(head: StoredHead): Promise<void> {
    if (head.size < this.#cpSize) return;
    const wait = this.#cpAt + this.#o.checkpointMs - this.#now();
    if (wait > 0) {
      if (!this.#cpPending || this.#cpPending.size < head.size) this.#cpPending = head;
      this.#o.onCheckpointDeferred?.(this.#now() + wait);
      this.#cpTimer ??= setTimeout(() => {
        this.#cpTimer = undefined;
        const h = this.#cpPending;
        this.#cpPending = undefined;
        if (h) this.#checkpoint(h).catch(() => {}); // else the next round or start retries
      }, wait);
      return;
    }
    this.#cpAt = this.#now(); // reserve the slot before the put: no two puts in one second
    const name = await this.#logName();
    const cp = (view: TreeView) =>
      signCheckpoint(
        {
          origin: `${name}/${view}`,
          size: head.size,
          root: view === "blake3" ? head.root : head.sha256Root!,
        },
        this.#o.secretKey,
      );
    this.#counts.checkpointPuts++;
    await limited([
      () => this.#put(checkpointKey("blake3"), cp("blake3"), "text/plain; charset=utf-8"),
      () => this.#put(checkpointKey("sha256"), cp("sha256"), "text/plain; charset=utf-8"),
      () => this.#put(LATEST_HEAD_KEY, headToJson(head), "application/json"),
    ]);
    this.#cpSize = Math.max(this.#cpSize, head.size);
    if (this.#cpPending && this.#cpPending.size <= head.size) this.#cpPending = undefined;
  }

  /**
   * Puts the checkpoints of the latest published head now, or as soon as the once-a-second rule
   * allows (on start: a checkpoint held back when the object stopped is not lost).
   */
  async flushCheckpoint(): Promise<void> {
    const h = this.#cpPending ?? await this.#hot.latestHead();
    if (h && (this.#published ?? await this.#hot.publishedSize()) >= h.size) {
      await this.#checkpoint(h);
    }
  }

  /**
   * Waits until the checkpoints in R2 name at least `size` (a frozen shard's final ones,
   * docs/SHARDS.md), writing them as soon as the once-a-second rule allows.
   */
  async checkpointAt(size: number): Promise<void> {
    await this.replay();
    for (let k = 0; k < 8 && this.#cpSize < size; k++) {
      await this.flushCheckpoint();
      if (this.#cpSize >= size) return;
      const wait = Math.max(1, this.#cpAt + this.#o.checkpointMs - this.#now());
      await new Promise((r) => setTimeout(r, wait));
    }
    if (this.#cpSize < size) {
      throw new LogStorageError("r2-unavailable", `Cannot publish the checkpoint at ${size}`);
    }
  }

  latestHead(): Promise<StoredHead | undefined> {
    return this.#hot.latestHead();
  }
  async head(size: number): Promise<StoredHead | undefined> {
    const h = await this.#hot.head(size);
    if (h) return h;
    const b = await this.#get(headKey(size));
    return b && headFromJson(new TextDecoder().decode(b));
  }
  heads(fromSize: number, limit: number): Promise<StoredHead[]> {
    return this.#hot.heads(fromSize, limit); // the unpublished ones and the latest
  }
  async entry(index: number): Promise<Uint8Array | undefined> {
    const e = await this.#hot.entry(index);
    if (e) return e;
    const n = Math.floor(index / TILE_WIDTH);
    const b = await this.#get(tileKey("blake3", { level: ENTRIES, index: n, width: TILE_WIDTH }));
    return b && parseBundle(b, TILE_WIDTH)[index % TILE_WIDTH];
  }
  async entries(start: number, limit: number): Promise<Uint8Array[]> {
    const hot = await this.#hot.entries(start, limit);
    if (hot.length > 0 && (await this.#hot.entry(start)) !== undefined) return hot;
    const out: Uint8Array[] = [];
    for (let i = start; i < start + limit; i++) {
      const e = await this.entry(i);
      if (!e) break;
      out.push(e);
    }
    return out;
  }
  async tile(level: number, index: number, view?: TreeView): Promise<Uint8Array | undefined> {
    return (await this.#hot.tile(level, index, view)) ??
      await this.#pruned.tile(level, index, view ?? "blake3");
  }
  async tileRange(
    level: number,
    start: number,
    count: number,
    view?: TreeView,
  ): Promise<(Uint8Array | undefined)[]> {
    const hot = await this.#hot.tileRange(level, start, count, view);
    return await Promise.all(
      hot.map((t, k) => t ?? this.#pruned.tile(level, start + k, view ?? "blake3")),
    );
  }

  /**
   * Keys the SQLite window lacks, in R2's index: the segments of the published blocks that
   * reach below the window, then (a log upgraded from per-entry objects) the object of each key
   * still missing. One ranged read per segment head not cached, one per filter "maybe".
   */
  async #inR2(queries: IndexQuery[]): Promise<(number | undefined)[]> {
    if (queries.length === 0) return [];
    const pub = this.#published ?? await this.#hot.publishedSize();
    if (pub <= 0) return queries.map(() => undefined);
    const start = await this.#start(); // none yet: a log upgraded before its first round
    // what the window keeps since the last prune (DurableLogStorage.markPublished)
    const kept = Math.min(Math.floor(pub / BLOCK) * BLOCK, pub - this.#o.window);
    const out = start === undefined
      ? queries.map(() => undefined)
      : await this.#segments.lookup(queries, Math.floor(pub / BLOCK), kept, start);
    if (start !== 0) {
      await limited(
        out.flatMap((v, k) => (v === undefined ? [k] : [])).map((k) => async () => {
          const q = queries[k];
          const b = await this.#get(q.kind === LEAF_KIND ? leafKey(q.key) : contentKey(q.key));
          if (b) out[k] = Number(new TextDecoder().decode(b));
        }),
      );
    }
    return out;
  }

  /** Candidates from the SQLite window, else R2's index. */
  async leafCandidates(leafHash: Uint8Array): Promise<number[]> {
    return (await this.leafCandidatesMany([leafHash]))[0];
  }
  async leafCandidatesMany(leafHashes: Uint8Array[]): Promise<number[][]> {
    await this.replay(); // a round after a failed one publishes the failed one first
    const out: number[][] = await this.#hot.leafCandidatesMany(leafHashes);
    const misses = out.flatMap((c, k) => (c.length ? [] : [k]));
    const found = await this.#inR2(misses.map((k) => ({ key: leafHashes[k], kind: LEAF_KIND })));
    misses.forEach((k, j) => found[j] !== undefined && (out[k] = [found[j]!]));
    return out;
  }

  /** Content identities: the SQLite window first, else R2's index. */
  async contentIndex(ids: Uint8Array[]): Promise<(number | undefined)[]> {
    const out = await this.#hot.contentIndex(ids);
    const misses = out.flatMap((v, k) => (v === undefined ? [k] : []));
    const found = await this.#inR2(misses.map((k) => ({ key: ids[k], kind: CONTENT_KIND })));
    misses.forEach((k, j) => found[j] !== undefined && (out[k] = found[j]));
    return out;
  }
  contentIndexReach(): Promise<number | "all"> {
    return this.#hot.contentIndexReach();
  }
  backfillContentIndex(
    rows: { index: number; contentId: Uint8Array }[],
    reach: number | "all",
  ): Promise<void> {
    return this.#hot.backfillContentIndex(rows, reach);
  }

  async commitBatch(batch: Batch): Promise<void> {
    await this.replay();
    const from = (await this.#hot.latestHead())?.size ?? 0;
    await this.#hot.commitBatch(batch); // staged: SQLite holds the round, the head is swapped
    await this.#o.onStep?.("staged", batch.head.size);
    await this.#publish(from, batch.head);
  }
  // Agents' chain heads (issue 16) stay in SQLite, one row per agent (bounded by the registered
  // agents, never pruned): `commitBatch` writes them with the round's rows, in one transaction.
  agentHead(did: string): Promise<AgentHead | undefined> {
    return this.#hot.agentHead(did);
  }
  agentHeadsComplete(): Promise<boolean> {
    return this.#hot.agentHeadsComplete();
  }
  putAgentHeads(heads: AgentHead[], complete: boolean): Promise<void> {
    return this.#hot.putAgentHeads(heads, complete);
  }
  commitViewBackfill(b: ViewBackfill): Promise<void> {
    return this.#hot.commitViewBackfill(b);
  }
  // Streams (issue 24) stay in SQLite, never pruned: `commitBatch` runs the checks in the round's
  // transaction (the one SQL store's), so they are exactly-once with the round.
  streams(steward: string): Promise<StreamSummary[]> {
    return this.#hot.streams(steward);
  }
  streamFindings(steward: string, after: number, limit: number): Promise<StreamFinding[]> {
    return this.#hot.streamFindings(steward, after, limit);
  }
  entryFindings(index: number): Promise<StreamFinding[]> {
    return this.#hot.entryFindings(index);
  }
  search(keys: Uint8Array[], after: number, limit: number): Promise<number[]> {
    return this.#hot.search(keys, after, limit);
  }
  boundOutcomes(activities: number[]): Promise<(number | undefined)[]> {
    return this.#hot.boundOutcomes(activities);
  }
  streamsReach(): Promise<number | "all"> {
    return this.#hot.streamsReach();
  }
  streamsBackfillNext(): Promise<number | undefined> {
    return this.#hot.streamsBackfillNext();
  }
  backfillStreams(step: StreamBackfillStep): Promise<number | "all"> {
    return this.#hot.backfillStreams(step);
  }
  accounts(q: AccountQuery): Promise<AccountPage> {
    return this.#hot.accounts(q);
  }
  /** Issue 25: a logged grant and its first revocation (the object's SQLite holds them). */
  grant(id: Uint8Array): Promise<GrantRecord | undefined> {
    return this.#hot.grant?.(id) ?? Promise.resolve(undefined);
  }
  integration(index: number): Promise<{ size: number; timestamp: number } | undefined> {
    return this.#hot.integration(index);
  }
  // Key-event chains (issue 25; docs/KEYS.md) stay in SQLite, written with the round's rows.
  keyHeads(identities: string[]): Promise<Map<string, KeyHead>> {
    return this.#hot.keyHeads(identities);
  }
  keyEvent(identity: string, seq: number): Promise<KeyChainEvent | undefined> {
    return this.#hot.keyEvent(identity, seq);
  }
  identityRecord(identity: string): Promise<IdentityRecord | undefined> {
    return this.#hot.identityRecord(identity);
  }
  carriedKeys(from: string): Promise<CarriedKeys> {
    return this.#hot.carriedKeys(from);
  }
  carryKeys(c: CarriedKeys): Promise<string> {
    return this.#hot.carryKeys(c);
  }
  logName(): Promise<string | undefined> {
    return this.#hot.logName();
  }
  setLogName(name: string): Promise<void> {
    return this.#hot.setLogName(name);
  }
  /**
   * No tile groups (published tiles the object pruned are in R2), no staged commit (a round
   * resolves once in R2) and no write probe.
   */
  capabilities(): StorageCapabilities {
    return {
      leafLookupMany: this,
      contentIndex: this,
      agentHeads: this,
      viewMigration: this,
      streamIndex: this,
      keyIndex: this,
    };
  }
  close(): Promise<void> {
    if (this.#cpTimer !== undefined) clearTimeout(this.#cpTimer);
    this.#cpTimer = undefined;
    return this.#hot.close();
  }
}
