// Verification off the event loop (issue 4): a small pool of Deno module Workers, each running
// verify/'s verifyEnvelope (JCR-1 §6 steps 1-6) under the verifier options built from the same
// ServiceConfig (api/verifier_options.ts), fed the envelope bytes and answering the report. In
// Deno 2.9.6 WebCrypto Ed25519 verify runs synchronously on the calling thread, so in-thread
// verification (~200 µs CPU per receipt) stalls every other request; a pool moves that work to
// other threads. The envelopes of one event-loop turn go to a worker in one message, and come
// back in one: one message per envelope cost the event loop as much as verifying in place
// (~50 µs), one per turn ~20 µs per envelope (docs/DECISIONS.md §3). Deno-only (Worker with module type): api/main.ts injects it as
// AppDeps.verify; createApp and the Workers entry (api/worker.ts) keep the in-thread verifier.
// The reports are those of the in-thread verifier, value for value (tests/api/verify_pool_test.ts
// checks every conformance vector).
import { receiptOf, type VerificationReport } from "../verify/mod.ts";
import type { ServiceConfig } from "./config.ts";
import type { UnexpectedAnswer } from "./worker_message.ts";

/**
 * A request to a pool worker: verify each envelope and answer with the same `ids`. The envelopes
 * that arrive in one turn of the event loop travel in one message (the per-message cost on the
 * event loop was as large as verifying in place), packed end to end in one transferred buffer:
 * envelope i is `bytes[ends[i - 1] ?? 0, ends[i])` (one buffer moved cost the event loop a third
 * of one buffer per envelope, docs/PERFORMANCE.md).
 */
export interface PoolRequest {
  ids: number[];
  bytes: Uint8Array;
  ends: number[];
}

/** The envelopes of a request, as views into its buffer. */
export function requestEnvelopes(m: PoolRequest): Uint8Array[] {
  return m.ends.map((end, i) => m.bytes.subarray(i === 0 ? 0 : m.ends[i - 1], end));
}

/** Queued requests of one worker, not yet sent. */
interface Queue {
  ids: number[];
  envelopes: Uint8Array[];
  bytes: number;
}

/**
 * One envelope's outcome: the report without its `receipt` (the JSON projection, a third of the
 * report's structured-clone cost; the main thread computes it from the envelope if it is read,
 * which the append route never does for a valid receipt), or the message of the error
 * verifyEnvelope threw.
 */
export type PoolOutcome =
  | { report: Omit<VerificationReport, "receipt"> }
  | { error: { name: string; message: string } };

/** `r` with its `receipt` computed from `envelope` when first read (receiptOf: the same value). */
function withReceipt(
  r: Omit<VerificationReport, "receipt">,
  envelope: Uint8Array,
): VerificationReport {
  let receipt: unknown, known = false;
  return Object.defineProperty(r, "receipt", {
    enumerable: true,
    configurable: true,
    get: () => known ? receipt : (known = true, receipt = receiptOf(envelope)),
    set: (v: unknown) => (known = true, receipt = v),
  }) as VerificationReport;
}

/** A pool worker's message. */
export type PoolAnswer =
  | { ids: number[]; outcomes: PoolOutcome[] }
  | { ready: true }
  | { failed: string }
  | UnexpectedAnswer;

interface Pending {
  resolve: (r: VerificationReport) => void;
  reject: (e: Error) => void;
  /** The caller's bytes (the worker got a copy): sent again if the worker dies. */
  envelope: Uint8Array;
  /** Sent again once already: a second death fails it. */
  retried: boolean;
}

class PoolWorker {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  readonly ready: Promise<void>;
  /** Requests of this turn not yet sent. */
  queue: Queue = { ids: [], envelopes: [], bytes: 0 };
  /** When this worker last answered (or was last idle): the pool's watchdog reads it. */
  lastProgress = performance.now();

  constructor(config: ServiceConfig, onDead: (w: PoolWorker, why: Error) => void) {
    this.worker = new Worker(new URL("./verify_pool_worker.ts", import.meta.url), {
      type: "module",
    });
    let started: () => void, failed: (e: Error) => void;
    this.ready = new Promise<void>((res, rej) => (started = res, failed = rej));
    this.ready.catch(() => {}); // observed by start(); never an unhandled rejection
    this.worker.onmessage = (ev: MessageEvent<PoolAnswer>) => {
      const m = ev.data;
      if ("ready" in m) return started();
      if ("failed" in m) {
        const e = new Error(`Cannot start a verifier worker: ${m.failed}`);
        failed(e);
        return onDead(this, e);
      }
      // Only a bug here sends what a worker does not expect: replace it, send its work again.
      if ("unexpected" in m) {
        const u = m.unexpected;
        return onDead(
          this,
          new Error(`A verifier worker refused a message: ${u.code}: ${u.message}`),
        );
      }
      this.lastProgress = performance.now();
      for (let i = 0; i < m.ids.length; i++) {
        const p = this.pending.get(m.ids[i]);
        if (!p) continue;
        this.pending.delete(m.ids[i]);
        const o = m.outcomes[i];
        if ("report" in o) p.resolve(withReceipt(o.report, p.envelope));
        else {
          const e = new Error(o.error.message);
          e.name = o.error.name;
          p.reject(e);
        }
      }
    };
    this.worker.onerror = (ev: ErrorEvent) => {
      ev.preventDefault();
      const e = new Error(`Cannot verify in a worker: it failed (${ev.message})`);
      failed(e);
      onDead(this, e);
    };
    this.worker.postMessage({ config });
  }
}

/** Options of `VerifierPool.start`. */
export interface VerifierPoolOptions {
  /**
   * A worker with requests in flight that answers nothing for this long is taken for dead
   * (terminated, hung): it is replaced and its requests are sent again. Default 10,000 ms.
   */
  stallMs?: number;
  /** Told of every replaced worker (api/main.ts logs it and counts it in /metrics). */
  onReplaced?: (why: Error) => void;
}

/**
 * A fixed-size pool of verifier Workers. `verify` sends the envelope to the worker with the
 * fewest requests in flight. A worker that dies (its thread fails, or it stops answering for
 * `stallMs` with requests in flight: terminated or hung) is terminated and replaced, and its
 * requests in flight are sent again to the others (verification is pure, so a retry is safe);
 * one that was already retried once fails (the caller's 500).
 *
 * ```ts
 * const pool = await VerifierPool.start(config, 2);
 * const app = createApp({ log, config, verifier, metrics, verify: pool.verify });
 * // ... on shutdown, after the server has drained:
 * pool.close();
 * ```
 */
export class VerifierPool {
  #workers: PoolWorker[] = [];
  #nextId = 1;
  #closed = false;
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  #watchdog: ReturnType<typeof setInterval> | undefined;
  readonly #stallMs: number;
  readonly #onReplaced: ((why: Error) => void) | undefined;
  /** Workers replaced so far. */
  replaced = 0;

  private constructor(
    readonly config: ServiceConfig,
    readonly size: number,
    o: VerifierPoolOptions,
  ) {
    this.#stallMs = o.stallMs ?? 10_000;
    this.#onReplaced = o.onReplaced;
  }

  /** Starts `size` (>= 1) workers and resolves once every one has built its options. */
  static async start(
    config: ServiceConfig,
    size: number,
    o: VerifierPoolOptions = {},
  ): Promise<VerifierPool> {
    if (!Number.isSafeInteger(size) || size < 1) {
      throw new RangeError(`Cannot start a verifier pool: size must be >= 1, got ${size}`);
    }
    const pool = new VerifierPool(config, size, o);
    for (let i = 0; i < size; i++) pool.#workers.push(pool.#spawn());
    try {
      await Promise.all(pool.#workers.map((w) => w.ready));
    } catch (e) {
      pool.close();
      throw e;
    }
    // A terminated or hung worker sends no error event: watch for workers that stop answering.
    pool.#watchdog = setInterval(pool.#watch, Math.max(50, Math.min(1000, pool.#stallMs / 4)));
    Deno.unrefTimer(pool.#watchdog);
    return pool;
  }

  #watch = (): void => {
    const now = performance.now();
    for (const w of [...this.#workers]) {
      if (w.pending.size === 0) w.lastProgress = now;
      else if (now - w.lastProgress > this.#stallMs) {
        this.#replace(
          w,
          new Error(`Cannot verify in a worker: it answered nothing for ${this.#stallMs} ms`),
        );
      }
    }
  };

  #spawn(): PoolWorker {
    return new PoolWorker(this.config, (dead, why) => this.#replace(dead, why));
  }

  /** Terminates `dead`, starts another in its place, and sends its requests in flight again. */
  #replace(dead: PoolWorker, why: Error): void {
    const i = this.#workers.indexOf(dead);
    if (i < 0) return; // already replaced
    dead.worker.terminate();
    const orphans = [...dead.pending.values()];
    dead.pending.clear();
    if (this.#closed) {
      for (const p of orphans) p.reject(why);
      return;
    }
    this.#workers[i] = this.#spawn();
    this.replaced++;
    this.#onReplaced?.(why);
    for (const p of orphans) {
      if (p.retried) p.reject(why);
      else this.#send(p.envelope, { ...p, retried: true });
    }
  }

  /**
   * For tests (and drills): terminates worker `i` from outside, as a crash of its thread would
   * leave it, without telling the pool; the watchdog must notice and replace it.
   */
  terminateWorker(i: number): void {
    this.#workers[i].worker.terminate();
  }

  /** For tests: makes worker `i`'s thread fail (an uncaught error inside it, on purpose). */
  crashWorker(i: number): void {
    this.#workers[i].worker.postMessage({ drill: "crash" });
  }

  /** Requests in flight, over all workers. */
  get inFlight(): number {
    let n = 0;
    for (const w of this.#workers) n += w.pending.size;
    return n;
  }

  /** verifyEnvelope(envelope, options of `config`) on a worker thread. */
  verify = (envelope: Uint8Array): Promise<VerificationReport> => {
    if (this.#closed) {
      return Promise.reject(new Error("Cannot verify: the verifier pool is closed"));
    }
    return new Promise<VerificationReport>((resolve, reject) => {
      this.#send(envelope, { resolve, reject, envelope, retried: false });
    });
  };

  #send(envelope: Uint8Array, p: Pending): void {
    let w = this.#workers[0];
    for (let i = 1; i < this.#workers.length; i++) {
      if (this.#workers[i].pending.size < w.pending.size) w = this.#workers[i];
    }
    const id = this.#nextId++;
    if (w.pending.size === 0) w.lastProgress = performance.now();
    w.pending.set(id, p);
    w.queue.ids.push(id);
    w.queue.envelopes.push(envelope);
    w.queue.bytes += envelope.length;
    this.#flushTimer ??= setTimeout(this.#flush, 0);
  }

  #flush = (): void => {
    this.#flushTimer = undefined;
    for (const w of this.#workers) {
      const q = w.queue;
      if (q.ids.length === 0) continue;
      w.queue = { ids: [], envelopes: [], bytes: 0 };
      // A copy: the callers keep their bytes (they append them next); the copy's buffer is moved.
      const bytes = new Uint8Array(q.bytes);
      const ends: number[] = [];
      let o = 0;
      for (const e of q.envelopes) {
        bytes.set(e, o);
        ends.push(o += e.length);
      }
      const m: PoolRequest = { ids: q.ids, bytes, ends };
      w.worker.postMessage(m, [bytes.buffer]);
    }
  };

  /** Stops every worker; requests still in flight are failed. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#flushTimer);
    clearInterval(this.#watchdog);
    const why = new Error("Cannot verify: the verifier pool is closed");
    for (const w of this.#workers) {
      w.worker.terminate();
      for (const p of w.pending.values()) p.reject(why);
      w.pending.clear();
    }
  }
}
