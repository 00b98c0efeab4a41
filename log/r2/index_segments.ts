// The log's index in R2 past the sequencer's dedup window (issue 29, docs/EDGE.md "The index
// segments", docs/DECISIONS.md): leaf hash or content identity → entry index, as immutable sorted
// segments (log/r2/index_segment.ts), one per complete 256-entry block, merged 16 into one up to
// 65,536 entries. A lookup reads each live segment's head (header and Bloom filter: one ranged
// read, kept in a byte-bounded cache since it never changes) and, only where the filter says
// "maybe", the one fence bucket of records that could hold the key (one more ranged read). Both
// the sequencer (dedup) and the Worker (`GET /v1/log/leaves/{hash}`) read it.
import { LogStorageError } from "../errors.ts";
import {
  BLOCK,
  children,
  encodeSegment,
  findRecord,
  headBytes,
  type IndexKind,
  type IndexRecord,
  liveSegments,
  mergesAt,
  parseRecords,
  SegmentHead,
  type SegmentId,
  segmentKey,
  segmentRecords,
} from "./index_segment.ts";
import { limited } from "./r2.ts";

/** A byte range of an object. */
export interface ByteRange {
  offset: number;
  length: number;
}

/** Reads an object of the log's bucket, or a range of it; undefined when absent. */
export type RangeRead = (key: string, range?: ByteRange) => Promise<Uint8Array | undefined>;

/** One key to look up. */
export interface IndexQuery {
  key: Uint8Array;
  kind: IndexKind;
}

/**
 * The first block the segments cover (`index/start`, write-once): 0 for a log created by this
 * build; for a log upgraded from per-entry objects (`leaves/`, `contents/`), the block its first
 * round under this build started in. Entries before it are found through those objects.
 */
export const INDEX_START_KEY = "index/start";

/** Live segments' heads: their lookups without a read. */
export class SegmentIndex {
  readonly #read: RangeRead;
  readonly #cap: number;
  readonly #heads = new Map<string, SegmentHead>();
  #bytes = 0;
  /** Ranged reads of segment heads and buckets so far. */
  reads = 0;

  constructor(read: RangeRead, cacheBytes = 16 * 1024 * 1024) {
    this.#read = read;
    this.#cap = cacheBytes;
  }

  async #head(id: SegmentId, start: number): Promise<SegmentHead | undefined> {
    const key = segmentKey(id.level, id.first);
    const hit = this.#heads.get(key);
    if (hit) {
      this.#heads.delete(key);
      this.#heads.set(key, hit);
      return hit;
    }
    this.reads++;
    const b = await this.#read(key, { offset: 0, length: headBytes(id.blocks) });
    if (!b) {
      if (id.first < start) return undefined; // before the index began: the per-entry objects
      throw new LogStorageError("r2-unavailable", `Cannot read ${key}: not in R2`);
    }
    const h = new SegmentHead(id, b);
    this.#heads.set(key, h);
    this.#bytes += b.length;
    while (this.#bytes > this.#cap && this.#heads.size > 1) {
      const [k, old] = this.#heads.entries().next().value!;
      this.#heads.delete(k);
      this.#bytes -= old.bytes.length;
    }
    return h;
  }

  /**
   * Each query's index in the segments of the first `blocks` complete blocks that hold an entry
   * below `before` (the ones above are in the caller's own window), or undefined; newest first.
   */
  async lookup(
    queries: IndexQuery[],
    blocks: number,
    before: number,
    start: number,
  ): Promise<(number | undefined)[]> {
    const out: (number | undefined)[] = new Array(queries.length).fill(undefined);
    const segs = liveSegments(blocks).filter((s) => s.first * BLOCK < before);
    for (const s of segs) {
      const open = out.flatMap((v, k) => (v === undefined ? [k] : []));
      if (open.length === 0) break;
      const h = await this.#head(s, start);
      if (!h) continue;
      const maybe = open.filter((k) => h.mayHave(queries[k].key, queries[k].kind));
      await limited(maybe.map((k) => async () => {
        const r = h.bucket(queries[k].key);
        if (r.length === 0) return;
        this.reads++;
        const b = await this.#read(segmentKey(s.level, s.first), r);
        if (!b || b.length !== r.length) {
          throw new LogStorageError(
            "r2-unavailable",
            `Cannot read ${segmentKey(s.level, s.first)}`,
          );
        }
        out[k] = findRecord(parseRecords(b), queries[k].key, queries[k].kind);
      }));
    }
    return out;
  }
}

/** Writes what a round adds to the index: level-0 segments, then the merges they complete. */
export class SegmentWriter {
  readonly #read: RangeRead;
  readonly #put: (key: string, bytes: Uint8Array) => Promise<void>;
  // segments this writer made lately (the next merge's children), by key
  readonly #recent = new Map<string, Uint8Array>();

  constructor(read: RangeRead, put: (key: string, bytes: Uint8Array) => Promise<void>) {
    this.#read = read;
    this.#put = put;
  }

  #keep(key: string, bytes: Uint8Array): void {
    this.#recent.set(key, bytes);
    if (this.#recent.size > 2 * 16) this.#recent.delete(this.#recent.keys().next().value!);
  }

  /** The level-0 segment of block `b` from its records: a job for the round's upload wave. */
  block(b: number, records: IndexRecord[]): { key: string; bytes: Uint8Array } {
    const id = { level: 0, first: b, blocks: 1 };
    const bytes = encodeSegment(id, records);
    this.#keep(segmentKey(0, b), bytes);
    return { key: segmentKey(0, b), bytes };
  }

  /**
   * The merged segments that blocks `from` .. `to - 1` complete, each from its children (kept
   * here, else read back from R2; a child before `start` may be absent: the index began later).
   * Run after the level-0 puts: a merge's children are in R2 first.
   */
  async merges(from: number, to: number, start: number): Promise<void> {
    for (let b = from; b < to; b++) {
      for (const m of mergesAt(b)) {
        const records: IndexRecord[] = [];
        for (const c of children(m)) {
          const key = segmentKey(c.level, c.first);
          const bytes = this.#recent.get(key) ?? await this.#read(key);
          if (!bytes) {
            if (c.first < start) continue;
            throw new LogStorageError("r2-unavailable", `Cannot merge ${key}: not in R2`);
          }
          records.push(...segmentRecords(c, bytes));
        }
        const bytes = encodeSegment(m, records);
        await this.#put(segmentKey(m.level, m.first), bytes);
        this.#keep(segmentKey(m.level, m.first), bytes);
      }
    }
  }
}
