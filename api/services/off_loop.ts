// Heavy work off the event loop, with a time limit (issue 15: no SPARQL query or document to
// validate can stall the service): one Worker of the service's Worker pool (api/services/pool/), one job
// at a time from a FIFO, each job under its own deadline — past it a running job's Worker is
// terminated (Oxigraph and jsonld.js cannot be interrupted) and a fresh one started with the
// same init message. The Worker side is api/services/off_loop_worker.ts. Deno-only (module Workers).
import { jobsProtocol, WorkerPool } from "./pool/mod.ts";

export {
  JobError,
  JobLostError,
  JobQueueFullError,
  JobTimeoutError,
  type OffLoopAnswer,
} from "./pool/mod.ts";

/** Options of one OffLoopWorker. */
export interface OffLoopOptions {
  /** the Worker module (it calls serveJobs of api/services/off_loop_worker.ts) */
  url: URL;
  /** the first message every Worker gets (configuration) */
  init: unknown;
  /** most jobs queued or running at once; more are refused with JobQueueFullError */
  maxQueued: number;
  /** called after a Worker was terminated (time limit) or failed, once its successor is asked to start */
  onRestart?: (why: Error) => void;
}

/**
 * One Worker, one job at a time, each job under its own deadline: a WorkerPool of one.
 *
 * ```ts
 * const w = new OffLoopWorker({ url: new URL("./x_worker.ts", import.meta.url), init: {}, maxQueued: 8 });
 * const answer = await w.run({ text }, 5_000); // JobTimeoutError past 5 s: the Worker is replaced
 * ```
 */
export class OffLoopWorker {
  readonly #pool: WorkerPool<unknown, unknown>;

  constructor(readonly opts: OffLoopOptions) {
    this.#pool = new WorkerPool(jobsProtocol(opts.url, opts.init), {
      maxQueued: opts.maxQueued,
      onReplaced: opts.onRestart,
    });
  }

  /** Resolves once the current Worker has taken its init message. */
  get ready(): Promise<void> {
    return this.#pool.ready();
  }

  /** Jobs queued or running. */
  get load(): number {
    return this.#pool.load;
  }

  /** Workers started so far (1 + restarts). */
  get starts(): number {
    return this.#pool.starts;
  }

  /**
   * Runs `msg` on the Worker. Within `timeoutMs` of this call (waiting in the queue included) it
   * answers, or fails with JobTimeoutError: if it was running, its Worker is terminated and a
   * fresh one started.
   */
  run<T>(
    msg: unknown,
    timeoutMs: number,
    opts: { transfer?: Transferable[]; force?: boolean } = {},
  ): Promise<T> {
    return this.#pool.run(msg, { timeoutMs, ...opts }) as Promise<T>;
  }

  /** Fails every queued (not running) job with `e`. */
  dropQueued(e: Error): void {
    this.#pool.dropQueued(e);
  }

  /** Terminates the Worker now (freeing its memory) and starts a fresh one; jobs fail with `e`. */
  reset(e: Error): void {
    this.#pool.reset(e);
  }

  /** Stops the Worker; jobs in flight fail. */
  close(): void {
    this.#pool.close();
  }
}
