// The embedded log's reads (log/reader.ts `LogSource`) from its store (docs/STORAGE.md): heads,
// entries and tiles read through the storage contract, tree nodes through the sequencer's right
// edge and a cache of full tiles (log/tiles.ts), published tiles assembled from stored ones
// (log/published_tiles.ts) and kept in a slab cache. Bounded by what the sequencer has made
// durable (`Tip.served`): nothing past it is read. Pure.
import { blake3Hasher, HASH_SIZE } from "./hasher.ts";
import { toHex } from "./crypto.ts";
import { LogStorageError } from "./errors.ts";
import type { TreeHead } from "./head.ts";
import type { LogStorage, StoredHead, TileGroups, TreeView } from "./storage.ts";
import type { TreeEdge } from "./edge.ts";
import { TileCache, TileNodeReader } from "./tiles.ts";
import type { NodeReader } from "./tree.ts";
import { LEVELS, PUBLISHED_WIDTH, readPublishedTile } from "./published_tiles.ts";
import { SlabCache } from "./slab_cache.ts";
import { encodeBundle, ENTRIES } from "./c2sp/mod.ts";
import type { LogSource } from "./reader.ts";

/** Full published tiles each log keeps in memory (8 KiB each). */
const PUBLISHED_CACHE_TILES = 2048;

/** What is served: the latest durable head, its JSON form and both views' checkpoints. */
export interface Served {
  head: StoredHead;
  json: TreeHead;
  checkpoints: Record<TreeView, string>;
}

/** The sequencer's state the reads depend on (log/sequencer.ts). */
export interface Tip {
  /** The latest durable head: every read is bounded by it. */
  readonly served: Served;
  /** The BLAKE3 view's right edge (it may run one batch ahead of `served`). */
  readonly edge: TreeEdge;
  /** Throws when the log is broken (an integrity failure): health fails with it. */
  checkBroken(): void;
  /** After a failed commit: resolves once the store accepts writes again (health). */
  checkWrites(): Promise<void>;
}

/** Node readers over a store's BLAKE3 tiles, sharing one cache of full (final) tiles. */
export class StoreNodes {
  readonly #s: LogStorage;
  readonly #cache: TileCache;

  constructor(s: LogStorage, tileCacheTiles: number) {
    this.#s = s;
    this.#cache = new TileCache(tileCacheTiles);
  }

  /**
   * A reader over the batch's tiles (`overlay`), then the edge, then the store; full tiles read
   * from the store go to the tile cache (they are final).
   */
  reader(edge: TreeEdge, overlay?: Map<string, Uint8Array>): TileNodeReader {
    const s = this.#s;
    const cache = this.#cache;
    return new TileNodeReader(
      blake3Hasher,
      async (t, i) => {
        const b = overlay?.get(`${t}/${i}`) ?? edge.tile(t, i);
        if (b) return b;
        const stored = await s.tile(t, i);
        cache.put(t, i, stored);
        return stored;
      },
      // A batch's reader (overlay, uncloned edge) sees tiles that are not committed yet: the
      // cache, which keeps nodes for ever, is only for readers of the committed tree.
      overlay ? undefined : cache,
    );
  }
}

/** The embedded log's `LogSource`: its store, bounded by the sequencer's durable head. */
export class StoreSource implements LogSource {
  readonly #s: LogStorage;
  /** The store's full tile groups as one read, when it keeps them (SQLite). */
  readonly #groups: TileGroups | undefined;
  readonly #tip: Tip;
  readonly #nodes: StoreNodes;
  /** Full published tiles (immutable), least recently used out first. */
  readonly #published = new SlabCache(PUBLISHED_WIDTH * HASH_SIZE, PUBLISHED_CACHE_TILES);

  constructor(s: LogStorage, groups: TileGroups | undefined, tip: Tip, nodes: StoreNodes) {
    this.#s = s;
    this.#groups = groups;
    this.#tip = tip;
    this.#nodes = nodes;
  }

  latest(): Promise<TreeHead> {
    return Promise.resolve(this.#tip.served.json);
  }

  head(size: number): Promise<StoredHead | undefined> {
    return this.#s.head(size);
  }

  async firstHead(): Promise<StoredHead | undefined> {
    const [head] = await this.#s.heads(1, 1);
    return head;
  }

  entry(index: number): Promise<Uint8Array | undefined> {
    return this.#s.entry(index);
  }

  /** The stored index of a leaf hash: candidates confirmed against the level-0 tile. */
  async leafIndex(leafHash: Uint8Array): Promise<number | undefined> {
    const edge = this.#tip.edge;
    const reader = this.#nodes.reader(edge);
    const key = toHex(leafHash);
    for (const i of await this.#s.leafCandidates(leafHash)) {
      if (i >= edge.size) continue;
      const [stored] = await reader.read([{ level: 0, index: i }]);
      if (toHex(stored) === key) return i;
    }
    return undefined;
  }

  nodes(): Promise<NodeReader> {
    // every node of a tree the edge has grown past is final: one reader serves every size
    return Promise.resolve(this.#nodes.reader(this.#tip.edge).read);
  }

  checkpoint(view: TreeView): Promise<string> {
    return Promise.resolve(this.#tip.served.checkpoints[view]);
  }

  cached(view: TreeView, level: number, index: number, width: number): Uint8Array | undefined {
    if (width !== PUBLISHED_WIDTH || level === ENTRIES) return undefined;
    return this.#published.get(`${view}/${level}/${index}`);
  }

  /** A published tile of the signed tree (undefined: the store lacks it, a fault). */
  async tile(
    view: TreeView,
    level: number,
    index: number,
    width: number,
  ): Promise<Uint8Array | undefined> {
    const key = `${view}/${level}/${index}`;
    const s = this.#s;
    const groups = this.#groups;
    if (width === PUBLISHED_WIDTH && groups) {
      // a store that holds the 16 stored tiles as one (SQLite): one read, no assembly
      const whole = await groups.tileGroup(LEVELS * level, index, view);
      if (whole?.length === PUBLISHED_WIDTH * HASH_SIZE) {
        this.#published.put(key, whole);
        return whole;
      }
    }
    const bytes = await readPublishedTile(
      { range: (t, i, n) => s.tileRange(t, i, n, view) },
      level,
      index,
      width,
    );
    if (bytes !== undefined && width === PUBLISHED_WIDTH) {
      this.#published.put(key, bytes);
    }
    return bytes;
  }

  async bundle(index: number, width: number): Promise<Uint8Array | undefined> {
    const entries = await this.#s.entries(index * PUBLISHED_WIDTH, width);
    // fewer than the signed tree holds: the store lacks some (a fault, not a shorter log)
    return entries.length === width ? encodeBundle(entries) : undefined;
  }

  async health(): Promise<void> {
    this.#tip.checkBroken();
    try {
      await this.#s.latestHead();
    } catch (e) {
      throw new LogStorageError("storage-read", "Cannot read the store", { cause: e });
    }
  }

  writeHealth(): Promise<void> {
    return this.#tip.checkWrites();
  }
}
