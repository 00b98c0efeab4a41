// The Worker's view of the log (docs/EDGE.md): implements the log core's `Log` contract
// (docs/CONTRACTS.md) by forwarding to the sequencer Durable Object over RPC, and answers
// immutable reads (an entry that exists, the head at a size, proofs for a fixed size, a leaf's
// index) from a bounded per-isolate cache without touching the sequencer. A transparency log
// never changes what it has published (SPEC §22.3), so such an answer stays right for ever;
// whatever can still change (the latest head, absent entries, errors) is never cached.
import type { AppendResult, Log, TreeHead, TreeView } from "../../log/mod.ts";
import { encodeVkey, SIG_ED25519 } from "../../log/c2sp/mod.ts";
import { didKeyFromPublicKey, toHex } from "../../verify/mod.ts";
import { type Outcome, unwrap } from "./wire.ts";

/** The sequencer's RPC surface (durable_object.ts); a stub or, in tests, the core itself. */
export interface SequencerRpc {
  append(entry: Uint8Array): Promise<Outcome<AppendResult>>;
  entry(index: number): Promise<Outcome<Uint8Array | undefined>>;
  indexOfLeaf(leafHash: Uint8Array): Promise<Outcome<number | undefined>>;
  latestHead(): Promise<Outcome<TreeHead>>;
  headAt(size: number): Promise<Outcome<TreeHead | undefined>>;
  inclusionProof(index: number, size: number): Promise<Outcome<Uint8Array[]>>;
  consistencyProof(first: number, second: number): Promise<Outcome<Uint8Array[]>>;
  checkpoint(view: TreeView): Promise<Outcome<string>>;
  tile(
    view: TreeView,
    level: number,
    index: number,
    width: number,
  ): Promise<Outcome<Uint8Array | undefined>>;
  bundle(index: number, width: number): Promise<Outcome<Uint8Array | undefined>>;
  check(): Promise<Outcome<void>>;
}

/** A byte-bounded least-recently-used map (Map keeps insertion order). */
export class ImmutableCache {
  readonly #map = new Map<string, { value: unknown; bytes: number }>();
  readonly #maxBytes: number;
  #bytes = 0;
  hits = 0;
  misses = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get<T>(key: string): T | undefined {
    const e = this.#map.get(key);
    if (!e) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.#map.delete(key);
    this.#map.set(key, e);
    return e.value as T;
  }

  set(key: string, value: unknown, bytes: number): void {
    if (bytes > this.#maxBytes) return;
    const old = this.#map.get(key);
    if (old) {
      this.#bytes -= old.bytes;
      this.#map.delete(key);
    }
    this.#map.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [k, e] of this.#map) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#map.delete(k);
      this.#bytes -= e.bytes;
    }
  }

  get size(): number {
    return this.#map.size;
  }
  get bytes(): number {
    return this.#bytes;
  }
}

const HEAD_BYTES = 300; // a TreeHead object, roughly

/** The `Log` the Worker's app uses: RPC to the sequencer plus the immutable-read cache. */
export class EdgeLog implements Log {
  readonly #rpc: () => SequencerRpc;
  readonly #pub: Uint8Array;
  readonly #signer: string;
  readonly #name: string;
  readonly cache: ImmutableCache;

  /**
   * `rpc` returns the sequencer's stub (cheap to create; called per operation so a broken stub
   * is never reused); `publicKey` is the log key's public half, known to the Worker from its
   * secret so that `publicKey()` and `signer()` need no round trip; `logName` likewise (the
   * Durable Object refuses to open a log bound to another name, so the two cannot differ).
   */
  constructor(
    rpc: () => SequencerRpc,
    publicKey: Uint8Array,
    cacheBytes = 8 * 1024 * 1024,
    logName = "",
  ) {
    this.#rpc = rpc;
    this.#name = logName;
    this.#pub = publicKey.slice();
    this.#signer = didKeyFromPublicKey(publicKey);
    this.cache = new ImmutableCache(cacheBytes);
  }

  async #memo<T>(key: string, load: () => Promise<T>, size: (v: T) => number): Promise<T> {
    const hit = this.cache.get<T>(key);
    if (hit !== undefined) return hit;
    const v = await load();
    if (v !== undefined) this.cache.set(key, v, size(v) + key.length);
    return v;
  }

  async append(entry: Uint8Array): Promise<AppendResult> {
    const r = unwrap(await this.#rpc().append(entry));
    // What an append returns is published for ever: seed the caches with it.
    this.cache.set(`h:${r.tree_head.size}`, r.tree_head, HEAD_BYTES);
    this.cache.set(`l:${r.leaf_hash}`, r.index, 80);
    return r;
  }
  async entry(index: number): Promise<Uint8Array | undefined> {
    const e = await this.#memo(
      `e:${index}`,
      async () => unwrap(await this.#rpc().entry(index)),
      (b) => b?.length ?? 0,
    );
    return e?.slice();
  }
  indexOfLeaf(leafHash: Uint8Array): Promise<number | undefined> {
    return this.#memo(
      `l:${toHex(leafHash)}`,
      async () => unwrap(await this.#rpc().indexOfLeaf(leafHash)),
      () => 80,
    );
  }
  async latestHead(): Promise<TreeHead> {
    const h = unwrap(await this.#rpc().latestHead());
    this.cache.set(`h:${h.size}`, h, HEAD_BYTES);
    return h;
  }
  async headAt(size: number): Promise<TreeHead | undefined> {
    const h = await this.#memo(
      `h:${size}`,
      async () => unwrap(await this.#rpc().headAt(size)),
      () => HEAD_BYTES,
    );
    return h && { ...h };
  }
  async inclusionProof(index: number, size: number): Promise<Uint8Array[]> {
    const p = await this.#memo(
      `i:${index}:${size}`,
      async () => unwrap(await this.#rpc().inclusionProof(index, size)),
      (p) => 32 * p.length + 16,
    );
    return p.map((x) => x.slice());
  }
  async consistencyProof(first: number, second: number): Promise<Uint8Array[]> {
    const p = await this.#memo(
      `c:${first}:${second}`,
      async () => unwrap(await this.#rpc().consistencyProof(first, second)),
      (p) => 32 * p.length + 16,
    );
    return p.map((x) => x.slice());
  }
  logName(): string {
    return this.#name;
  }
  vkeys(): Record<TreeView, string> {
    return {
      blake3: encodeVkey(`${this.#name}/blake3`, SIG_ED25519, this.#pub),
      sha256: encodeVkey(`${this.#name}/sha256`, SIG_ED25519, this.#pub),
    };
  }
  async checkpoint(view: TreeView): Promise<string> {
    return unwrap(await this.#rpc().checkpoint(view)); // changes with every batch: never cached
  }
  async tile(
    view: TreeView,
    level: number,
    index: number,
    width: number,
  ): Promise<Uint8Array | undefined> {
    // A tile that exists never changes (tlog-tiles: immutable); an absent one is not cached.
    const t = await this.#memo(
      `t:${view}/${level}/${index}/${width}`,
      async () => unwrap(await this.#rpc().tile(view, level, index, width)),
      (b) => b?.length ?? 0,
    );
    return t?.slice();
  }
  async bundle(index: number, width: number): Promise<Uint8Array | undefined> {
    const b = await this.#memo(
      `b:${index}/${width}`,
      async () => unwrap(await this.#rpc().bundle(index, width)),
      (b) => b?.length ?? 0,
    );
    return b?.slice();
  }
  publicKey(): Uint8Array {
    return this.#pub.slice();
  }
  signer(): string {
    return this.#signer;
  }
  async check(): Promise<void> {
    unwrap(await this.#rpc().check());
  }
  /** The sequencer outlives a Worker invocation: nothing to drain here. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
