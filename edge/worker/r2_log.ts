// The Worker's log at internet scale (docs/EDGE.md "R2"; issue 12): the log's one reader
// (log/reader.ts) over R2 — checkpoints, signed heads, tiles, bundles, entries (from their
// bundles), leaf indices — with proofs computed here, in the stateless Worker, from tiles by the
// one pure implementation (log/c2sp/tile_proofs.ts through api/services/tile_readers.ts), each tile checked
// against the signed root. Only appends go to a Durable Object (a batcher, or the sequencer). Immutable values are
// kept in a bounded per-isolate cache; the latest head is re-read from R2 at most once a second,
// and is never older than the newest head this isolate's own appends returned. An object missing
// from R2 inside the latest head's size, or a failed read of one, is a `storage-read` fault (503
// `storage-unavailable`, /healthz degraded), never absence (log/read_faults.ts): a round is
// answered only once its tiles, bundles and head are in R2 (docs/EDGE.md "R2").
import {
  type AgentHead,
  type AgentLink,
  type AppendResult,
  blake3Hasher,
  headJson,
  type Log,
  LogReader,
  type LogReads,
  type LogSource,
  LogStorageError,
  type NodeReader,
  queriedStreamReads,
  type StoredHead,
  type StreamQuery,
  type StreamReads,
  type TreeHead,
  type TreeView,
} from "../../log/mod.ts";
import { ENTRIES, parseBundle, TILE_WIDTH } from "../../log/c2sp/mod.ts";
import { didKeyFromPublicKey } from "../../verify/mod.ts";
import { headReader } from "../../api/mod.ts";
import { ImmutableCache } from "./immutable_cache.ts";
import {
  checkpointKey,
  headFromJson,
  headKey,
  INDEX_START_KEY,
  LATEST_HEAD_KEY,
  LEAF_KIND,
  leafKey,
  type R2BucketLike,
  r2RangeRead,
  SegmentIndex,
  tileKey,
} from "../../log/r2/mod.ts";
import { fromWire, type Outcome, unwrap } from "./wire.ts";

/**
 * Sends one append to the Durable Objects (a batcher or the sequencer); `link`: a meter reading's
 * agent link, whose chain head the sequencer writes in the entry's commit.
 */
export type AppendRpc = (entry: Uint8Array, link?: AgentLink) => Promise<Outcome<AppendResult>>;

/** Options of `R2Log`. */
export interface R2LogOptions {
  bucket: R2BucketLike;
  append: AppendRpc;
  /**
   * Optional: sends a bulk append's entries to the sequencer in one call (issue 29: the bulk is
   * its own batch); absent, `appendMany` sends each through `append`.
   */
  appendMany?: (entries: Uint8Array[]) => Promise<Outcome<AppendResult>[]>;
  /** Asked once when R2 has no head yet (a deployment's first request opens the sequencer). */
  bootstrap: () => Promise<Outcome<TreeHead>>;
  /** An agent's chain head, from the sequencer (it moves: never cached, never in R2). */
  agentHead?: (did: string) => Promise<Outcome<AgentHead | undefined>>;
  /** A stream read (issue 24), from the sequencer, whose SQLite keeps the stream state. */
  streamQuery?: (q: StreamQuery) => Promise<Outcome<unknown>>;
  publicKey: Uint8Array;
  logName: string;
  cacheBytes: number;
  /** How long a read of the latest head is reused, ms. */
  latestMs: number;
  /**
   * docs/SHARDS.md: the 409 `shard-frozen` error when this shard is frozen (undefined while it
   * is active); asked before an append (the Worker's directory state, at most a second old) and
   * `fresh` after the sequencer answered `shard-frozen`.
   */
  frozen?: (fresh: boolean) => Promise<Error | undefined>;
  /**
   * `/healthz`'s check of the sequencer (issue 27): a store it refuses to open (behind or
   * diverging from R2's signed head) fails with the refusal's code. One Durable Object call.
   */
  health?: () => Promise<Outcome<void>>;
  now?: () => number;
}

const same = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** The R2 bucket as the reader's source, with the per-isolate cache of immutable objects. */
class R2Source implements LogSource {
  readonly #o: R2LogOptions;
  readonly #signer: string;
  readonly #now: () => number;
  readonly cache: ImmutableCache;
  readonly #segments: SegmentIndex;
  #seen: TreeHead | undefined;
  #latest: { head: TreeHead; at: number } | undefined;
  /** R2 reads this isolate made (stats). */
  r2Gets = 0;

  constructor(o: R2LogOptions) {
    this.#o = o;
    this.#signer = didKeyFromPublicKey(o.publicKey);
    this.#now = o.now ?? Date.now;
    this.cache = new ImmutableCache(o.cacheBytes);
    // segment heads never change: their own byte-bounded cache, a quarter of the isolate's
    this.#segments = new SegmentIndex(
      r2RangeRead(o.bucket, () => this.r2Gets++),
      Math.floor(o.cacheBytes / 4),
    );
  }

  async #get(key: string): Promise<Uint8Array | undefined> {
    this.r2Gets++;
    let o;
    try {
      o = await this.#o.bucket.get(key);
    } catch (e) {
      throw new LogStorageError("r2-unavailable", `Cannot read ${key} from R2`, { cause: e });
    }
    return o ? new Uint8Array(await o.arrayBuffer()) : undefined;
  }

  async #immutable(key: string): Promise<Uint8Array | undefined> {
    const hit = this.cache.get<Uint8Array>(key);
    if (hit) return hit;
    const b = await this.#get(key);
    if (b) this.cache.set(key, b, b.length + key.length);
    return b;
  }

  /** A head this isolate's own append returned: the latest is never older. */
  saw(h: TreeHead): void {
    if (!this.#seen || h.size > this.#seen.size) this.#seen = h;
  }

  async latest(): Promise<TreeHead> {
    const now = this.#now();
    if (!this.#latest || now - this.#latest.at >= this.#o.latestMs) {
      const b = await this.#get(LATEST_HEAD_KEY);
      let head: TreeHead;
      if (b) head = headJson(headFromJson(new TextDecoder().decode(b)), this.#signer);
      else head = unwrap(await this.#o.bootstrap()); // a deployment's very first request
      this.#latest = { head, at: now };
    }
    const r2 = this.#latest.head;
    return this.#seen && this.#seen.size > r2.size ? this.#seen : r2;
  }

  async head(size: number): Promise<StoredHead | undefined> {
    const b = await this.#immutable(headKey(size));
    return b && headFromJson(new TextDecoder().decode(b));
  }

  /** A round's head is published (write-once `heads/<size>`) before `heads/latest` catches up. */
  headBeyond(size: number): Promise<StoredHead | undefined> {
    return this.head(size);
  }

  async entry(index: number, size: number): Promise<Uint8Array | undefined> {
    const n = Math.floor(index / TILE_WIDTH);
    const width = Math.min(TILE_WIDTH, size - n * TILE_WIDTH);
    const b = this.cached("blake3", ENTRIES, n, width) ?? await this.bundle(n, width);
    return b && parseBundle(b, width)[index % TILE_WIDTH];
  }

  /**
   * Issue 29: the latest head's partial block from its bundle (hashed here), then R2's index
   * segments of the complete blocks (docs/EDGE.md "The index segments"); a log upgraded from
   * per-entry objects (`index/start` > 0, or none yet) also reads its `leaves/<hash>`.
   */
  async leafIndex(leafHash: Uint8Array): Promise<number | undefined> {
    const size = (await this.latest()).size;
    const blocks = Math.floor(size / TILE_WIDTH), w = size % TILE_WIDTH;
    if (w > 0) {
      const b = this.cached("blake3", ENTRIES, blocks, w) ?? await this.bundle(blocks, w);
      if (!b) throw new LogStorageError("r2-unavailable", `Cannot read bundle ${blocks}`);
      const k = parseBundle(b, w).findIndex((e) => same(blake3Hasher.leaf(e), leafHash));
      if (k >= 0) return blocks * TILE_WIDTH + k;
    }
    const s = await this.#immutable(INDEX_START_KEY);
    const start = s ? Number(new TextDecoder().decode(s)) : undefined;
    if (start !== undefined) {
      const q = [{ key: leafHash, kind: LEAF_KIND }];
      const [found] = await this.#segments.lookup(q, blocks, Infinity, start);
      if (found !== undefined || start === 0) return found;
    }
    const b = await this.#immutable(leafKey(leafHash));
    return b && Number(new TextDecoder().decode(b));
  }

  async nodes(size: number, log: LogReads): Promise<NodeReader> {
    return (await headReader(log, size)).read;
  }

  async checkpoint(view: TreeView): Promise<string> {
    const b = await this.#get(checkpointKey(view));
    if (!b) throw new LogStorageError("r2-unavailable", "Cannot read the checkpoint: not in R2");
    return new TextDecoder().decode(b);
  }

  cached(view: TreeView, level: number, index: number, width: number): Uint8Array | undefined {
    return this.cache.get<Uint8Array>(tileKey(view, { level, index, width }))?.slice();
  }

  async tile(view: TreeView, level: number, index: number, width: number) {
    return (await this.#immutable(tileKey(view, { level, index, width })))?.slice();
  }

  bundle(index: number, width: number): Promise<Uint8Array | undefined> {
    return this.tile("blake3", ENTRIES, index, width);
  }

  /** Beyond the head this isolate knows: R2 may hold it already (a newer round). */
  beyond(view: TreeView, level: number, index: number, width: number) {
    return this.tile(view, level, index, width);
  }

  async health(): Promise<void> {
    await this.latest();
    if (this.#o.health) unwrap(await this.#o.health());
  }
}

/** The `Log` the Worker's app uses: the one reader over R2, appends to the Durable Objects. */
export class R2Log extends LogReader implements Log {
  readonly #o: R2LogOptions;
  readonly #src: R2Source;
  /** Streams, findings and lookups (issue 24), asked of the sequencer. */
  readonly streamReads: StreamReads | undefined;

  constructor(o: R2LogOptions) {
    const src = new R2Source(o);
    super(src, { publicKey: o.publicKey, logName: o.logName });
    this.#o = o;
    this.#src = src;
    const ask = o.streamQuery;
    this.streamReads = ask && queriedStreamReads(async (q) => unwrap(await ask(q)));
  }

  /** The per-isolate cache of immutable R2 objects. */
  get cache(): ImmutableCache {
    return this.#src.cache;
  }

  /** R2 reads this isolate made (stats). */
  get r2Gets(): number {
    return this.#src.r2Gets;
  }

  async append(entry: Uint8Array, link?: AgentLink): Promise<AppendResult> {
    const frozen = await this.#o.frozen?.(false);
    if (frozen) throw frozen;
    let o: Outcome<AppendResult>;
    try {
      o = await this.#o.append(entry, link);
    } catch (e) {
      // The batcher or sequencer was lost with this append pending: it may or may not be in the
      // log; a retry is answered exactly once (the same index).
      throw new LogStorageError("sequencer-unavailable", "Cannot append: the sequencer failed", {
        cause: e,
      });
    }
    if (!o.ok && o.error.code === "shard-frozen" && this.#o.frozen) {
      throw (await this.#o.frozen(true)) ?? unwrap(o);
    }
    const r = unwrap(o);
    this.#src.saw(r.tree_head);
    return r;
  }

  /**
   * A bulk append's entries (issue 29): one call to the sequencer, which sequences them together;
   * each outcome is what `append` would have resolved to or thrown.
   */
  async appendMany(entries: Uint8Array[]): Promise<PromiseSettledResult<AppendResult>[]> {
    const many = this.#o.appendMany;
    if (!many) return await Promise.allSettled(entries.map((e) => this.append(e)));
    const frozen = await this.#o.frozen?.(false);
    if (frozen) return entries.map(() => ({ status: "rejected", reason: frozen }));
    let outs: Outcome<AppendResult>[];
    try {
      outs = await many(entries);
    } catch (e) {
      // As for one append: they may or may not be in the log; a retry is answered exactly once.
      const reason = new LogStorageError(
        "sequencer-unavailable",
        "Cannot append: the sequencer failed",
        { cause: e },
      );
      return entries.map(() => ({ status: "rejected", reason }));
    }
    let refrozen: Error | undefined;
    if (outs.some((o) => !o.ok && o.error.code === "shard-frozen") && this.#o.frozen) {
      refrozen = await this.#o.frozen(true);
    }
    return outs.map((o): PromiseSettledResult<AppendResult> => {
      if (!o.ok) {
        const reason = o.error.code === "shard-frozen" && refrozen ? refrozen : fromWire(o.error);
        return { status: "rejected", reason };
      }
      this.#src.saw(o.value.tree_head);
      return { status: "fulfilled", value: o.value };
    });
  }

  /** The sequencer's chain head of `did` (it folds a store older than chain heads once). */
  async agentHead(did: string): Promise<AgentHead | undefined> {
    if (!this.#o.agentHead) {
      throw new LogStorageError(
        "storage-no-agent-heads",
        "Cannot read chain heads: no sequencer to ask",
      );
    }
    return unwrap(await this.#o.agentHead(did));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
