// Verification off the event loop (issue 4): a small pool of Deno module Workers, each running
// verify/'s verifyEnvelope (JCR-1 §6 steps 1-6) under the verifier options built from the same
// ServiceConfig (api/http/verifier_options.ts), fed the envelope bytes and answering the report. In
// Deno 2.9.6 WebCrypto Ed25519 verify runs synchronously on the calling thread, so in-thread
// verification (~200 µs CPU per receipt) stalls every other request; a pool moves that work to
// other threads. The envelopes of one event-loop turn go to a worker in one message, and come
// back in one (at most VERIFY_BATCH_MAX each): one message per envelope cost the event loop as
// much as verifying in place (~50 µs), one per turn ~20 µs per envelope (docs/DECISIONS.md §3). Deno-only (Worker with module type): api/deno/main.ts injects it as
// AppDeps.verify; createApp and the Workers entry (edge/worker/worker.ts) keep the in-thread verifier.
// The reports are those of the in-thread verifier, value for value (tests/api/verify_pool_test.ts
// checks every conformance vector).
import { receiptOf, type VerificationReport } from "../../verify/mod.ts";
import type { ServiceConfig } from "./config.ts";
import type { UnexpectedAnswer } from "./worker_message.ts";
import type { EntryFacts } from "../../log/mod.ts";
import { WorkerPool, type WorkerProtocol, WorkerStartError } from "./pool/mod.ts";

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
  /** The positions of the envelopes whose stream facts are wanted too (an append's, issue 29). */
  facts?: number[];
}

/** The envelopes of a request, as views into its buffer. */
export function requestEnvelopes(m: PoolRequest): Uint8Array[] {
  return m.ends.map((end, i) => m.bytes.subarray(i === 0 ? 0 : m.ends[i - 1], end));
}

/**
 * One envelope's outcome: the report without its `receipt` (the JSON projection, a third of the
 * report's structured-clone cost; the main thread computes it from the envelope if it is read,
 * which the append route never does for a valid receipt), or the message of the error
 * verifyEnvelope threw.
 */
export type PoolOutcome =
  | { report: Omit<VerificationReport, "receipt">; facts?: EntryFacts }
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

/** The verifier's side of the pool's protocol (api/services/pool/worker_pool.ts). */
/** A job: an envelope, and whether its stream facts are wanted. */
interface VerifyJob {
  envelope: Uint8Array;
  facts: boolean;
}

/** A job's answer: the report without its receipt, and the facts when they were asked for. */
interface Verified {
  report: Omit<VerificationReport, "receipt">;
  facts?: EntryFacts;
}

function verifyProtocol(
  config: ServiceConfig,
): WorkerProtocol<VerifyJob, Verified> {
  return {
    url: new URL("./verify_pool_worker.ts", import.meta.url),
    init: { config },
    request(ids, jobs) {
      // A copy: the callers keep their bytes (they append them next); the copy's buffer is moved.
      let n = 0;
      for (const j of jobs) n += j.envelope.length;
      const bytes = new Uint8Array(n);
      const ends: number[] = [];
      let facts: number[] | undefined;
      let o = 0;
      for (let i = 0; i < jobs.length; i++) {
        bytes.set(jobs[i].envelope, o);
        ends.push(o += jobs[i].envelope.length);
        if (jobs[i].facts) (facts ??= []).push(i);
      }
      const msg: PoolRequest = facts ? { ids, bytes, ends, facts } : { ids, bytes, ends };
      return { msg, transfer: [bytes.buffer] };
    },
    read(data) {
      const m = data as PoolAnswer;
      if ("ready" in m || "failed" in m) return m;
      // Only a bug here sends what a worker does not expect: replace it, send its work again.
      if ("unexpected" in m) return { unexpected: `${m.unexpected.code}: ${m.unexpected.message}` };
      return {
        ids: m.ids,
        results: m.outcomes.map((o) => {
          if ("report" in o) return { value: o };
          const e = new Error(o.error.message);
          e.name = o.error.name;
          return { error: e };
        }),
      };
    },
  };
}

/**
 * Most envelopes per message to a worker (issue 29). A worker answers a message once it has
 * verified all of it: the 2,048 envelopes of eight bulks arriving together went as one message
 * and came back together (~0.1 s of one core later), so the sequencer then had all of them at once
 * and the worker nothing to do while the main thread sequenced them, and the next bulks arrived
 * together again (docs/PERFORMANCE.md "Bulk appends"). In messages of 64 the first bulk comes
 * back after its own envelopes and is sequenced while the worker verifies the next. 64, not 1:
 * the per-message cost on the event loop is spread over 64 envelopes (docs/DECISIONS.md "The
 * verifier's messages").
 */
export const VERIFY_BATCH_MAX = 64;

/** Options of `VerifierPool.start`. */
export interface VerifierPoolOptions {
  /**
   * A worker with requests in flight that answers nothing for this long is taken for dead
   * (terminated, hung): it is replaced and its requests are sent again. Default 10,000 ms.
   */
  stallMs?: number;
  /** Told of every replaced worker (api/deno/main.ts logs it and counts it in /metrics). */
  onReplaced?: (why: Error) => void;
}

/**
 * A fixed-size pool of verifier Workers (api/services/pool/'s WorkerPool: batched by event-loop turn, no
 * queue bound, no time limit per job, retried once). `verify` sends the envelope to the worker
 * with the fewest requests in flight. A worker that dies (its thread fails, or it stops answering
 * for `stallMs` with requests in flight: terminated or hung) is terminated and replaced, and its
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
  readonly #pool: WorkerPool<VerifyJob, Verified>;
  #closed = false;

  private constructor(
    readonly config: ServiceConfig,
    readonly size: number,
    o: VerifierPoolOptions,
  ) {
    this.#pool = new WorkerPool(verifyProtocol(config), {
      size,
      concurrency: Infinity,
      batch: true,
      batchMax: VERIFY_BATCH_MAX,
      retry: true,
      stallMs: o.stallMs ?? 10_000,
      onReplaced: o.onReplaced,
    });
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
    try {
      await pool.#pool.ready();
    } catch (e) {
      pool.close();
      const why = e instanceof WorkerStartError ? e.reason : String(e);
      throw new Error(`Cannot start a verifier worker: ${why}`);
    }
    return pool;
  }

  /** Workers replaced so far. */
  get replaced(): number {
    return this.#pool.replaced;
  }

  /**
   * For tests (and drills): terminates worker `i` from outside, as a crash of its thread would
   * leave it, without telling the pool; the watchdog must notice and replace it.
   */
  terminateWorker(i: number): void {
    this.#pool.terminateWorker(i);
  }

  /** For tests: makes worker `i`'s thread fail (an uncaught error inside it, on purpose). */
  crashWorker(i: number): void {
    this.#pool.postRaw(i, { drill: "crash" });
  }

  /** Requests in flight, over all workers. */
  get inFlight(): number {
    return this.#pool.load;
  }

  /** verifyEnvelope(envelope, options of `config`) on a worker thread. */
  verify = (envelope: Uint8Array): Promise<VerificationReport> => {
    if (this.#closed) {
      return Promise.reject(new Error("Cannot verify: the verifier pool is closed"));
    }
    return this.#pool.run({ envelope, facts: false }).then((r) => withReceipt(r.report, envelope));
  };

  /**
   * As `verify`, with the envelope's stream facts (log/'s entryFacts of the same bytes) when it
   * verifies: a bulk append hands them to the sequencer, which then does not decode the envelope
   * again on the event loop (issue 29; docs/PERFORMANCE.md "Where a bulk's wall time went").
   */
  verifyForAppend = (
    envelope: Uint8Array,
  ): Promise<{ report: VerificationReport; facts?: EntryFacts }> => {
    if (this.#closed) {
      return Promise.reject(new Error("Cannot verify: the verifier pool is closed"));
    }
    return this.#pool.run({ envelope, facts: true }).then((r) => ({
      report: withReceipt(r.report, envelope),
      ...(r.facts ? { facts: r.facts } : {}),
    }));
  };

  /** Stops every worker; requests still in flight are failed. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pool.close(new Error("Cannot verify: the verifier pool is closed"));
  }
}
