// One pool of Deno module Workers for all the work this service runs off the event loop (issue
// 22: receipt verification, document validation and SPARQL each had their own). What a job is and
// how it travels is the caller's WorkerProtocol; what happens to it is decided here, once, each
// property an option (tests/api/worker_pool_test.ts checks every one on real Workers):
//
// - Size: a fixed number of Workers; a job goes to the one with the least load (queued + in flight).
// - Concurrency: jobs in flight per Worker at once. 1 makes a job's time limit its own (a Worker
//   busy with one job is not charged for the next); the verifier sends everything at once.
// - Batching: with `batch`, the jobs of one event-loop turn go to a Worker in one message (one
//   message per envelope cost the event loop as much as verifying in place, docs/DECISIONS.md §3).
// - A bounded queue: at most `maxQueued` jobs queued or in flight per Worker; more are refused with
//   JobQueueFullError (the caller's 503 + Retry-After), unless a job is `force`d.
// - A time limit per job, counted from `run` (waiting included): a job still queued at its
//   deadline is dropped (JobTimeoutError, started false); one running is not interruptible inside
//   the Worker (Oxigraph, jsonld.js and WebCrypto run synchronously), so its Worker is terminated —
//   freeing everything it held — and replaced (JobTimeoutError, started true).
// - A dead Worker replaced: one whose thread fails, that answers a message it did not expect
//   (api/services/worker_message.ts: only a bug here sends one), or — with `stallMs` — that answers nothing
//   for that long with jobs in flight (terminated from outside or hung: no error event comes).
//   Its jobs in flight are sent again once (`retry`, for pure jobs) or fail with JobLostError;
//   its queued jobs wait for the successor.
// - A Worker whose init fails: its jobs fail (WorkerStartError); the next job starts a fresh one.
// - Metrics hooks: `onReplaced(why)` on every replacement; `starts`, `replaced`, `load`, `inFlight`.
// Deno-only (module Workers).
import { unrefTimer } from "../../../net/mod.ts";
import { JobLostError, JobQueueFullError, JobTimeoutError, WorkerStartError } from "./errors.ts";

/** One job's outcome, as a WorkerProtocol reads it from a Worker's answer. */
export type JobResult<R> = { value: R } | { error: Error };

/** A Worker's message, as a WorkerProtocol reads it. */
export type WorkerEvent<R> =
  | { ready: true }
  | { failed: string }
  /** it refused a message it did not expect (the text says which code) */
  | { unexpected: string }
  | { ids: number[]; results: JobResult<R>[] };

/** What jobs are and how they travel to and from a Worker. */
export interface WorkerProtocol<J, R> {
  /** the Worker module */
  url: URL;
  /** the first message every Worker gets (it answers ready or failed) */
  init: unknown;
  /** The message carrying `jobs` (one unless the pool batches), and buffers it moves. */
  request(ids: number[], jobs: J[]): { msg: unknown; transfer?: Transferable[] };
  /** Reads a Worker's message. */
  read(m: unknown): WorkerEvent<R>;
}

/** Options of a WorkerPool. */
export interface WorkerPoolOptions {
  /** Workers (>= 1). Default 1. */
  size?: number;
  /** Jobs in flight per Worker at once. Default 1. */
  concurrency?: number;
  /** Send the jobs of one event-loop turn to a Worker in one message. Default false. */
  batch?: boolean;
  /**
   * With `batch`: most jobs per message (more go in the next ones, sent at once). A Worker answers
   * a message when all its jobs are done, so smaller messages come back sooner. Default unbounded.
   */
  batchMax?: number;
  /** Most jobs queued or in flight per Worker; more are refused. Default unbounded. */
  maxQueued?: number;
  /** A Worker with jobs in flight that answers nothing this long is replaced. Default never. */
  stallMs?: number;
  /** Jobs in flight on a Worker that died are sent again, once. Default false (they fail). */
  retry?: boolean;
  /** Told of every Worker replaced (after its successor was asked to start). */
  onReplaced?: (why: Error) => void;
}

/** Options of one job. */
export interface RunOptions {
  /** Time limit from now, waiting included. Default none. */
  timeoutMs?: number;
  /** Buffers moved to the Worker with the job (a job with any is not retried). */
  transfer?: Transferable[];
  /** Taken even when the queue is full. */
  force?: boolean;
}

interface Job<J, R> {
  id: number;
  job: J;
  transfer: Transferable[] | undefined;
  timeoutMs: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  slot: Slot<J, R>;
  retried: boolean;
  resolve: (v: R) => void;
  reject: (e: Error) => void;
}

interface Slot<J, R> {
  worker: Worker;
  ready: boolean;
  started: Promise<void>;
  /** its init failed: the next job starts a fresh Worker */
  broken: boolean;
  queue: Job<J, R>[];
  inFlight: Map<number, Job<J, R>>;
  /** When it last answered, or last had nothing to do: the watchdog reads it. */
  lastProgress: number;
}

/**
 * A fixed-size pool of module Workers speaking `protocol`.
 *
 * ```ts
 * const pool = new WorkerPool(jobsProtocol(url, init), { size: 2, maxQueued: 8 });
 * const answer = await pool.run(job, { timeoutMs: 5_000 }); // JobTimeoutError past 5 s
 * pool.close();
 * ```
 */
export class WorkerPool<J, R> {
  readonly #protocol: WorkerProtocol<J, R>;
  readonly #slots: Slot<J, R>[] = [];
  readonly #concurrency: number;
  readonly #batch: boolean;
  readonly #batchMax: number;
  readonly #maxQueued: number;
  readonly #stallMs: number;
  readonly #retry: boolean;
  readonly #onReplaced: ((why: Error) => void) | undefined;
  #nextId = 1;
  #closed = false;
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  #watchdog: ReturnType<typeof setInterval> | undefined;
  /** Workers started so far (the first ones and every successor). */
  starts = 0;
  /** Workers replaced so far. */
  replaced = 0;

  constructor(protocol: WorkerProtocol<J, R>, o: WorkerPoolOptions = {}) {
    const size = o.size ?? 1;
    if (!Number.isSafeInteger(size) || size < 1) {
      throw new RangeError(`Cannot start a worker pool: size must be >= 1, got ${size}`);
    }
    this.#protocol = protocol;
    this.#concurrency = o.concurrency ?? 1;
    this.#batch = o.batch ?? false;
    this.#batchMax = o.batchMax ?? Infinity;
    this.#maxQueued = o.maxQueued ?? Infinity;
    this.#stallMs = o.stallMs ?? Infinity;
    this.#retry = o.retry ?? false;
    this.#onReplaced = o.onReplaced;
    for (let i = 0; i < size; i++) {
      const slot: Slot<J, R> = {
        worker: this.#newWorker(),
        ready: false,
        started: Promise.resolve(),
        broken: false,
        queue: [],
        inFlight: new Map(),
        lastProgress: 0,
      };
      this.#attach(slot);
      this.#slots.push(slot);
    }
    if (Number.isFinite(this.#stallMs)) {
      this.#watchdog = setInterval(this.#watch, Math.max(50, Math.min(1000, this.#stallMs / 4)));
      unrefTimer(this.#watchdog); // portable: this module is in the Worker's bundle too
    }
  }

  /** Resolves once every Worker has taken its init; rejects with the first WorkerStartError. */
  ready(): Promise<void> {
    return Promise.all(this.#slots.map((s) => s.started)).then(() => {});
  }

  /** Jobs queued or in flight, over all Workers. */
  get load(): number {
    let n = 0;
    for (const s of this.#slots) n += s.queue.length + s.inFlight.size;
    return n;
  }

  /** Jobs sent to a Worker and not yet answered. */
  get inFlight(): number {
    let n = 0;
    for (const s of this.#slots) n += s.inFlight.size;
    return n;
  }

  /** Runs `job` on the least loaded Worker; see the module comment for how it can fail. */
  run(job: J, o: RunOptions = {}): Promise<R> {
    if (this.#closed) return Promise.reject(new JobLostError("the worker is closed"));
    let slot = this.#slots[0];
    for (let i = 1; i < this.#slots.length; i++) {
      if (loadOf(this.#slots[i]) < loadOf(slot)) slot = this.#slots[i];
    }
    if (!o.force && loadOf(slot) >= this.#maxQueued) {
      return Promise.reject(new JobQueueFullError(loadOf(slot)));
    }
    if (slot.broken) this.#spawn(slot);
    return new Promise<R>((resolve, reject) => {
      const j: Job<J, R> = {
        id: this.#nextId++,
        job,
        transfer: o.transfer,
        timeoutMs: o.timeoutMs ?? Infinity,
        timer: undefined,
        slot,
        retried: false,
        resolve,
        reject,
      };
      if (Number.isFinite(j.timeoutMs)) j.timer = setTimeout(() => this.#expire(j), j.timeoutMs);
      this.#enqueue(slot, j);
    });
  }

  #enqueue(slot: Slot<J, R>, j: Job<J, R>): void {
    if (loadOf(slot) === 0) slot.lastProgress = performance.now();
    j.slot = slot;
    slot.queue.push(j);
    if (this.#batch) this.#flushTimer ??= setTimeout(this.#flush, 0);
    else this.#pump(slot);
  }

  #flush = (): void => {
    this.#flushTimer = undefined;
    for (const s of this.#slots) this.#pump(s);
  };

  /** Sends what `slot`'s Worker may take now: one message per job, or one for all if batching. */
  #pump(slot: Slot<J, R>): void {
    if (!slot.ready || this.#closed) return;
    while (slot.queue.length > 0 && slot.inFlight.size < this.#concurrency) {
      const n = this.#batch ? Math.min(this.#batchMax, this.#concurrency - slot.inFlight.size) : 1;
      const sent = slot.queue.length <= n ? slot.queue.splice(0) : slot.queue.splice(0, n);
      const ids = sent.map((j) => j.id);
      for (const j of sent) slot.inFlight.set(j.id, j);
      const r = this.#protocol.request(ids, sent.map((j) => j.job));
      const transfer = r.transfer ?? [];
      for (const j of sent) if (j.transfer) transfer.push(...j.transfer);
      slot.worker.postMessage(r.msg, transfer);
    }
  }

  #newWorker(): Worker {
    this.starts++;
    return new Worker(this.#protocol.url, { type: "module" });
  }

  /** Starts a Worker in `slot` (its queue waits for it). */
  #spawn(slot: Slot<J, R>): void {
    slot.worker = this.#newWorker();
    this.#attach(slot);
  }

  /** Listens to `slot`'s new Worker and sends it the init message. */
  #attach(slot: Slot<J, R>): void {
    const w = slot.worker;
    slot.ready = false;
    slot.broken = false;
    let started: () => void, failed: (e: Error) => void;
    slot.started = new Promise<void>((res, rej) => (started = res, failed = rej));
    slot.started.catch(() => {}); // observed by ready(); never an unhandled rejection
    w.onmessage = (ev: MessageEvent<unknown>) => {
      if (w !== slot.worker) return;
      const m = this.#protocol.read(ev.data);
      if ("ids" in m) {
        slot.lastProgress = performance.now();
        for (let i = 0; i < m.ids.length; i++) {
          const j = slot.inFlight.get(m.ids[i]);
          if (!j) continue;
          slot.inFlight.delete(m.ids[i]);
          clearTimeout(j.timer);
          const r = m.results[i];
          if ("value" in r) j.resolve(r.value);
          else j.reject(r.error);
        }
        return this.#pump(slot);
      }
      if ("ready" in m) {
        slot.ready = true;
        slot.lastProgress = performance.now();
        started();
        return this.#pump(slot);
      }
      if ("failed" in m) {
        const e = new WorkerStartError(m.failed);
        failed(e);
        return this.#broke(slot, e);
      }
      this.#replace(slot, new JobLostError(`its worker refused a message (${m.unexpected})`));
    };
    w.onerror = (ev: ErrorEvent) => {
      ev.preventDefault();
      if (w !== slot.worker) return;
      const e = new JobLostError(`it failed in its worker (${ev.message})`);
      if (!slot.ready) failed(new WorkerStartError(ev.message));
      this.#replace(slot, e);
    };
    w.postMessage(this.#protocol.init);
  }

  /** A Worker that could not start: its jobs fail, and the next job tries a fresh Worker. */
  #broke(slot: Slot<J, R>, e: Error): void {
    slot.worker.terminate();
    slot.broken = true;
    for (const j of [...slot.queue, ...slot.inFlight.values()]) settle(j, e);
    slot.queue = [];
    slot.inFlight.clear();
  }

  /**
   * Terminates `slot`'s Worker and starts a successor; its jobs in flight are sent again (retry)
   * or fail with `why` (`culprit`, the job whose deadline ended it, fails with its own error).
   */
  #replace(slot: Slot<J, R>, why: Error, culprit?: Job<J, R>, culpritError?: Error): void {
    slot.worker.terminate();
    const orphans = [...slot.inFlight.values()];
    slot.inFlight.clear();
    if (this.#closed) {
      for (const j of [...slot.queue, ...orphans]) settle(j, why);
      slot.queue = [];
      return;
    }
    this.#spawn(slot);
    this.replaced++;
    this.#onReplaced?.(why);
    for (const j of orphans) {
      if (j === culprit) settle(j, culpritError ?? why);
      else if (this.#retry && !j.retried && !j.transfer) {
        j.retried = true;
        let to = this.#slots[0];
        for (const s of this.#slots) if (loadOf(s) < loadOf(to)) to = s;
        this.#enqueue(to, j);
      } else settle(j, why);
    }
  }

  /** A job's deadline: dropped from its queue, or its Worker ended if it runs. */
  #expire(j: Job<J, R>): void {
    const slot = j.slot;
    const i = slot.queue.indexOf(j);
    if (i >= 0) {
      slot.queue.splice(i, 1);
      return j.reject(new JobTimeoutError(Math.round(j.timeoutMs), false));
    }
    if (slot.inFlight.get(j.id) === j) {
      const e = new JobTimeoutError(Math.round(j.timeoutMs), true);
      this.#replace(slot, e, j, e);
    }
  }

  /** A Worker with work that answers nothing for stallMs is taken for dead. */
  #watch = (): void => {
    const now = performance.now();
    for (const s of this.#slots) {
      if (loadOf(s) === 0 || s.broken) s.lastProgress = now;
      else if (now - s.lastProgress > this.#stallMs) {
        this.#replace(s, new JobLostError(`its worker answered nothing for ${this.#stallMs} ms`));
      }
    }
  };

  /** Fails every queued (not yet sent) job with `e`. */
  dropQueued(e: Error): void {
    for (const s of this.#slots) {
      const q = s.queue;
      s.queue = [];
      for (const j of q) settle(j, e);
    }
  }

  /** Terminates every Worker now (freeing its memory) and starts fresh ones; jobs fail with `e`. */
  reset(e: Error): void {
    this.dropQueued(e);
    for (const s of this.#slots) {
      for (const j of s.inFlight.values()) settle(j, e);
      s.inFlight.clear();
      this.#replace(s, e);
    }
  }

  /** For tests and drills: terminates Worker `i` from outside, telling the pool nothing. */
  terminateWorker(i: number): void {
    this.#slots[i].worker.terminate();
  }

  /** For tests and drills: posts `m` to Worker `i` as is. */
  postRaw(i: number, m: unknown): void {
    this.#slots[i].worker.postMessage(m);
  }

  /** Stops every Worker; jobs queued or in flight fail with `why`. */
  close(why: Error = new JobLostError("the worker is closed")): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#flushTimer);
    clearInterval(this.#watchdog);
    for (const s of this.#slots) {
      s.worker.terminate();
      for (const j of [...s.queue, ...s.inFlight.values()]) settle(j, why);
      s.queue = [];
      s.inFlight.clear();
    }
  }
}

function loadOf(s: { queue: unknown[]; inFlight: Map<number, unknown> }): number {
  return s.queue.length + s.inFlight.size;
}

function settle(
  j: { timer: ReturnType<typeof setTimeout> | undefined; reject: (e: Error) => void },
  e: Error,
): void {
  clearTimeout(j.timer);
  j.reject(e);
}
