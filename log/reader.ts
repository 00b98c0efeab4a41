// The log's read contract, implemented once (docs/CONTRACTS.md): heads, entries, leaf lookups,
// RFC 6962 proofs (§2.1.1 inclusion, §2.1.2 consistency), checkpoints, C2SP tiles and bundles of
// the signed tree. Pure: what is stored comes from a `LogSource` — the embedded log's store
// (log/store_source.ts) or the Worker's R2 bucket (edge/worker/r2_log.ts) — and every rule about
// reading a signed log is kept here for both: bounds come from the latest signed head, only what
// lies beyond it is absent, and a read inside it that fails or answers nothing is a `storage-read`
// fault (log/read_faults.ts; issue 27), never absence.
import { HASH_SIZE } from "./hasher.ts";
import { blake3Hasher } from "./hasher.ts";
import { didKeyFromPublicKey, toHex } from "./crypto.ts";
import type { TreeHead } from "./head.ts";
import { LogInputError } from "./errors.ts";
import type { StoredHead, TreeView } from "./storage.ts";
import {
  consistencyProof,
  hashRanges,
  inclusionRanges,
  type NodeReader,
  type RangeMemo,
} from "./tree.ts";
import { ReadFaults } from "./read_faults.ts";
import { ENTRIES, tileWithin } from "./c2sp/mod.ts";
import { viewOf, vkeysOf } from "./views.ts";

/** The read contract: what every route reads of a log (docs/CONTRACTS.md). */
export interface LogReads {
  /** The latest signed head that is served (durable). */
  latestHead(): Promise<TreeHead>;
  /** The head signed at exactly `size` leaves; undefined between two signed heads or beyond. */
  headAt(size: number): Promise<TreeHead | undefined>;
  /**
   * The first signed head with at least one entry (its timestamp is when the log's first entry
   * was sequenced; docs/SHARDS.md `first_time`), or undefined while the log is empty or when the
   * source keeps no first head.
   */
  firstHead(): Promise<TreeHead | undefined>;
  entry(index: number): Promise<Uint8Array | undefined>;
  indexOfLeaf(leafHash: Uint8Array): Promise<number | undefined>;
  /** The leaf hash at `index` (undefined past the latest head), read from the tree. */
  leafHashAt(index: number): Promise<Uint8Array | undefined>;
  inclusionProof(index: number, size: number): Promise<Uint8Array[]>;
  consistencyProof(first: number, second: number): Promise<Uint8Array[]>;
  publicKey(): Uint8Array;
  signer(): string;
  /** The log's name: the views' origins are `<name>/blake3` and `<name>/sha256` (PUBLICATION.md). */
  logName(): string;
  /** Both views' C2SP vkeys (`<origin>+<key ID>+<base64(0x01 || public key)>`). */
  vkeys(): Record<TreeView, string>;
  /**
   * The latest signed checkpoint of a view (C2SP tlog-checkpoint note, signed by the log key),
   * at the latest head's size, with the root of that view's tree.
   */
  checkpoint(view: TreeView): Promise<string>;
  /**
   * A C2SP tlog-tiles hash tile (height 8) of a view in the tree of the latest head: `width`
   * hashes (256 full, 1..255 partial), or undefined when that tree has no such tile.
   */
  tile(
    view: TreeView,
    level: number,
    index: number,
    width: number,
  ): Promise<Uint8Array | undefined>;
  /** An entry bundle (uint16-prefixed entries, the same under both views), or undefined. */
  bundle(index: number, width: number): Promise<Uint8Array | undefined>;
  /**
   * Health: the source is readable and the log is not broken, and, after a commit failed (a full
   * disk), the store accepts writes again; otherwise throws a `LogStorageError` whose code names
   * the failing check (`storage-read`, `storage-write`). A read inside the signed size that
   * failed is `storage-read` until it answers again.
   */
  check(): Promise<void>;
  /** Reads inside the signed size that failed so far (log/read_faults.ts). */
  readFaults(): number;
}

/**
 * What the reader reads. Reads inside the latest head's size may throw or answer undefined: the
 * reader makes either a `storage-read` fault; `LogStorageError`s keep their code.
 */
export interface LogSource {
  /** The latest signed head that is served; every read is bounded by its size. */
  latest(): Promise<TreeHead>;
  /** The stored head signed at exactly `size` (< the latest's), or undefined: none at that size. */
  head(size: number): Promise<StoredHead | undefined>;
  /** Optional: the first head with an entry (the log is not empty). */
  firstHead?(): Promise<StoredHead | undefined>;
  /** The entry at `index` (< `size`, the latest head's). */
  entry(index: number, size: number): Promise<Uint8Array | undefined>;
  /** The index of the entry with this leaf hash, or undefined when no stored entry has it. */
  leafIndex(leafHash: Uint8Array): Promise<number | undefined>;
  /**
   * A reader of the nodes of the signed tree of `size` leaves (BLAKE3 view); `log` is the reader
   * itself (a source may prove from the log's own published tiles).
   */
  nodes(size: number, log: LogReads): Promise<NodeReader>;
  /** The latest signed checkpoint of a view. */
  checkpoint(view: TreeView): Promise<string>;
  /** A published tile or bundle (`level` `ENTRIES`) kept in memory: no read, no fault. */
  cached(view: TreeView, level: number, index: number, width: number): Uint8Array | undefined;
  /** A published hash tile inside the latest head's tree. */
  tile(
    view: TreeView,
    level: number,
    index: number,
    width: number,
  ): Promise<Uint8Array | undefined>;
  /** An entry bundle inside the latest head's tree. */
  bundle(index: number, width: number): Promise<Uint8Array | undefined>;
  /**
   * Optional: a signed head past the latest head this source knows, for a source whose latest
   * head may lag what it stores (R2: a round's write-once head precedes `heads/latest`); absent:
   * undefined. Absence there is an answer, never a fault.
   */
  headBeyond?(size: number): Promise<StoredHead | undefined>;
  /**
   * Optional: a tile or bundle past the latest head this source knows, for a source whose
   * latest head may lag what it stores (R2, re-read once a second); absent: undefined.
   */
  beyond?(
    view: TreeView,
    level: number,
    index: number,
    width: number,
  ): Promise<Uint8Array | undefined>;
  /** Health before the read faults: the source is readable (and not broken). */
  health(): Promise<void>;
  /** Optional: health after the read faults (the embedded store's write probe). */
  writeHealth?(): Promise<void>;
}

/** Who signs the log and what it is named. */
export interface ReaderIdentity {
  publicKey: Uint8Array;
  logName: string;
}

/** A signed head as the API serves it (`TreeHead`, hex fields). */
export function headJson(head: StoredHead, signer: string): TreeHead {
  return {
    size: head.size,
    root: toHex(head.root),
    timestamp: head.timestamp,
    signature: toHex(head.signature),
    signer,
  };
}

/** `v` as an integer in [min, max], or `bad-<name>`. */
export function int(name: string, v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min || v > max) {
    throw new LogInputError(
      `bad-${name}`,
      `Cannot read log: ${name} must be an integer in [${min}, ${max}]`,
    );
  }
  return v;
}

/** The hashes copied into one fresh buffer: the caller's to keep, sharing nothing with caches. */
function copied(hashes: Uint8Array[]): Uint8Array[] {
  const buf = new Uint8Array(hashes.length * HASH_SIZE);
  return hashes.map((x, k) => {
    buf.set(x, k * HASH_SIZE);
    return buf.subarray(k * HASH_SIZE, (k + 1) * HASH_SIZE);
  });
}

const h = blake3Hasher;

/** The read contract over a source: the one implementation every log serves its reads from. */
export class LogReader implements LogReads {
  readonly #src: LogSource;
  readonly #pub: Uint8Array;
  readonly #signer: string;
  readonly #name: string;
  readonly #vkeys: Record<TreeView, string>;
  /** Reads inside the signed size that failed: storage faults, never absence (read_faults.ts). */
  readonly #faults = new ReadFaults();
  /** Hashes of the right-border ranges of the latest head's tree, shared by its proofs. */
  #border: { size: number; memo: RangeMemo } = { size: -1, memo: new Map() };

  constructor(source: LogSource, id: ReaderIdentity) {
    this.#src = source;
    this.#pub = id.publicKey.slice();
    this.#signer = didKeyFromPublicKey(this.#pub);
    this.#name = id.logName;
    this.#vkeys = vkeysOf(id.logName, this.#pub);
  }

  latestHead(): Promise<TreeHead> {
    return this.#src.latest();
  }

  async #size(): Promise<number> {
    return (await this.#src.latest()).size;
  }

  async headAt(size: number): Promise<TreeHead | undefined> {
    int("size", size, 0);
    const latest = await this.#src.latest();
    if (size > latest.size) {
      const beyond = await this.#src.headBeyond?.(size);
      return beyond && headJson(beyond, this.#signer);
    }
    if (size === latest.size) return latest;
    // a size between two signed heads has none: absence, not a fault
    const head = await this.#faults.reading(`the head at ${size}`, () => this.#src.head(size));
    return head && headJson(head, this.#signer);
  }

  async firstHead(): Promise<TreeHead | undefined> {
    const src = this.#src;
    if (!src.firstHead || await this.#size() === 0) return undefined;
    const head = await this.#faults.inside("the first signed head", () => src.firstHead!());
    return headJson(head, this.#signer);
  }

  async entry(index: number): Promise<Uint8Array | undefined> {
    int("index", index, 0);
    const size = await this.#size();
    if (index >= size) return undefined;
    return await this.#faults.inside(`entry ${index}`, () => this.#src.entry(index, size));
  }

  async indexOfLeaf(leafHash: Uint8Array): Promise<number | undefined> {
    if (!(leafHash instanceof Uint8Array) || leafHash.length !== HASH_SIZE) {
      throw new LogInputError("bad-leaf-hash", "Cannot look up leaf: leaf hash is not 32 bytes");
    }
    const i = await this.#faults.reading(
      () => `the leaf index (${toHex(leafHash)})`,
      () => this.#src.leafIndex(leafHash),
    );
    return i !== undefined && i < await this.#size() ? i : undefined;
  }

  async inclusionProof(index: number, size: number): Promise<Uint8Array[]> {
    const latest = await this.#size();
    int("size", size, 1, latest);
    int("index", index, 0, size - 1);
    // every node of a signed tree is stored: a read that fails is a fault (read_faults.ts)
    return await this.#faults.reading(
      () => `the inclusion proof of ${index} in ${size}`,
      () => this.#inclusionProof(index, size, latest),
    );
  }

  async #inclusionProof(index: number, size: number, latest: number): Promise<Uint8Array[]> {
    const read = await this.#src.nodes(size, this);
    // RFC 6962 §2.1.1: the ranges ending at `size` (the right border) are the same for every
    // proof at that size; for the latest head they are memoized.
    const ranges = inclusionRanges(index, size);
    let memo: RangeMemo | undefined;
    if (size === latest) {
      if (this.#border.size !== size) this.#border = { size, memo: new Map() };
      memo = this.#border.memo;
    }
    const border = ranges.filter((r) => r.end === size);
    const inner = ranges.filter((r) => r.end !== size);
    const [b, i] = await Promise.all([
      hashRanges(h, border, read, memo),
      hashRanges(h, inner, read),
    ]);
    let nb = 0, ni = 0;
    return copied(ranges.map((r) => (r.end === size ? b[nb++] : i[ni++])));
  }

  async consistencyProof(first: number, second: number): Promise<Uint8Array[]> {
    int("second", second, 1, await this.#size());
    int("first", first, 1, second);
    return await this.#faults.reading(
      () => `the consistency proof of ${first} to ${second}`,
      async () =>
        copied(await consistencyProof(h, first, second, await this.#src.nodes(second, this))),
    );
  }

  async leafHashAt(index: number): Promise<Uint8Array | undefined> {
    int("index", index, 0);
    const size = await this.#size();
    if (index >= size) return undefined;
    const leaf = await this.#faults.inside(`the leaf hash of ${index}`, async () => {
      const [leaf] = await (await this.#src.nodes(size, this))([{ level: 0, index }]);
      return leaf;
    });
    return copied([leaf])[0];
  }

  publicKey(): Uint8Array {
    return this.#pub.slice();
  }

  signer(): string {
    return this.#signer;
  }

  logName(): string {
    return this.#name;
  }

  vkeys(): Record<TreeView, string> {
    return { ...this.#vkeys };
  }

  async checkpoint(view: TreeView): Promise<string> {
    viewOf(view, "checkpoint");
    return await this.#src.checkpoint(view);
  }

  async tile(
    view: TreeView,
    level: number,
    index: number,
    width: number,
  ): Promise<Uint8Array | undefined> {
    viewOf(view, "tile");
    return await this.#published(view, level, index, width);
  }

  async bundle(index: number, width: number): Promise<Uint8Array | undefined> {
    return await this.#published("blake3", ENTRIES, index, width);
  }

  /**
   * A published tile or bundle (tlog-tiles): of the latest head's tree, or a partial one a smaller
   * tree had (its hashes are the same); never an empty one. Beyond that tree: absent (or what a
   * lagging source already holds); inside it, the bytes or a `storage-read` fault.
   */
  async #published(
    view: TreeView,
    level: number,
    index: number,
    width: number,
  ): Promise<Uint8Array | undefined> {
    const src = this.#src;
    const hit = src.cached(view, level, index, width);
    if (hit) return hit; // the hot path: no closure, no fault bookkeeping
    if (!tileWithin(await this.#size(), { level, index, width })) {
      return await src.beyond?.(view, level, index, width);
    }
    if (level === ENTRIES) {
      return await this.#faults.inside(`entry bundle ${index}`, () => src.bundle(index, width));
    }
    return await this.#faults.inside(
      () => `${view} tile ${level}/${index}${width === 256 ? "" : `.p/${width}`}`,
      () => src.tile(view, level, index, width),
    );
  }

  async check(): Promise<void> {
    await this.#src.health();
    await this.#faults.check(); // a read inside the signed size that still fails
    await this.#src.writeHealth?.();
  }

  readFaults(): number {
    return this.#faults.count;
  }
}
