// The log's sequencer (ARCHITECTURE "Storage and sequencing", Decision 7): one per log, it takes
// pending appends in batches, writes entries, both views' tiles and the new signed head (JouleClaw
// SPEC §22.2) in one atomic durable commit, and only then answers every append of the batch with
// its index, the head and an inclusion proof (RFC 6962 §2.1.1). Identical bytes resolve to the
// original index (exactly-once, also within one batch), and so does a second envelope of the same
// signed content (its content identity, verify/content_id.ts; docs/DECISIONS.md "One entry per
// signed content"). A full queue pushes back. Before signing a head the sequencer proves it
// consistent with the previous one (RFC 9162 §2.1.4.2). Pure: storage is injected.
import { blake3Hasher, type Hasher } from "./hasher.ts";
import { toHex } from "./crypto.ts";
import type { TreeHead } from "./head.ts";
import {
  isPinnedHeadRefusal,
  LogInputError,
  LogIntegrityError,
  LogStateError,
  LogStorageError,
  PushbackError,
} from "./errors.ts";
import { checkStoreAgainstPin, pinOf, type PinWriter } from "./pin.ts";
import type {
  AgentHead,
  AgentLink,
  Batch,
  EntryWrite,
  LogStorage,
  StorageCapabilities,
  StoredHead,
  StreamBatch,
  TreeView,
} from "./storage.ts";
import type { TreeEdge } from "./edge.ts";
import { TileNodeReader } from "./tiles.ts";
import { inclusionProof } from "./tree.ts";
import type { BatchTree } from "./batch_tree.ts";
import { signNextHead } from "./head_sign.ts";
import { recover } from "./recover.ts";
import { WriteHealth } from "./write_health.ts";
import { checkpointsOf, type GrownView, growView, VIEWS } from "./views.ts";
import { judgeStep, type Pending } from "./sequencer_judge.ts";
import { headJson } from "./reader.ts";
import type { Served, StoreNodes, Tip } from "./store_source.ts";
import {
  type AppendResult,
  type LogOptions,
  MAX_ENTRY_BYTES,
  positive,
  SEQUENCER_DEFAULTS,
} from "./log.ts";
import { CLOSED_SKEW_MS, type EntryFacts, entryFacts } from "./streams/mod.ts";
import type { KeyOutcome } from "./keys/mod.ts";

/** The sequencer's state at open: the proven head and each view's right edge (VIEWS order). */
export interface SequencerStart {
  head: StoredHead;
  edges: TreeEdge[];
}

const h = blake3Hasher;

/** An edge-only reader of a view's tree (the old roots a batch folds onto are on its edge). */
function edgeReader(hasher: Hasher, edge: TreeEdge): TileNodeReader {
  return new TileNodeReader(hasher, (t, i) => Promise.resolve(edge.tile(t, i)));
}

/** The append contract's engine: batches, commits, answers (log/embedded.ts serves it). */
export class Sequencer implements Tip {
  readonly #s: LogStorage;
  /** The store's extensions this uses: staged commit, batched leaf lookup, content index. */
  readonly #caps: StorageCapabilities;
  readonly #nodes: StoreNodes;
  readonly #secret: Uint8Array;
  readonly #pub: Uint8Array;
  readonly #signer: string;
  readonly #name: string;
  readonly #now: () => number;
  readonly #batchMax: number;
  readonly #batchAgeMs: number;
  readonly #pendingMax: number;
  /** Each view's right edge (VIEWS order; [0] is BLAKE3), always at one size. */
  #edges: TreeEdge[];
  /** The views this sequencer advances: all of them, or (benchmarks) BLAKE3 only. */
  readonly #views: number;
  #head: StoredHead;
  #headJson: TreeHead;
  /** Both views' checkpoints at `#head`, signed in the step that signed it. */
  #checkpoints: Record<TreeView, string>;
  /**
   * What is served: the latest head that is durable (and its checkpoints). `#head`, `#edges` and
   * `#checkpoints` are the sequencer's tip, which may run one batch ahead while that batch's
   * commit becomes durable (`commitBatchStaged`); nothing past `served` is read or answered.
   */
  #served: Served;
  #queue: Pending[] = [];
  readonly #byKey = new Map<string, Pending>();
  readonly #byContent = new Map<string, Pending>(); // pending entries by content identity
  readonly #contentId: ((entry: Uint8Array) => Uint8Array | undefined) | undefined;
  /** Reads an entry's stream facts: with a store that checks streams (issue 24). */
  readonly #facts: ((entry: Uint8Array) => EntryFacts | undefined) | undefined;
  readonly #skewMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #reload = false;
  #broken: Error | undefined;
  /** The last commit's failure, until a commit or a write probe succeeds. */
  readonly #writes: WriteHealth;
  #closed = false;
  /** Answers of committed batches waiting for their durability, oldest first. */
  #inflight: Promise<void>[] = [];
  /** The signed-head pin: a head is pinned once durable, before it is served. */
  readonly #pin: PinWriter | undefined;
  readonly #cpu: (() => number) | undefined;
  readonly #phase = { sequence: 0, commit: 0, answer: 0 };
  /** The last committed batch's durability (a batch with nothing new is answered after it). */
  #lastDurable: Promise<void> = Promise.resolve();

  constructor(
    s: LogStorage,
    nodes: StoreNodes,
    o: LogOptions,
    start: SequencerStart,
    id: { name: string; publicKey: Uint8Array; signer: string },
    contentId: ((entry: Uint8Array) => Uint8Array | undefined) | undefined,
    caps: StorageCapabilities,
    pin?: PinWriter,
  ) {
    this.#s = s;
    this.#caps = caps;
    this.#nodes = nodes;
    this.#pin = pin;
    this.#name = id.name;
    this.#secret = o.secretKey;
    this.#pub = id.publicKey;
    this.#signer = id.signer;
    this.#edges = start.edges;
    this.#views = o.sha256View === false ? 1 : VIEWS.length;
    this.#now = o.now ?? Date.now;
    this.#batchMax = positive("batchMax", o.batchMax, SEQUENCER_DEFAULTS.batchMax);
    this.#batchAgeMs = o.batchAgeMs ?? SEQUENCER_DEFAULTS.batchAgeMs;
    this.#pendingMax = positive("pendingMax", o.pendingMax, SEQUENCER_DEFAULTS.pendingMax);
    this.#head = start.head;
    this.#checkpoints = checkpointsOf(this.#name, start.head, this.#secret);
    this.#headJson = headJson(start.head, this.#signer);
    this.#served = { head: start.head, json: this.#headJson, checkpoints: this.#checkpoints };
    this.#cpu = o.cpuClock;
    this.#contentId = contentId;
    this.#facts = caps.streamIndex && o.streamFacts !== null
      ? o.streamFacts ?? entryFacts
      : undefined;
    this.#skewMs = o.closedSkewMs ?? CLOSED_SKEW_MS;
    this.#writes = new WriteHealth(caps.writeProbe);
  }

  get served(): Served {
    return this.#served;
  }

  get edge(): TreeEdge {
    return this.#edges[0];
  }

  checkBroken(): void {
    if (this.#broken) throw this.#broken;
  }

  checkWrites(): Promise<void> {
    return this.#writes.check();
  }

  phaseCpuMs(): { sequence: number; commit: number; answer: number } {
    return { ...this.#phase };
  }

  append(entry: Uint8Array, link?: AgentLink, facts?: EntryFacts): Promise<AppendResult> {
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
      facts: this.#facts && (facts ?? this.#facts(entry)),
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

  /** CPU ms since `c0`, added to `phase`; the new mark. */
  #tick(phase: "sequence" | "commit" | "answer", c0: number): number {
    const c1 = this.#cpu!();
    this.#phase[phase] += c1 - c0;
    return c1;
  }

  /**
   * One sequencer step: dedupe (one storage call for the whole batch), sequence, sign, commit
   * atomically, then answer. New entries' proofs come from the batch's in-memory tree
   * (log/batch_tree.ts), which also supplies the full tiles' top hashes to the edge, and whose
   * root must equal the root refolded from the tiles before the head is signed.
   */
  async #step(pending: Pending[]): Promise<void> {
    let batch = pending;
    let durable: Promise<void> | undefined;
    let handedOver = false;
    const cpu = this.#cpu;
    let c0 = cpu?.() ?? 0;
    try {
      if (this.#reload) await this.#recover();
      const reader0 = this.#nodes.reader(this.#edges[0]);
      const base = this.#edges[0].size;
      // dedupe, then the refusals (log/sequencer_judge.ts), answered now and never sequenced
      let found, keys;
      ({ batch, found, keys } = await judgeStep(
        this.#s,
        this.#caps,
        reader0,
        base,
        batch,
        (p, e) => this.#reject([p], e),
      ));
      const fresh = batch.filter((_, k) => found[k] === undefined);
      let head = this.#head;
      let reader = reader0;
      let tree: BatchTree | undefined;
      let streams: StreamBatch | undefined;
      if (fresh.length) {
        // Every view advances in the same batch, over the same entries (PUBLICATION.md P1).
        const grown: GrownView[] = [];
        for (let k = 0; k < this.#views; k++) {
          const v = VIEWS[k], edge = this.#edges[k];
          grown.push(
            await growView(
              v,
              edge,
              k === 0 ? fresh.map((p) => p.leafHash) : fresh.map((p) => v.hasher.leaf(p.entry)),
              k === 0 ? reader0.read : edgeReader(v.hasher, edge).read,
            ),
          );
        }
        tree = grown[0].tree;
        const overlay = new Map(grown[0].tiles.map((t) => [`${t.level}/${t.index}`, t.hashes]));
        reader = this.#nodes.reader(grown[0].edge, overlay);
        head = await this.#signNext(grown, reader);
        // Both views' checkpoints, signed in the same step as the §22.2 head (PUBLICATION.md P1).
        const checkpoints = checkpointsOf(this.#name, head, this.#secret);
        const entries: EntryWrite[] = fresh.map((p, i) => ({
          index: base + i,
          leafHash: p.leafHash,
          bytes: p.entry,
          contentId: p.contentId,
        }));
        let agents: AgentHead[] | undefined;
        for (let i = 0; i < fresh.length; i++) {
          const l = fresh[i].link, f = fresh[i].facts;
          if (l) (agents ??= []).push({ ...l, index: base + i });
          if (f) {
            streams ??= { entries: [], skewMs: this.#skewMs, findings: new Map() };
            streams.entries.push({ index: base + i, facts: f });
          }
        }
        if (cpu) c0 = this.#tick("sequence", c0);
        const b: Batch = {
          entries,
          tiles: grown[0].tiles,
          sha256Tiles: grown[1]?.tiles ?? [],
          head,
        };
        if (agents) b.agents = agents;
        if (streams) b.streams = streams;
        else if (!this.#facts && this.#caps.streamIndex) b.unchecked = true; // checks off
        if (keys && (keys.writes.events.length || keys.writes.forks.length)) b.keys = keys.writes;
        ({ durable } = await this.#commit(b));
        if (cpu) c0 = this.#tick("commit", c0);
        this.#edges = this.#edges.map((e, k) => grown[k]?.edge ?? e);
        this.#head = head;
        this.#checkpoints = checkpoints;
        this.#headJson = headJson(head, this.#signer);
      }
      const treeHead = this.#headJson;
      const checkpoints = this.#checkpoints;
      // Answered once durable: this batch's commit, or (nothing new) the batches before it.
      const before = durable ?? this.#lastDurable;
      const answer = async () => {
        if (head.size > this.#served.head.size) {
          this.#served = { head, json: treeHead, checkpoints };
        }
        const a0 = cpu?.() ?? 0;
        await this.#answer(
          batch,
          found,
          base,
          head,
          treeHead,
          tree,
          reader,
          streams,
          keys?.by,
        );
        if (cpu) this.#tick("answer", a0);
      };
      const done: Promise<void> = before.then(answer, (e) => {
        this.#reload = true; // the store may or may not hold it: re-prove it first
        this.#writes.failed(e);
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

  /**
   * Commits a batch (staged when the store can): its durability, which pins the head once
   * reached (log/pin.ts), before it is served.
   */
  async #commit(b: Batch): Promise<{ durable: Promise<void> | undefined }> {
    let durable: Promise<void> | undefined;
    try {
      const pin = this.#pin;
      const signed = b.head;
      if (this.#caps.stagedCommit) {
        durable = (await this.#caps.stagedCommit.commitBatchStaged(b)).durable;
        // pinned once the commit is durable, before its head is served (log/pin.ts)
        if (pin) durable = durable.then(() => pin.advance(pinOf(signed)));
      } else {
        await this.#s.commitBatch(b);
        if (pin) durable = pin.advance(pinOf(signed));
      }
      if (durable) {
        durable.catch(() => {}); // observed by this batch's answer
        this.#lastDurable = durable;
      }
      this.#writes.ok();
      return { durable };
    } catch (e) {
      this.#reload = true; // the store may or may not hold the batch: re-prove it first
      this.#writes.failed(e);
      // Issue 27: a store refusing to publish over a head the log already signed keeps its code.
      if (isPinnedHeadRefusal(e)) throw e;
      throw new LogStorageError("storage-commit", "Cannot append entry: storage commit failed", {
        cause: e,
      });
    }
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
    streams: StreamBatch | undefined,
    keyed?: Map<number, KeyOutcome>,
  ): Promise<void> {
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
      const leafHex = created ? p.key : toHex((await reader.read([{ level: 0, index }]))[0]);
      const r: AppendResult = {
        index,
        leaf_hash: leafHex,
        tree_head: treeHead,
        inclusion_proof: proof,
        created,
      };
      const fs = created ? streams?.findings.get(index) : undefined;
      if (fs) r.findings = fs; // issue 24: the findings this append caused
      const rs = created ? streams?.revocations?.get(index) : undefined;
      if (rs) r.revocation = rs; // issue 25: an allow's revocation status
      const ko = created ? keyed?.get(index) : undefined;
      if (ko) r.key_event = ko; // issue 25: the key event it was judged under
      p.resolve(r);
      // the same bytes sent again while pending: the same answer, not created by them
      if (p.more) { for (const w of p.more) w.resolve({ ...r, created: false }); }
      this.#forgetOne(p);
    }
  }

  /** Signs the next head (log/head_sign.ts); a head that would not prove breaks the log. */
  #signNext(grown: GrownView[], reader: TileNodeReader): Promise<StoredHead> {
    const fail = (e: Error) => this.#fail(e);
    return signNextHead(this.#head, grown, reader, this.#now, this.#secret, fail);
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
      this.#edges = [r.edge, r.sha256Edge];
      this.#checkpoints = checkpointsOf(this.#name, r.head, this.#secret);
      this.#head = r.head;
      this.#headJson = headJson(r.head, this.#signer);
      this.#served = { head: r.head, json: this.#headJson, checkpoints: this.#checkpoints };
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
   * Drains the sequencer (every pending append answered) and refuses appends after; the store
   * stays open. False when it was drained before.
   */
  async drain(): Promise<boolean> {
    if (this.#closed) return false;
    this.#closed = true;
    this.#schedule();
    while (this.#running || this.#queue.length) {
      if (this.#running) await this.#running;
      else this.#schedule();
    }
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    return true;
  }
}
