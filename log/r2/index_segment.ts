// One immutable index segment in R2 (issue 29, docs/EDGE.md "The index segments"): the leaf hashes
// and content identities of a run of 256-entry blocks with their indices, sorted, behind a Bloom
// filter and a fence by first key byte. Exactly-once past the sequencer's dedup window reads
// these instead of one write-once object per entry. Bytes are a pure function of the entries, so
// a replayed round rewrites identical objects.
//
// Layout (big-endian): "JCX1", level u8, hashes u8, 0 u16, first block u32, blocks u32,
// records u32, filter bytes u32 | fence: 257 × u32 (the first record whose key starts with byte b)
// | Bloom filter (blocks × 1024 bytes: 16 bits per possible key, two keys per entry)
// | records: key (32) kind (1) index (u64), sorted by key then kind.

/** What a key is: a leaf hash or a content identity (docs/DECISIONS.md "One entry per signed content"). */
export type IndexKind = 0 | 1;
/** A leaf hash's kind. */
export const LEAF_KIND: IndexKind = 0;
/** A content identity's kind. */
export const CONTENT_KIND: IndexKind = 1;

/** One record: a 32-byte key of a kind at an entry index. */
export interface IndexRecord {
  key: Uint8Array;
  kind: IndexKind;
  index: number;
}

/** Entries per block (the bundle width): a level-0 segment covers one. */
export const BLOCK = 256;
/** Segments merged into one of the next level. */
export const FANOUT = 16;
/** The highest level (65,536 entries, ~5.6 MB): merges stop there (a DO's memory). */
export const TOP_LEVEL = 2;

const MAGIC = [0x4a, 0x43, 0x58, 0x31]; // "JCX1"
const FIXED = 24;
const FENCE = 257 * 4;
/** Bytes before the filter. */
export const HEADER = FIXED + FENCE;
const RECORD = 41;
const HASHES = 11; // 16 bits a key, 11 hashes: ~0.05% false positives
const KEY = 32;

/** Filter bytes of a segment of `blocks` blocks (fixed by its size, so a reader knows its range). */
export const filterBytes = (blocks: number) => blocks * 1024;
/** Bytes of a segment's header and filter: what a miss reads (one ranged read). */
export const headBytes = (blocks: number) => HEADER + filterBytes(blocks);

/** Blocks a segment of `level` covers. */
export const levelBlocks = (level: number) => FANOUT ** level;

/** The R2 key of the level-`level` segment starting at block `first`. */
export const segmentKey = (level: number, first: number) => `index/${level}/${first}`;

/** A segment by place: its level, first block and block count. */
export interface SegmentId {
  level: number;
  first: number;
  blocks: number;
}

/**
 * The live segments of a log of `blocks` complete blocks, newest first: the fewest that cover
 * blocks 0 .. blocks-1 (whole top-level segments, then at most FANOUT-1 of each lower level).
 */
export function liveSegments(blocks: number): SegmentId[] {
  const out: SegmentId[] = [];
  let at = 0;
  for (let level = TOP_LEVEL; level >= 0; level--) {
    const w = levelBlocks(level);
    for (; at + w <= blocks; at += w) out.push({ level, first: at, blocks: w });
  }
  return out.reverse();
}

/** The merged segments block `b` completes (level ≥ 1), lowest level first. */
export function mergesAt(b: number): SegmentId[] {
  const out: SegmentId[] = [];
  for (let level = 1; level <= TOP_LEVEL; level++) {
    const w = levelBlocks(level);
    if ((b + 1) % w === 0) out.push({ level, first: b + 1 - w, blocks: w });
  }
  return out;
}

/** The FANOUT segments one level down that a merged segment is made of. */
export function children(s: SegmentId): SegmentId[] {
  const w = levelBlocks(s.level - 1);
  return Array.from({ length: FANOUT }, (_, k) => ({
    level: s.level - 1,
    first: s.first + k * w,
    blocks: w,
  }));
}

function compare(a: Uint8Array, ak: number, b: Uint8Array, bk: number): number {
  for (let i = 0; i < KEY; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return ak - bk;
}

function bloomBits(key: Uint8Array, kind: IndexKind, bits: number): number[] {
  const v = new DataView(key.buffer, key.byteOffset, KEY);
  const h1 = (v.getUint32(8) ^ Math.imul(kind + 1, 0x9e3779b9)) >>> 0;
  const h2 = (v.getUint32(12) | 1) >>> 0;
  const out: number[] = new Array(HASHES);
  for (let i = 0; i < HASHES; i++) out[i] = (h1 + Math.imul(i, h2) >>> 0) % bits;
  return out;
}

/** Encodes a segment of `id` holding `records` (any order; sorted here). */
export function encodeSegment(id: SegmentId, records: IndexRecord[]): Uint8Array {
  const rs = [...records].sort((a, b) => compare(a.key, a.kind, b.key, b.kind));
  const fb = filterBytes(id.blocks);
  const out = new Uint8Array(HEADER + fb + rs.length * RECORD);
  const v = new DataView(out.buffer);
  out.set(MAGIC, 0);
  v.setUint8(4, id.level);
  v.setUint8(5, HASHES);
  v.setUint32(8, id.first);
  v.setUint32(12, id.blocks);
  v.setUint32(16, rs.length);
  v.setUint32(20, fb);
  let r = 0;
  for (let b = 0; b <= 256; b++) {
    while (r < rs.length && rs[r].key[0] < b) r++;
    v.setUint32(FIXED + 4 * b, r);
  }
  const bits = fb * 8;
  rs.forEach((x, k) => {
    for (const p of bloomBits(x.key, x.kind, bits)) out[HEADER + (p >>> 3)] |= 1 << (p & 7);
    const o = HEADER + fb + k * RECORD;
    out.set(x.key, o);
    out[o + KEY] = x.kind;
    v.setUint32(o + KEY + 1, Math.floor(x.index / 2 ** 32));
    v.setUint32(o + KEY + 5, x.index >>> 0);
  });
  return out;
}

/** A segment's head (header and filter) as read back; throws on bytes that are not one. */
export class SegmentHead {
  readonly records: number;
  readonly #filter: Uint8Array;
  readonly #v: DataView;

  constructor(readonly id: SegmentId, readonly bytes: Uint8Array) {
    const fb = filterBytes(id.blocks);
    if (bytes.length < HEADER + fb || MAGIC.some((m, i) => bytes[i] !== m)) {
      throw new Error(`index segment ${segmentKey(id.level, id.first)} is damaged`);
    }
    this.#v = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    if (
      this.#v.getUint8(4) !== id.level || this.#v.getUint32(8) !== id.first ||
      this.#v.getUint32(12) !== id.blocks || this.#v.getUint32(20) !== fb
    ) throw new Error(`index segment ${segmentKey(id.level, id.first)} is another segment`);
    this.records = this.#v.getUint32(16);
    this.#filter = bytes.subarray(HEADER, HEADER + fb);
  }

  /** False: the key is certainly not in the segment; true: it may be (read its bucket). */
  mayHave(key: Uint8Array, kind: IndexKind): boolean {
    for (const p of bloomBits(key, kind, this.#filter.length * 8)) {
      if ((this.#filter[p >>> 3] & (1 << (p & 7))) === 0) return false;
    }
    return true;
  }

  /** The byte range of the records whose key starts with the key's first byte. */
  bucket(key: Uint8Array): { offset: number; length: number } {
    const a = this.#v.getUint32(FIXED + 4 * key[0]), b = this.#v.getUint32(FIXED + 4 * key[0] + 4);
    return {
      offset: HEADER + filterBytes(this.id.blocks) + a * RECORD,
      length: (b - a) * RECORD,
    };
  }
}

/** Records of a bucket (or of a whole records section). */
export function parseRecords(bytes: Uint8Array): IndexRecord[] {
  if (bytes.length % RECORD !== 0) throw new Error("index segment records are damaged");
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const out: IndexRecord[] = [];
  for (let o = 0; o < bytes.length; o += RECORD) {
    out.push({
      key: bytes.subarray(o, o + KEY),
      kind: bytes[o + KEY] as IndexKind,
      index: v.getUint32(o + KEY + 1) * 2 ** 32 + v.getUint32(o + KEY + 5),
    });
  }
  return out;
}

/** Every record of a whole segment's bytes. */
export function segmentRecords(id: SegmentId, bytes: Uint8Array): IndexRecord[] {
  const h = new SegmentHead(id, bytes);
  const start = HEADER + filterBytes(id.blocks);
  if (bytes.length !== start + h.records * RECORD) {
    throw new Error(`index segment ${segmentKey(id.level, id.first)} is truncated`);
  }
  return parseRecords(bytes.subarray(start));
}

/** The index of `key` of `kind` among records, or undefined. */
export function findRecord(
  records: IndexRecord[],
  key: Uint8Array,
  kind: IndexKind,
): number | undefined {
  for (const r of records) if (r.kind === kind && compare(r.key, 0, key, 0) === 0) return r.index;
  return undefined;
}
