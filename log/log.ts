// The log (ARCHITECTURE "Storage and sequencing", Decision 7): one sequencer per log takes pending
// appends in batches, writes entries, tiles and the new signed head (JouleClaw SPEC §22.2) in one
// atomic durable `commitBatch`, and only then answers every append of the batch with its index,
// the head and an inclusion proof (RFC 6962 §2.1.1). Identical bytes resolve to the original index
// (exactly-once, also within one batch), and so does a second envelope of the same signed content
// (its content identity, verify/content_id.ts; docs/DECISIONS.md "One entry per signed content").
// A full queue pushes back. Before signing a head the sequencer proves it consistent with the
// previous one (RFC 9162 §2.1.4.2). Pure: storage is injected (log/storage.ts), so this runs in
// Deno, Node and workerd alike.
import { blake3Hasher, HASH_SIZE, sha256Hasher } from "./hasher.ts";
import {
  didKeyFromPublicKey,
  ed25519PublicKey,
  ed25519Sign,
  envelopeContentId,
  toHex,
} from "./crypto.ts";
import { type TreeHead, treeHeadBytes } from "./head.ts";
import {
  isPinnedHeadRefusal,
  LogInputError,
  LogIntegrityError,
  LogStateError,
  LogStorageError,
  PushbackError,
} from "./errors.ts";
import { checkStoreAgainstPin, type HeadPin, type PinnedHead, PinWriter } from "./pin.ts";
import type { AgentHead, AgentLink, EntryWrite, LogStorage, StoredHead } from "./storage.ts";
import { TreeEdge } from "./edge.ts";
import { type Tile, TileCache, TileNodeReader } from "./tiles.ts";
import {
  consistencyProof,
  hashRanges,
  inclusionProof,
  inclusionRanges,
  type RangeMemo,
  rootNodes,
  treeRoot,
} from "./tree.ts";
import { BatchTree } from "./batch_tree.ts";
import { verifyConsistency } from "./proof.ts";
import { recover, type Recovered } from "./recover.ts";
import { backfillSha256View } from "./view_backfill.ts";
import type { TreeView } from "./storage.ts";
import { LEVELS, PUBLISHED_WIDTH, readPublishedTile } from "./published_tiles.ts";
import { SlabCache } from "./slab_cache.ts";
import { ReadFaults } from "./read_faults.ts";
import { encodeBundle, ENTRIES, isKeyName, signCheckpoint, tileWithin } from "./c2sp/mod.ts";
import { encodeVkey, SIG_ED25519 } from "./c2sp/mod.ts";
import { sha256 } from "@noble/hashes/sha2.js";

/** Largest entry, bytes (ARCHITECTURE Decision 5). */
export const MAX_ENTRY_BYTES = 65_535;

/** What an append resolves to (API.md `POST /v1/log/entries`). */
export interface AppendResult {
  index: number;
  leaf_hash: string;
  tree_head: TreeHead;
  inclusion_proof: string[];
  /**
   * False when identical bytes, or another envelope of the same signed content, were already
   * logged: the index and leaf hash are then the logged entry's.
   */
  created: boolean;
}

/** The log as api/ uses it (docs/CONTRACTS.md). */
export interface Log {
  /**
   * Resolves once the entry is durable and covered by a signed head. `link`: the entry is an
   * agent's chained entry (a meter reading): its chain head is stored in the same commit.
   */
  append(entry: Uint8Array, link?: AgentLink): Promise<AppendResult>;
  /**
   * Optional: an agent's chain head, one store read. On a store written before chain heads were
   * kept, the first call folds the log once with `linkOf` (in chunks, yielding to the event
   * loop between them) and stores the result.
   */
  agentHead?(
    did: string,
    linkOf?: (entry: Uint8Array) => AgentLink | undefined,
  ): Promise<AgentHead | undefined>;
  entry(index: number): Promise<Uint8Array | undefined>;
  indexOfLeaf(leafHash: Uint8Array): Promise<number | undefined>;
  latestHead(): Promise<TreeHead>;
  headAt(size: number): Promise<TreeHead | undefined>;
  /**
   * Optional: the first signed head with at least one entry (its timestamp is when the log's
   * first entry was sequenced; docs/SHARDS.md `first_time`), or undefined while the log is empty.
   */
  firstHead?(): Promise<TreeHead | undefined>;
  inclusionProof(index: number, size: number): Promise<Uint8Array[]>;
  consistencyProof(first: number, second: number): Promise<Uint8Array[]>;
  /**
   * Optional: the leaf hash at `index` (undefined past the latest head), read from the tree
   * rather than by hashing the entry; the inclusion-proof route uses it when present.
   */
  leafHashAt?(index: number): Promise<Uint8Array | undefined>;
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
   * Health: the store is readable and the log is not broken, and, after a commit failed (a full
   * disk), the store accepts writes again (a write probe, at most one per second); otherwise
   * throws a `LogStorageError` whose code names the failing check (`storage-read`,
   * `storage-write`). A read inside the signed size that failed (log/read_faults.ts) is
   * `storage-read` until it answers again.
   */
  check(): Promise<void>;
  /** Optional: reads inside the signed size that failed so far (log/read_faults.ts). */
  readFaults?(): number;
  /** Drains the sequencer, then closes the store. */
  close(): Promise<void>;
  /**
   * Optional: the sequencer's CPU time so far, ms, by phase: `sequence` (dedupe, tree, tiles,
   * signing), `commit` (the store's commit call; its durability runs off this thread), `answer`
   * (proofs and answers). Zero without a `cpuClock`.
   */
  phaseCpuMs?(): { sequence: number; commit: number; answer: number };
}

/** Sequencer settings (defaults in `SEQUENCER_DEFAULTS`, reasons in docs/DECISIONS.md). */
export interface SequencerOptions {
  /** Most entries per batch. */
  batchMax?: number;
  /** Longest a pending append waits for its batch to start, ms. */
  batchAgeMs?: number;
  /** Pending appends beyond which appends are refused with `PushbackError`. */
  pendingMax?: number;
  /** Full tiles kept in memory (with the nodes folded from them) for proofs; default 4096. */
  tileCacheTiles?: number;
  /**
   * Benchmarks only (`deno task bench log`: the "before" CPU figure): false skips the SHA-256
   * view's work. Its heads carry the empty tree's SHA-256 root and no SHA-256 tiles are written,
   * so such a store does not open again (recovery refuses it). Default true.
   */
  sha256View?: boolean;
}

/** Everything `openLog` needs besides the store. */
export interface LogOptions extends SequencerOptions {
  /**
   * The log's name (PUBLICATION.md P1; docs/CONFIG.md `log_name`): bound to the store on first
   * open and fixed after (another name is refused). Absent: the bound name, or on a new store
   * `defaultLogName(public key)`.
   */
  logName?: string;
  /** The log key: a 32-byte Ed25519 secret. */
  secretKey: Uint8Array;
  /** Clock, ms since the epoch (tests inject one). */
  now?: () => number;
  /**
   * The content identity of an entry, or undefined for an entry without one: entries of one
   * identity are logged once (the first; later ones answer its index). Default: the COSE_Sign1
   * envelope's (verify/content_id.ts); `null` turns the index off. Used only with a store that
   * has `contentIndex` (all of this repository's).
   */
  contentId?: ((entry: Uint8Array) => Uint8Array | undefined) | null;
  /**
   * Optional: this thread's CPU time in ms (api/main.ts reads /proc/thread-self/schedstat); when
   * given, `phaseCpuMs()` reports the sequencer's CPU time by phase.
   */
  cpuClock?: () => number;
  /**
   * Optional: the signed-head pin (log/pin.ts): the store must reach it at open, and every head is
   * pinned once durable, before it is served (issue 27).
   */
  pin?: HeadPin;
}

/**
 * The name a log gets when none is configured (docs/DECISIONS.md): `jouleclaw.invalid/` and the
 * first 16 hex digits of SHA-256 of the log's public key — stable for the key, unique in
 * practice, and plainly not a URL anyone serves (RFC 2606 `.invalid`), so a public log sets its
 * own before its first start.
 */
export function defaultLogName(publicKey: Uint8Array): string {
  return `jouleclaw.invalid/${toHex(sha256(publicKey)).slice(0, 16)}`;
}

/** Full published tiles each log keeps in memory (8 KiB each). */
const PUBLISHED_CACHE_TILES = 2048;

/** Defaults sized for ≥ 20,000 appends/s with one durable commit per batch. */
export const SEQUENCER_DEFAULTS = { batchMax: 4096, batchAgeMs: 5, pendingMax: 65_536 } as const;

interface Waiter {
  resolve(r: AppendResult): void;
  reject(e: unknown): void;
}

// One pending entry: its first caller's promise functions inline, callers who sent the same bytes
// while it was pending in `more` (no per-append waiter objects on the hot path).
interface Pending {
  entry: Uint8Array;
  leafHash: Uint8Array;
  key: string;
  /** The content identity and its hex, when the entry has one. */
  contentId: Uint8Array | undefined;
  cid: string | undefined;
  resolve(r: AppendResult): void;
  reject(e: unknown): void;
  more: Waiter[] | undefined;
  link: AgentLink | undefined;
}

function headJson(head: StoredHead, signer: string): TreeHead {
  return {
    size: head.size,
    root: toHex(head.root),
    timestamp: head.timestamp,
    signature: toHex(head.signature),
    signer,
  };
}

function int(name: string, v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min || v > max) {
    throw new LogInputError(
      `bad-${name}`,
      `Cannot read log: ${name} must be an integer in [${min}, ${max}]`,
    );
  }
  return v;
}

function positive(name: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isSafeInteger(v) || v < 1) {
    throw new RangeError(`Cannot open log: ${name} must be a positive integer, got ${v}`);
  }
  return v;
}

const h = blake3Hasher;

/** The innermost message of an error chain (a storage fault wrapped by the sequencer). */
function errorText(e: Error): string {
  let x: unknown = e;
  while (x instanceof Error && x.cause instanceof Error) x = x.cause;
  return x instanceof Error ? x.message : String(x);
}

/** The hashes copied into one fresh buffer: the caller's to keep, sharing nothing with caches. */
function copied(hashes: Uint8Array[]): Uint8Array[] {
  const buf = new Uint8Array(hashes.length * HASH_SIZE);
  return hashes.map((x, k) => {
    buf.set(x, k * HASH_SIZE);
    return buf.subarray(k * HASH_SIZE, (k + 1) * HASH_SIZE);
  });
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

class SequencedLog implements Log {
  readonly #s: LogStorage;
  readonly #secret: Uint8Array;
  readonly #pub: Uint8Array;
  readonly #signer: string;
  readonly #now: () => number;
  readonly #batchMax: number;
  readonly #batchAgeMs: number;
  readonly #pendingMax: number;
  #edge: TreeEdge;
  /** The SHA-256 view's right edge (PUBLICATION.md P1), always at `#edge.size`. */
  #sha: TreeEdge;
  #head: StoredHead;
  #headJson: TreeHead;
  #queue: Pending[] = [];
  readonly #byKey = new Map<string, Pending>();
  readonly #byContent = new Map<string, Pending>(); // pending entries by content identity
  readonly #contentId: ((entry: Uint8Array) => Uint8Array | undefined) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #reload = false;
  #broken: Error | undefined;
  /** The last commit's failure, until a commit or a write probe succeeds. */
  #writeFailure: Error | undefined;
  #probe: { at: number; result: Promise<void> } | undefined;
  #agentsReady: Promise<void> | undefined;
  #closed = false;
  readonly #cache: TileCache;
  readonly #name: string;
  readonly #shaOn: boolean;
  readonly #vkeys: Record<TreeView, string>;
  /** Both views' checkpoints at `#head`, signed in the step that signed it. */
  #checkpoints: Record<TreeView, string>;
  /**
   * What is served: the latest head that is durable (and its checkpoints). `#head`, `#edge` and
   * `#checkpoints` are the sequencer's tip, which may run one batch ahead while that batch's
   * commit becomes durable (`commitBatchStaged`); nothing past `#durable` is read or answered.
   */
  #durable!: { head: StoredHead; json: TreeHead; checkpoints: Record<TreeView, string> };
  /** Answers of committed batches waiting for their durability, oldest first. */
  #inflight: Promise<void>[] = [];
  /** The signed-head pin: a head is pinned once durable, before it is served. */
  readonly #pin: PinWriter | undefined;
  readonly #cpu: (() => number) | undefined;
  readonly #phase = { sequence: 0, commit: 0, answer: 0 };
  /** The last committed batch's durability (a batch with nothing new is answered after it). */
  #lastDurable: Promise<void> = Promise.resolve();
  /** Full published tiles (immutable), least recently used out first. */
  readonly #published = new SlabCache(PUBLISHED_WIDTH * HASH_SIZE, PUBLISHED_CACHE_TILES);
  /** Reads inside the signed size that failed: storage faults, never absence (read_faults.ts). */
  readonly #faults = new ReadFaults();
  /** Hashes of the right-border ranges of the latest head's tree, shared by its proofs. */
  #border: { size: number; memo: RangeMemo } = { size: -1, memo: new Map() };

  constructor(
    s: LogStorage,
    o: LogOptions,
    r: Recovered & { sha256Edge: TreeEdge },
    name: string,
    pin?: PinWriter,
  ) {
    const { edge, head } = r;
    this.#pin = pin;
    this.#sha = r.sha256Edge;
    this.#name = name;
    this.#shaOn = o.sha256View !== false;
    this.#vkeys = {
      blake3: encodeVkey(`${name}/blake3`, SIG_ED25519, ed25519PublicKey(o.secretKey)),
      sha256: encodeVkey(`${name}/sha256`, SIG_ED25519, ed25519PublicKey(o.secretKey)),
    };
    this.#checkpoints = this.#checkpointsOf(head, o.secretKey);
    this.#s = s;
    this.#secret = o.secretKey;
    this.#pub = ed25519PublicKey(o.secretKey);
    this.#signer = didKeyFromPublicKey(this.#pub);
    this.#now = o.now ?? Date.now;
    this.#batchMax = positive("batchMax", o.batchMax, SEQUENCER_DEFAULTS.batchMax);
    this.#batchAgeMs = o.batchAgeMs ?? SEQUENCER_DEFAULTS.batchAgeMs;
    this.#pendingMax = positive("pendingMax", o.pendingMax, SEQUENCER_DEFAULTS.pendingMax);
    this.#edge = edge;
    this.#head = head;
    this.#headJson = headJson(head, this.#signer);
    this.#durable = { head, json: this.#headJson, checkpoints: this.#checkpoints };
    this.#cpu = o.cpuClock;
    this.#cache = new TileCache(positive("tileCacheTiles", o.tileCacheTiles, 4096));
    this.#contentId = s.contentIndex && o.contentId !== null
      ? o.contentId ?? envelopeContentId
      : undefined;
  }

  append(entry: Uint8Array, link?: AgentLink): Promise<AppendResult> {
    if (!(entry instanceof Uint8Array)) {
      return Promise.reject(new LogInputError("entry-not-bytes", "Cannot append entry: not bytes"));
    }
    if (entry.length === 0) {
      return Promise.reject(new LogInputError("entry-empty", "Cannot append entry: it is empty"));
    }
    if (entry.length > MAX_ENTRY_BYTES) {
      return Promise.reject(
        new LogInputError(
          "entry-too-large",
          `Cannot append entry: ${entry.length} bytes, at most ${MAX_ENTRY_BYTES}`,
        ),
      );
    }
    if (this.#closed) {
      return Promise.reject(
        new LogStorageError("log-closed", "Cannot append entry: log is closed"),
      );
    }
    if (this.#broken) return Promise.reject(this.#broken);
    const leafHash = h.leaf(entry);
    const key = toHex(leafHash);
    const contentId = this.#contentId?.(entry);
    const cid = contentId && toHex(contentId);
    // same bytes, or the same signed content, already pending: the same index
    const joined = this.#byKey.get(key) ??
      (cid !== undefined ? this.#byContent.get(cid) : undefined);
    if (joined) {
      const { promise, resolve, reject } = Promise.withResolvers<AppendResult>();
      (joined.more ??= []).push({ resolve, reject }); // same bytes already pending: same index
      return promise;
    }
    if (this.#queue.length >= this.#pendingMax) {
      return Promise.reject(
        new PushbackError(
          `Cannot append entry: ${this.#queue.length} appends are pending (limit ${this.#pendingMax})`,
          Math.max(1000, this.#batchAgeMs),
        ),
      );
    }
    const { promise, resolve, reject } = Promise.withResolvers<AppendResult>();
    const p: Pending = {
      entry: entry.slice(),
      leafHash,
      key,
      contentId,
      cid,
      resolve,
      reject,
      more: undefined,
      link,
    };
    this.#queue.push(p);
    this.#byKey.set(key, p);
    if (cid !== undefined) this.#byContent.set(cid, p);
    this.#schedule();
    return promise;
  }

  #schedule(): void {
    if (this.#running || this.#queue.length === 0) return;
    if (this.#queue.length >= this.#batchMax || this.#closed) {
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#running = this.#run();
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        if (!this.#running && this.#queue.length) this.#running = this.#run();
      }, this.#batchAgeMs);
    }
  }

  async #run(): Promise<void> {
    await null; // let `#running` be assigned before the loop can finish
    try {
      for (;;) {
        while (this.#queue.length) {
          // At most one batch becomes durable while the next is sequenced and committed; the
          // queue grows meanwhile, so batches stay large.
          while (this.#inflight.length >= 2) await this.#inflight[0];
          await this.#step(this.#queue.splice(0, this.#batchMax));
        }
        if (this.#inflight.length === 0) break;
        await this.#inflight[this.#inflight.length - 1];
      }
    } finally {
      this.#running = undefined;
    }
  }

  /**
   * One sequencer step: dedupe (one storage call for the whole batch), sequence, sign, commit
   * atomically, then answer. New entries' proofs come from the batch's in-memory tree
   * (log/batch_tree.ts), which also supplies the full tiles' top hashes to the edge, and whose
   * root must equal the root refolded from the tiles before the head is signed.
   */
  async #step(batch: Pending[]): Promise<void> {
    let durable: Promise<void> | undefined;
    let handedOver = false;
    const cpu = this.#cpu;
    let c0 = cpu?.() ?? 0;
    try {
      if (this.#reload) await this.#recover();
      const reader0 = this.#reader(this.#edge);
      const found = await this.#findAll(batch, reader0);
      const fresh = batch.filter((_, k) => found[k] === undefined);
      const base = this.#edge.size;
      let head = this.#head;
      let reader = reader0;
      let tree: BatchTree | undefined;
      if (fresh.length) {
        const edge = this.#edge.clone();
        const leaves = fresh.map((p) => p.leafHash);
        const ids = rootNodes(base);
        const old: Uint8Array[] = [];
        (await reader0.read(ids)).forEach((x, k) => old[ids[k].level] = x);
        const t = tree = new BatchTree(h, base, old, leaves);
        const tiles = edge.append(leaves, (level, index) => t.node(level, index));
        const overlay = new Map(tiles.map((t) => [`${t.level}/${t.index}`, t.hashes]));
        reader = this.#reader(edge, overlay);
        // The SHA-256 view advances in the same batch, over the same entries (PUBLICATION.md P1).
        const sha = this.#sha.clone();
        let sha256Tiles: Tile[] = [];
        let shaRoot = sha256Hasher.empty();
        if (this.#shaOn) {
          const shaOld: Uint8Array[] = [];
          const shaIds = rootNodes(base);
          const shaReader = new TileNodeReader(
            sha256Hasher,
            (t, i) => Promise.resolve(sha.tile(t, i)),
          );
          (await shaReader.read(shaIds)).forEach((x, k) => shaOld[shaIds[k].level] = x);
          const shaLeaves = fresh.map((p) => sha256Hasher.leaf(p.entry));
          const shaTree = new BatchTree(sha256Hasher, base, shaOld, shaLeaves);
          sha256Tiles = sha.append(shaLeaves, (level, index) => shaTree.node(level, index));
          shaRoot = shaTree.root();
        }
        head = await this.#signNext(
          edge.size,
          reader,
          t.root(),
          this.#shaOn ? sha : undefined,
          shaRoot,
        );
        // Both views' checkpoints, signed in the same step as the §22.2 head (PUBLICATION.md P1).
        const checkpoints = this.#checkpointsOf(head, this.#secret);
        const entries: EntryWrite[] = fresh.map((p, i) => ({
          index: base + i,
          leafHash: p.leafHash,
          bytes: p.entry,
          contentId: p.contentId,
        }));
        let agents: AgentHead[] | undefined;
        for (let i = 0; i < fresh.length; i++) {
          const l = fresh[i].link;
          if (l) (agents ??= []).push({ ...l, index: base + i });
        }
        if (cpu) {
          const c1 = cpu();
          this.#phase.sequence += c1 - c0;
          c0 = c1;
        }
        try {
          const b = agents
            ? { entries, tiles, sha256Tiles, head, agents }
            : { entries, tiles, sha256Tiles, head };
          const pin = this.#pin;
          const signed = head;
          if (this.#s.commitBatchStaged) {
            durable = (await this.#s.commitBatchStaged(b)).durable;
            // pinned once the commit is durable, before its head is served (log/pin.ts)
            if (pin) durable = durable.then(() => pin.advance(pinOf(signed)));
          } else {
            await this.#s.commitBatch(b);
            if (pin) durable = pin.advance(pinOf(signed));
          }
          if (durable) {
            durable.catch(() => {}); // observed below, by this batch's answer
            this.#lastDurable = durable;
          }
          this.#writeFailure = undefined;
        } catch (e) {
          this.#reload = true; // the store may or may not hold the batch: re-prove it first
          this.#writeFailure = e as Error;
          // Issue 27: a store refusing to publish over a head the log already signed keeps its code.
          if (isPinnedHeadRefusal(e)) throw e;
          throw new LogStorageError(
            "storage-commit",
            "Cannot append entry: storage commit failed",
            {
              cause: e,
            },
          );
        }
        if (cpu) {
          const c1 = cpu();
          this.#phase.commit += c1 - c0;
          c0 = c1;
        }
        this.#edge = edge;
        this.#sha = sha;
        this.#head = head;
        this.#checkpoints = checkpoints;
        this.#headJson = headJson(head, this.#signer);
      }
      const treeHead = this.#headJson;
      const checkpoints = this.#checkpoints;
      // Answered once durable: this batch's commit, or (nothing new) the batches before it.
      const before = durable ?? this.#lastDurable;
      const answer = async () => {
        if (head.size > this.#durable.head.size) {
          this.#durable = { head, json: treeHead, checkpoints };
        }
        const a0 = cpu?.() ?? 0;
        await this.#answer(batch, found, base, head, treeHead, tree, reader);
        if (cpu) this.#phase.answer += cpu() - a0;
      };
      const done: Promise<void> = before.then(answer, (e) => {
        this.#reload = true; // the store may or may not hold it: re-prove it first
        this.#writeFailure = e as Error;
        throw new LogStorageError("storage-commit", "Cannot append entry: commit not durable", {
          cause: e,
        });
      }).catch((e) => this.#reject(batch, e)).finally(() => {
        this.#forget(batch);
        this.#inflight.splice(this.#inflight.indexOf(done), 1);
      });
      this.#inflight.push(done);
      handedOver = true;
      if (cpu) this.#phase.sequence += cpu() - c0;
    } catch (e) {
      this.#reject(batch, e);
    } finally {
      if (!handedOver) this.#forget(batch);
    }
  }

  readFaults(): number {
    return this.#faults.count;
  }

  phaseCpuMs(): { sequence: number; commit: number; answer: number } {
    return { ...this.#phase };
  }

  #reject(batch: Pending[], e: unknown): void {
    for (const p of batch) {
      p.reject(e);
      if (p.more) { for (const w of p.more) w.reject(e); }
    }
    this.#forget(batch);
  }

  /**
   * Drops answered appends from the pending index, in the same task as their answers (an append
   * of the same bytes made after an answer must not join the answered one).
   */
  #forget(batch: Pending[]): void {
    for (const p of batch) this.#forgetOne(p);
  }

  /** Drops one answered append from the pending indexes (its bytes and its content identity). */
  #forgetOne(p: Pending): void {
    if (this.#byKey.get(p.key) === p) this.#byKey.delete(p.key);
    if (p.cid !== undefined && this.#byContent.get(p.cid) === p) this.#byContent.delete(p.cid);
  }

  /** Answers every append of a durable batch with its index, proof and the head covering it. */
  async #answer(
    batch: Pending[],
    found: (number | undefined)[],
    base: number,
    head: StoredHead,
    treeHead: TreeHead,
    tree: BatchTree | undefined,
    reader: TileNodeReader,
  ): Promise<void> {
    {
      const memo = new Map<string, Uint8Array>();
      let next = base;
      for (let k = 0; k < batch.length; k++) {
        const p = batch[k];
        const known = found[k];
        const created = known === undefined;
        const index = created ? next++ : known;
        const proof = created
          ? tree!.hexProof(index)
          : (await inclusionProof(h, index, head.size, reader.read, memo)).map(toHex);
        // a twin (same signed content, other bytes) answers with the logged entry's leaf hash
        const leafHex = created ? p.key : await this.#leafHex(index, reader);
        p.resolve({
          index,
          leaf_hash: leafHex,
          tree_head: treeHead,
          inclusion_proof: proof,
          created,
        });
        if (p.more) {
          for (const w of p.more) {
            w.resolve({
              index,
              leaf_hash: leafHex,
              tree_head: treeHead,
              inclusion_proof: proof,
              created: false,
            });
          }
        }
        this.#forgetOne(p);
      }
    }
  }

  /** The leaf hash at a stored index, hex, read from the level-0 tile. */
  async #leafHex(index: number, reader: TileNodeReader): Promise<string> {
    const [leaf] = await reader.read([{ level: 0, index }]);
    return toHex(leaf);
  }

  /**
   * Signs the head of the grown tree after proving it consistent with the previous head, and
   * the SHA-256 view's root at the same size against its tiles.
   */
  async #signNext(
    size: number,
    reader: TileNodeReader,
    expect: Uint8Array,
    sha: TreeEdge | undefined,
    shaExpect: Uint8Array,
  ): Promise<StoredHead> {
    const root = await treeRoot(h, size, reader.read);
    const sha256Root = sha ? await sha.root() : shaExpect;
    if (!same(root, expect) || !same(sha256Root, shaExpect) || (sha && sha.size !== size)) {
      // The tiles about to be stored and the proofs about to be answered must agree.
      throw this.#fail(
        new LogIntegrityError(
          `Cannot sign tree head: size ${size}'s root from tiles differs from the batch tree's`,
        ),
      );
    }
    const prev = this.#head;
    if (prev.size > 0) {
      // SPEC §22.3 / ARCHITECTURE: a new head must extend the previous one (RFC 9162 §2.1.4.2).
      const proof = await consistencyProof(h, prev.size, size, reader.read);
      if (!verifyConsistency(h, prev.size, size, proof, prev.root, root)) {
        throw this.#fail(
          new LogIntegrityError(
            `Cannot sign tree head: size ${size} is not consistent with the head at ${prev.size}`,
          ),
        );
      }
    }
    const timestamp = Math.max(Math.floor(this.#now()), prev.timestamp); // never goes back
    const signature = ed25519Sign(treeHeadBytes(size, root, timestamp), this.#secret);
    return { size, root, timestamp, signature, sha256Root };
  }

  /**
   * The two views' checkpoints of a head (C2SP tlog-checkpoint; key name = origin, PUBLICATION.md
   * P2). Ed25519 signatures are deterministic, so the same head always gives the same bytes:
   * they are not stored, only re-signed from the stored head on open.
   */
  #checkpointsOf(head: StoredHead, secret: Uint8Array): Record<TreeView, string> {
    if (head.sha256Root === undefined) {
      throw new LogIntegrityError(`Cannot sign checkpoints: head ${head.size} has no SHA-256 root`);
    }
    return {
      blake3: signCheckpoint(
        { origin: `${this.#name}/blake3`, size: head.size, root: head.root },
        secret,
      ),
      sha256: signCheckpoint(
        { origin: `${this.#name}/sha256`, size: head.size, root: head.sha256Root },
        secret,
      ),
    };
  }

  #fail(e: Error): Error {
    this.#broken = e;
    return e;
  }

  async #recover(): Promise<void> {
    try {
      const r = await recover(this.#s, h, this.#pub);
      if (!r) throw new LogIntegrityError("Cannot reload log: the store lost its tree heads");
      if (!r.sha256Edge) {
        throw new LogIntegrityError("Cannot reload log: the store lost its SHA-256 view");
      }
      const pin = this.#pin;
      if (pin?.pinned) {
        // the store went back under the running log: never sign again (issue 27)
        const at = pin.pinned.size <= r.head.size ? await this.#s.head(pin.pinned.size) : undefined;
        checkStoreAgainstPin(pin.pinned, pin.source, r.head, at);
      }
      await pin?.advance(pinOf(r.head)); // served below
      this.#edge = r.edge;
      this.#sha = r.sha256Edge;
      this.#checkpoints = this.#checkpointsOf(r.head, this.#secret);
      this.#head = r.head;
      this.#headJson = headJson(r.head, this.#signer);
      this.#durable = { head: r.head, json: this.#headJson, checkpoints: this.#checkpoints };
      this.#reload = false;
    } catch (e) {
      if (e instanceof LogIntegrityError || e instanceof LogStateError) throw this.#fail(e);
      // storage still failing: try again on the next batch
      throw e instanceof LogStorageError ? e : new LogStorageError(
        "storage-read",
        "Cannot append entry: the store cannot be re-read after a failed commit",
        { cause: e },
      );
    }
  }

  /**
   * A reader over the batch's tiles (`overlay`), then the edge, then the store; full tiles read
   * from the store go to the tile cache (they are final).
   */
  #reader(edge: TreeEdge, overlay?: Map<string, Uint8Array>): TileNodeReader {
    const s = this.#s;
    const cache = this.#cache;
    return new TileNodeReader(
      h,
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

  /** The stored index of each pending entry's leaf hash (undefined: not stored). */
  async #findAll(batch: Pending[], reader: TileNodeReader): Promise<(number | undefined)[]> {
    const s = this.#s;
    const hashes = batch.map((p) => p.leafHash);
    const cands = s.leafCandidatesMany
      ? await s.leafCandidatesMany(hashes)
      : await Promise.all(hashes.map((x) => s.leafCandidates(x)));
    const out: (number | undefined)[] = new Array(batch.length);
    for (let k = 0; k < batch.length; k++) {
      for (const i of cands[k]) {
        if (i >= this.#edge.size) continue;
        const [stored] = await reader.read([{ level: 0, index: i }]);
        if (same(stored, hashes[k])) {
          out[k] = i;
          break;
        }
      }
    }
    // Not stored as these bytes: is the same signed content stored (another envelope of it)?
    const ask = batch.flatMap((p, k) => out[k] === undefined && p.contentId ? [k] : []);
    if (ask.length && s.contentIndex) {
      const at = await s.contentIndex(ask.map((k) => batch[k].contentId!));
      ask.forEach((k, j) => {
        const i = at[j];
        if (i !== undefined && i < this.#edge.size) out[k] = i;
      });
    }
    return out;
  }

  async #find(leafHash: Uint8Array, reader: TileNodeReader): Promise<number | undefined> {
    const key = toHex(leafHash);
    for (const i of await this.#s.leafCandidates(leafHash)) {
      if (i >= this.#edge.size) continue;
      const [stored] = await reader.read([{ level: 0, index: i }]);
      if (toHex(stored) === key) return i;
    }
    return undefined;
  }

  async entry(index: number): Promise<Uint8Array | undefined> {
    int("index", index, 0);
    if (index >= this.#durable.head.size) return undefined;
    return await this.#faults.inside(`entry ${index}`, () => this.#s.entry(index));
  }

  async indexOfLeaf(leafHash: Uint8Array): Promise<number | undefined> {
    if (!(leafHash instanceof Uint8Array) || leafHash.length !== HASH_SIZE) {
      throw new LogInputError("bad-leaf-hash", "Cannot look up leaf: leaf hash is not 32 bytes");
    }
    const i = await this.#faults.reading(
      `the leaf index (${toHex(leafHash)})`,
      () => this.#find(leafHash, this.#reader(this.#edge)),
    );
    return i !== undefined && i < this.#durable.head.size ? i : undefined;
  }

  latestHead(): Promise<TreeHead> {
    return Promise.resolve(this.#durable.json);
  }

  async firstHead(): Promise<TreeHead | undefined> {
    if (this.#durable.head.size === 0) return undefined;
    const head = await this.#faults.inside("the first signed head", async () => {
      const [head] = await this.#s.heads(1, 1);
      return head;
    });
    return headJson(head, this.#signer);
  }

  async headAt(size: number): Promise<TreeHead | undefined> {
    int("size", size, 0);
    if (size > this.#durable.head.size) return undefined;
    // a size between two signed heads has none: absence, not a fault
    const head = await this.#faults.reading(`the head at ${size}`, () => this.#s.head(size));
    return head && headJson(head, this.#signer);
  }

  async inclusionProof(index: number, size: number): Promise<Uint8Array[]> {
    int("size", size, 1, this.#durable.head.size);
    int("index", index, 0, size - 1);
    // every node of a signed tree is stored: a read that fails is a fault (read_faults.ts)
    return await this.#faults.reading(
      `the inclusion proof of ${index} in ${size}`,
      () => this.#inclusionProof(index, size),
    );
  }

  async #inclusionProof(index: number, size: number): Promise<Uint8Array[]> {
    const read = this.#reader(this.#edge).read;
    // RFC 6962 §2.1.1: the ranges ending at `size` (the right border) are the same for every
    // proof at that size; for the latest head they are memoized.
    const ranges = inclusionRanges(index, size);
    let memo: RangeMemo | undefined;
    if (size === this.#durable.head.size) {
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
    int("second", second, 1, this.#durable.head.size);
    int("first", first, 1, second);
    return await this.#faults.reading(
      `the consistency proof of ${first} to ${second}`,
      async () => copied(await consistencyProof(h, first, second, this.#reader(this.#edge).read)),
    );
  }

  async leafHashAt(index: number): Promise<Uint8Array | undefined> {
    int("index", index, 0);
    if (index >= this.#durable.head.size) return undefined;
    const leaf = await this.#faults.inside(`the leaf hash of ${index}`, async () => {
      const [leaf] = await this.#reader(this.#edge).read([{ level: 0, index }]);
      return leaf;
    });
    return copied([leaf])[0];
  }

  publicKey(): Uint8Array {
    return this.#pub.slice();
  }

  logName(): string {
    return this.#name;
  }

  vkeys(): Record<TreeView, string> {
    return { ...this.#vkeys };
  }

  checkpoint(view: TreeView): Promise<string> {
    const c = this.#durable.checkpoints[view];
    if (c === undefined) {
      return Promise.reject(
        new LogInputError("bad-view", `Cannot read checkpoint: no view ${view}`),
      );
    }
    return Promise.resolve(c);
  }

  async tile(
    view: TreeView,
    level: number,
    index: number,
    width: number,
  ): Promise<Uint8Array | undefined> {
    if (view !== "blake3" && view !== "sha256") {
      throw new LogInputError("bad-view", `Cannot read tile: no view ${view}`);
    }
    // tlog-tiles: a tile of this tree, or a partial one a smaller tree had (its hashes are the
    // same); never an empty one.
    if (!tileWithin(this.#durable.head.size, { level, index, width })) return undefined;
    if (width === PUBLISHED_WIDTH) {
      const hit = this.#published.get(`${view}/${level}/${index}`);
      if (hit) return hit; // the hot path: no closure, no fault bookkeeping
    }
    return await this.#faults.inside(
      () => `${view} tile ${level}/${index}${width === PUBLISHED_WIDTH ? "" : `.p/${width}`}`,
      () => this.#tile(view, level, index, width),
    );
  }

  /** A published tile of the signed tree (undefined: the store lacks it, a fault). */
  async #tile(
    view: TreeView,
    level: number,
    index: number,
    width: number,
  ): Promise<Uint8Array | undefined> {
    const key = `${view}/${level}/${index}`;
    const s = this.#s;
    if (width === PUBLISHED_WIDTH) {
      // a store that holds the 16 stored tiles as one (SQLite): one read, no assembly
      const whole = s.tileGroup && await s.tileGroup(LEVELS * level, index, view);
      if (whole?.length === PUBLISHED_WIDTH * HASH_SIZE) {
        this.#published.put(key, whole);
        return whole;
      }
    }
    const bytes = await readPublishedTile(
      s.tileRange
        ? { range: (t, i, n) => s.tileRange!(t, i, n, view) }
        : (t, i) => s.tile(t, i, view),
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
    if (!tileWithin(this.#durable.head.size, { level: ENTRIES, index, width })) return undefined;
    return await this.#faults.inside(`entry bundle ${index}`, async () => {
      const entries = await this.#s.entries(index * PUBLISHED_WIDTH, width);
      // fewer than the signed tree holds: the store lacks some (a fault, not a shorter log)
      return entries.length === width ? encodeBundle(entries) : undefined;
    });
  }

  signer(): string {
    return this.#signer;
  }

  agentHead(
    did: string,
    linkOf?: (entry: Uint8Array) => AgentLink | undefined,
  ): Promise<AgentHead | undefined> {
    const s = this.#s;
    if (!s.agentHead) {
      return Promise.reject(
        new LogStorageError("storage-no-agent-heads", "Cannot read chain heads: store keeps none"),
      );
    }
    if (!this.#agentsReady) {
      const p = this.#agentsReady = this.#backfillAgents(linkOf);
      p.catch(() => {
        if (this.#agentsReady === p) this.#agentsReady = undefined; // try again next time
      });
    }
    return this.#agentsReady.then(() => s.agentHead!(did));
  }

  /** Once per store written before chain heads were kept: folds the log into them. */
  async #backfillAgents(linkOf?: (entry: Uint8Array) => AgentLink | undefined): Promise<void> {
    const s = this.#s;
    if (await s.agentHeadsComplete!()) return;
    if (!linkOf || !s.putAgentHeads) {
      throw new LogStorageError(
        "storage-agent-heads-incomplete",
        "Cannot read chain heads: the store predates them and no backfill was given",
      );
    }
    const upto = this.#durable.head.size; // later appends store their own heads
    const heads = new Map<string, AgentHead>();
    const CHUNK = 512; // one short synchronous read each (node:sqlite reads on this thread)
    let slice = performance.now();
    for (let i = 0; i < upto; i += CHUNK) {
      const es = await s.entries(i, Math.min(CHUNK, upto - i));
      for (let k = 0; k < es.length; k++) {
        const l = linkOf(es[k]);
        if (l) heads.set(l.did, { ...l, index: i + k });
      }
      if (performance.now() - slice > 10) {
        await new Promise((r) => setTimeout(r, 0)); // let other requests run: 10 ms slices
        slice = performance.now();
      }
    }
    await s.putAgentHeads([...heads.values()], true);
  }

  async check(): Promise<void> {
    if (this.#broken) throw this.#broken;
    try {
      await this.#s.latestHead();
    } catch (e) {
      throw new LogStorageError("storage-read", "Cannot read the store", { cause: e });
    }
    await this.#faults.check(); // a read inside the signed size that still fails
    const failed = this.#writeFailure;
    if (!failed) return;
    const probe = this.#s.probeWrite?.bind(this.#s);
    if (probe) {
      const now = Date.now();
      if (!this.#probe || now - this.#probe.at >= 1000) {
        this.#probe = { at: now, result: probe() };
        this.#probe.result.catch(() => {});
      }
      try {
        await this.#probe.result;
        if (this.#writeFailure === failed) this.#writeFailure = undefined;
        return;
      } catch { /* still refused */ }
    }
    if (isPinnedHeadRefusal(failed)) throw failed; // issue 27: /healthz names the pin it failed
    throw new LogStorageError(
      "storage-write",
      `Cannot write to the store: ${errorText(this.#writeFailure ?? failed)}`,
      { cause: failed },
    );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#schedule();
    while (this.#running || this.#queue.length) {
      if (this.#running) await this.#running;
      else this.#schedule();
    }
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    await this.#s.close();
  }
}

/**
 * Completes the content index of a store written before it existed (docs/DECISIONS.md "One entry
 * per signed content"): every stored entry's identity, 1024 entries per write, before the log
 * takes appends. Once per store; a store created with the index has nothing to do.
 */
async function backfillContentIndex(s: LogStorage, o: LogOptions, size: number): Promise<void> {
  if (o.contentId === null || !s.contentIndexReach || !s.backfillContentIndex) return;
  const contentId = o.contentId ?? envelopeContentId;
  let reach = await s.contentIndexReach();
  while (reach !== "all") {
    const entries = reach < size ? await s.entries(reach, 1024) : [];
    const rows: { index: number; contentId: Uint8Array }[] = [];
    entries.forEach((e, k) => {
      const id = contentId(e);
      if (id) rows.push({ index: reach as number + k, contentId: id });
    });
    const next = entries.length === 0 || reach + entries.length >= size
      ? "all"
      : reach + entries.length;
    await s.backfillContentIndex(rows, next);
    reach = next;
  }
}

/**
 * Opens a log over a store: proves the store's latest head against its nodes and entries
 * (refusing with `LogIntegrityError` otherwise), publishes the empty tree's head on first open,
 * and starts the sequencer.
 *
 * @example
 * ```ts
 * const log = await openLog(createMemoryStore(), { secretKey });
 * const { index, inclusion_proof } = await log.append(bytes);
 * ```
 */
export async function openLog(s: LogStorage, o: LogOptions): Promise<Log> {
  if (!(o.secretKey instanceof Uint8Array) || o.secretKey.length !== 32) {
    throw new RangeError("Cannot open log: the log key must be a 32-byte Ed25519 secret");
  }
  const pub = ed25519PublicKey(o.secretKey);
  const pinned = o.pin ? await o.pin.read() : undefined;
  const name = await bindLogName(s, o.logName, pub);
  let r = await recover(s, h, pub);
  if (r && !r.sha256Edge) {
    // A store written before the SHA-256 view: migrate it (docs/STORAGE.md "Migration"), then
    // prove it again, both views this time.
    await backfillSha256View(s, r.head.size);
    r = await recover(s, h, pub);
    if (!r?.sha256Edge) {
      throw new LogIntegrityError("Cannot open log: migrating the SHA-256 view failed");
    }
  }
  const pin = o.pin && new PinWriter(o.pin, pinned);
  if (pinned) {
    // the store reaches its pin with the same roots, or the log does not open (issue 27)
    const at = r
      ? (pinned.size <= r.head.size ? await s.head(pinned.size) : undefined)
      : { size: 0, root: h.empty(), sha256Root: sha256Hasher.empty(), timestamp: 0 } as StoredHead;
    checkStoreAgainstPin(pinned, o.pin!, r?.head ?? (pinned.size === 0 ? at : undefined), at);
  }
  if (r) {
    await backfillContentIndex(s, o, r.head.size);
    const log = new SequencedLog(s, o, { ...r, sha256Edge: r.sha256Edge! }, name, pin);
    await pin?.advance(pinOf(r.head)); // before anything is served
    return log;
  }
  const now = Math.floor((o.now ?? Date.now)());
  const root = h.empty(); // RFC 6962 §2.1: the empty tree's hash, BLAKE3("") (SPEC §22.1)
  const head = {
    size: 0,
    root,
    timestamp: now,
    signature: ed25519Sign(treeHeadBytes(0, root, now), o.secretKey),
    sha256Root: sha256Hasher.empty(),
  };
  await s.commitBatch({ entries: [], tiles: [], sha256Tiles: [], head });
  await pin?.advance(pinOf(head));
  return new SequencedLog(
    s,
    o,
    {
      head,
      edge: TreeEdge.empty(h),
      sha256Edge: TreeEdge.empty(sha256Hasher),
    },
    name,
    pin,
  );
}

/** What the pin records of a signed head. */
function pinOf(head: StoredHead): PinnedHead {
  return { size: head.size, root: head.root, sha256Root: head.sha256Root ?? sha256Hasher.empty() };
}

/**
 * The log's name: the configured one (checked, and bound to the store on first open), else the
 * store's, else the default. A configured name other than the store's is refused.
 */
async function bindLogName(
  s: LogStorage,
  configured: string | undefined,
  pub: Uint8Array,
): Promise<string> {
  if (configured !== undefined && !isKeyName(`${configured}/blake3`)) {
    throw new LogInputError(
      "bad-log-name",
      `Cannot open log: log name ${JSON.stringify(configured)} is empty or has a space or '+'` +
        " (signed-note key names)",
    );
  }
  const stored = await s.logName();
  if (stored !== undefined && configured !== undefined && stored !== configured) {
    throw new LogInputError(
      "log-name-changed",
      `Cannot open log: it is named ${stored}, the configuration says ${configured}; a log's ` +
        "name is fixed for the life of its data (its checkpoints' origins and vkeys depend on " +
        `it): set log_name / JC_LOG_NAME to ${stored}, or remove it`,
    );
  }
  const name = stored ?? configured ?? defaultLogName(pub);
  if (stored === undefined) await s.setLogName(name);
  return name;
}
