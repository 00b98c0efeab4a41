// The Worker's log at internet scale (docs/EDGE.md "R2"; issue 12): every read comes from R2 —
// checkpoints, signed heads, tiles, bundles, entries (from their bundles), leaf indices — and
// proofs are computed here, in the stateless Worker, from tiles by the one pure implementation
// (log/c2sp/tile_proofs.ts through api/tile_readers.ts), each tile checked against the signed
// root. Only appends go to a Durable Object (a batcher, or the sequencer). Immutable values are
// kept in a bounded per-isolate cache; the latest head is re-read from R2 at most once a second,
// and is never older than the newest head this isolate's own appends returned. An object missing
// from R2 inside the latest head's size, or a failed read of one, is a `storage-read` fault (503
// `storage-unavailable`, /healthz degraded), never absence (log/read_faults.ts): a round is
// answered only once its tiles, bundles and head are in R2 (docs/EDGE.md "R2").
import {
  type AgentHead,
  type AgentLink,
  type AppendResult,
  type Log,
  LogInputError,
  LogStorageError,
  type StoredHead,
  type TreeHead,
  type TreeView,
} from "../../log/mod.ts";
import {
  encodeVkey,
  ENTRIES,
  parseBundle,
  SIG_ED25519,
  TILE_WIDTH,
  tileWithin,
} from "../../log/c2sp/mod.ts";
import { ReadFaults } from "../../log/read_faults.ts";
import { didKeyFromPublicKey, toHex } from "../../verify/mod.ts";
import { headReader } from "../tile_readers.ts";
import { ImmutableCache } from "./edge_log.ts";
import {
  checkpointKey,
  headFromJson,
  headKey,
  LATEST_HEAD_KEY,
  leafKey,
  type R2BucketLike,
  tileKey,
} from "./r2.ts";
import { type Outcome, unwrap } from "./wire.ts";

/**
 * Sends one append to the Durable Objects (a batcher or the sequencer); `link`: a meter reading's
 * agent link, whose chain head the sequencer writes in the entry's commit.
 */
export type AppendRpc = (entry: Uint8Array, link?: AgentLink) => Promise<Outcome<AppendResult>>;

function int(name: string, v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min || v > max) {
    throw new LogInputError(
      `bad-${name}`,
      `Cannot read log: ${name} must be an integer in [${min}, ${max}]`,
    );
  }
  return v;
}

function view(v: string): TreeView {
  if (v !== "blake3" && v !== "sha256") {
    throw new LogInputError("bad-view", `Cannot read tile: no view ${v}`);
  }
  return v;
}

/** Options of `R2Log`. */
export interface R2LogOptions {
  bucket: R2BucketLike;
  append: AppendRpc;
  /** Asked once when R2 has no head yet (a deployment's first request opens the sequencer). */
  bootstrap: () => Promise<Outcome<TreeHead>>;
  /** An agent's chain head, from the sequencer (it moves: never cached, never in R2). */
  agentHead?: (did: string) => Promise<Outcome<AgentHead | undefined>>;
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

/** The `Log` the Worker's app uses: reads from R2, appends to the Durable Objects. */
export class R2Log implements Log {
  readonly #o: R2LogOptions;
  readonly #signer: string;
  readonly #now: () => number;
  readonly cache: ImmutableCache;
  #seen: TreeHead | undefined;
  #latest: { head: TreeHead; at: number } | undefined;
  /** R2 reads this isolate made (stats). */
  r2Gets = 0;
  /** Reads inside the signed size that failed (log/read_faults.ts). */
  readonly #faults = new ReadFaults();

  constructor(o: R2LogOptions) {
    this.#o = o;
    this.#signer = didKeyFromPublicKey(o.publicKey);
    this.#now = o.now ?? Date.now;
    this.cache = new ImmutableCache(o.cacheBytes);
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

  #json(h: StoredHead): TreeHead {
    return {
      size: h.size,
      root: toHex(h.root),
      timestamp: h.timestamp,
      signature: toHex(h.signature),
      signer: this.#signer,
    };
  }

  #saw(h: TreeHead): void {
    if (!this.#seen || h.size > this.#seen.size) this.#seen = h;
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
    this.#saw(r.tree_head);
    return r;
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

  async latestHead(): Promise<TreeHead> {
    const now = this.#now();
    if (!this.#latest || now - this.#latest.at >= this.#o.latestMs) {
      const b = await this.#get(LATEST_HEAD_KEY);
      let head: TreeHead;
      if (b) head = this.#json(headFromJson(new TextDecoder().decode(b)));
      else head = unwrap(await this.#o.bootstrap()); // a deployment's very first request
      this.#latest = { head, at: now };
    }
    const r2 = this.#latest.head;
    return this.#seen && this.#seen.size > r2.size ? this.#seen : r2;
  }

  async headAt(size: number): Promise<TreeHead | undefined> {
    int("size", size, 0);
    const latest = await this.latestHead();
    if (size === latest.size) return latest;
    if (size > latest.size) {
      // A round's head is published (write-once `heads/<size>`) before `heads/latest` and the
      // checkpoints catch up with it: beyond the latest, absence is an answer, never a fault.
      const b = await this.#immutable(headKey(size));
      return b && this.#json(headFromJson(new TextDecoder().decode(b)));
    }
    // a size between two signed heads has none: absence, not a fault
    const b = await this.#faults.reading(
      `the head at ${size}`,
      () => this.#immutable(headKey(size)),
    );
    return b && this.#json(headFromJson(new TextDecoder().decode(b)));
  }

  async entry(index: number): Promise<Uint8Array | undefined> {
    int("index", index, 0);
    const size = (await this.latestHead()).size;
    if (index >= size) return undefined;
    const n = Math.floor(index / TILE_WIDTH);
    const width = Math.min(TILE_WIDTH, size - n * TILE_WIDTH);
    const b = await this.bundle(n, width); // inside the size: a bundle, or a storage-read fault
    return b && parseBundle(b, width)[index % TILE_WIDTH];
  }

  async indexOfLeaf(leafHash: Uint8Array): Promise<number | undefined> {
    if (!(leafHash instanceof Uint8Array) || leafHash.length !== 32) {
      throw new LogInputError("bad-leaf-hash", "Cannot look up leaf: leaf hash is not 32 bytes");
    }
    const b = await this.#faults.reading(
      "the leaf index",
      () => this.#immutable(leafKey(leafHash)),
    );
    if (!b) return undefined;
    const index = Number(new TextDecoder().decode(b));
    return index < (await this.latestHead()).size ? index : undefined;
  }

  async inclusionProof(index: number, size: number): Promise<Uint8Array[]> {
    int("size", size, 1, (await this.latestHead()).size);
    int("index", index, 0, size - 1);
    return await this.#faults.reading(
      `the inclusion proof of ${index} in ${size}`,
      async () => await (await headReader(this, size)).inclusionProof(index),
    );
  }

  async consistencyProof(first: number, second: number): Promise<Uint8Array[]> {
    int("second", second, 1, (await this.latestHead()).size);
    int("first", first, 1, second);
    return await this.#faults.reading(
      `the consistency proof of ${first} to ${second}`,
      async () => await (await headReader(this, second)).consistencyProof(first),
    );
  }

  async leafHashAt(index: number): Promise<Uint8Array | undefined> {
    int("index", index, 0);
    const size = (await this.latestHead()).size;
    if (index >= size) return undefined;
    return await this.#faults.inside(
      `the leaf hash of ${index}`,
      async () => await (await headReader(this, size)).leafHash(index),
    );
  }

  async checkpoint(v: TreeView): Promise<string> {
    const b = await this.#get(checkpointKey(view(v)));
    if (!b) throw new LogStorageError("r2-unavailable", "Cannot read the checkpoint: not in R2");
    return new TextDecoder().decode(b);
  }

  async tile(v: TreeView, level: number, index: number, width: number) {
    return await this.#published(tileKey(view(v), { level, index, width }), level, index, width);
  }

  async bundle(index: number, width: number): Promise<Uint8Array | undefined> {
    return await this.#published(
      tileKey("blake3", { level: ENTRIES, index, width }),
      ENTRIES,
      index,
      width,
    );
  }

  /**
   * A published tile or bundle: undefined beyond the latest head's tree (or a width it does not
   * have); inside it, the object, or a storage-read fault when R2 fails or lacks it.
   */
  async #published(key: string, level: number, index: number, width: number) {
    const hit = this.cache.get<Uint8Array>(key);
    if (hit) return hit.slice();
    const size = (await this.latestHead()).size;
    if (!tileWithin(size, { level, index, width })) {
      // beyond the head this isolate knows: R2 may hold it already (a newer round)
      return (await this.#immutable(key))?.slice();
    }
    return (await this.#faults.inside(`R2 object ${key}`, () => this.#immutable(key))).slice();
  }

  publicKey(): Uint8Array {
    return this.#o.publicKey.slice();
  }
  signer(): string {
    return this.#signer;
  }
  logName(): string {
    return this.#o.logName;
  }
  vkeys(): Record<TreeView, string> {
    return {
      blake3: encodeVkey(`${this.#o.logName}/blake3`, SIG_ED25519, this.#o.publicKey),
      sha256: encodeVkey(`${this.#o.logName}/sha256`, SIG_ED25519, this.#o.publicKey),
    };
  }
  async check(): Promise<void> {
    await this.latestHead();
    if (this.#o.health) unwrap(await this.#o.health());
    await this.#faults.check(); // a read inside the signed size that still fails
  }

  readFaults(): number {
    return this.#faults.count;
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}
