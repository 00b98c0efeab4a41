// Heavy work off the event loop, with a time limit (issue 15: no SPARQL query or document to
// validate can stall the service). One Deno module Worker runs one job at a time from a FIFO
// kept here; a job still running at its deadline cannot be interrupted inside the Worker (Oxigraph
// and jsonld.js run synchronously), so the Worker is terminated — which frees everything it held —
// and a fresh one is started with the same init message. Jobs still queued when their deadline
// passes are dropped without touching the Worker. The Worker side is api/off_loop_worker.ts.
// Deno-only (module Workers); api/verify_pool.ts is the same idea for short jobs without limits.
import type { UnexpectedAnswer } from "./worker_message.ts";

/** A job that ran past its time limit (its Worker was terminated and replaced). */
export class JobTimeoutError extends Error {
  constructor(readonly ms: number, readonly started: boolean) {
    super(`Cannot finish the job: it ran past its time limit of ${ms} ms`);
    this.name = "JobTimeoutError";
  }
}

/** A job refused because the queue is full. */
export class JobQueueFullError extends Error {
  constructor(readonly queued: number) {
    super(`Cannot take the job: ${queued} jobs are already queued or running`);
    this.name = "JobQueueFullError";
  }
}

/** A job lost because its Worker was restarted, closed or failed. */
export class JobLostError extends Error {
  constructor(why: string) {
    super(`Cannot finish the job: ${why}`);
    this.name = "JobLostError";
  }
}

/** An error the Worker's handler threw, carried back with its name, message and `code`. */
export class JobError extends Error {
  constructor(name: string, message: string, readonly code?: string) {
    super(message);
    this.name = name;
  }
}

/** Messages from api/off_loop_worker.ts. */
export type OffLoopAnswer =
  | { ready: true }
  | { failed: string }
  | { id: number; value: unknown }
  | { id: number; error: { name: string; message: string; code?: string } }
  | UnexpectedAnswer;

interface Job {
  id: number;
  msg: unknown;
  transfer: Transferable[];
  deadline: number;
  /** whether the deadline may terminate the Worker once the job runs (false: it runs on) */
  kill: boolean;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer?: ReturnType<typeof setTimeout>;
}

/** Options of one OffLoopWorker. */
export interface OffLoopOptions {
  /** the Worker module (it calls serveJobs of api/off_loop_worker.ts) */
  url: URL;
  /** the first message every Worker gets (configuration) */
  init: unknown;
  /** most jobs queued or running at once; more are refused with JobQueueFullError */
  maxQueued: number;
  /** called after a Worker was terminated (time limit) or failed, once its successor is asked to start */
  onRestart?: (why: Error) => void;
}

/**
 * One Worker, one job at a time, each job under its own deadline.
 *
 * ```ts
 * const w = new OffLoopWorker({ url: new URL("./x_worker.ts", import.meta.url), init: {}, maxQueued: 8 });
 * const answer = await w.run({ text }, 5_000); // JobTimeoutError past 5 s: the Worker is replaced
 * ```
 */
export class OffLoopWorker {
  #worker!: Worker;
  #ready!: Promise<void>;
  #queue: Job[] = [];
  #running: Job | undefined;
  #nextId = 1;
  #closed = false;
  /** Workers started so far (1 + restarts). */
  starts = 0;

  constructor(readonly opts: OffLoopOptions) {
    this.#spawn();
  }

  /** Resolves once the current Worker has taken its init message. */
  get ready(): Promise<void> {
    return this.#ready;
  }

  /** Jobs queued or running. */
  get load(): number {
    return this.#queue.length + (this.#running ? 1 : 0);
  }

  #spawn(): void {
    this.starts++;
    const w = new Worker(this.opts.url, { type: "module" });
    this.#worker = w;
    let started: () => void, failed: (e: Error) => void;
    this.#ready = new Promise<void>((res, rej) => (started = res, failed = rej));
    this.#ready.catch(() => {});
    w.onmessage = (ev: MessageEvent<OffLoopAnswer>) => {
      if (w !== this.#worker) return;
      const m = ev.data;
      if ("ready" in m) {
        started();
        return this.#next();
      }
      if ("failed" in m) {
        const e = new JobLostError(`its worker could not start (${m.failed})`);
        failed(e);
        return this.#fail(e);
      }
      // Only a bug here sends what the Worker does not expect: its running job (if any) is lost.
      if ("unexpected" in m) {
        const e = new JobLostError(`its worker refused a message (${m.unexpected.code})`);
        return this.#restart(e, e);
      }
      const job = this.#running;
      if (!job || job.id !== m.id) return;
      this.#running = undefined;
      clearTimeout(job.timer);
      if ("value" in m) job.resolve(m.value);
      else job.reject(new JobError(m.error.name, m.error.message, m.error.code));
      this.#next();
    };
    w.onerror = (ev: ErrorEvent) => {
      ev.preventDefault();
      if (w !== this.#worker) return;
      const e = new JobLostError(`its worker failed (${ev.message})`);
      failed(e);
      this.#restart(e, e);
    };
    w.postMessage({ init: this.opts.init });
  }

  /** Ends the current Worker; fails its job with `jobError`; starts a successor. */
  #restart(why: Error, jobError: Error): void {
    this.#worker.terminate();
    const job = this.#running;
    this.#running = undefined;
    if (job) {
      clearTimeout(job.timer);
      job.reject(jobError);
    }
    if (this.#closed) return;
    this.#spawn();
    this.opts.onRestart?.(why);
  }

  /** A Worker that could not start: every job fails, and the next job tries a fresh Worker. */
  #fail(e: Error): void {
    this.#worker.terminate();
    for (const j of [...this.#queue, ...(this.#running ? [this.#running] : [])]) {
      clearTimeout(j.timer);
      j.reject(e);
    }
    this.#queue = [];
    this.#running = undefined;
    this.#broken = true;
  }
  #broken = false;

  #next(): void {
    if (this.#running || this.#closed) return;
    const job = this.#queue.shift();
    if (!job) return;
    this.#running = job;
    if (!job.kill) clearTimeout(job.timer);
    this.#worker.postMessage({ id: job.id, msg: job.msg }, job.transfer);
  }

  #expire(job: Job): void {
    if (this.#running === job) {
      if (!job.kill) return;
      const e = new JobTimeoutError(Math.round(job.deadline), true);
      return this.#restart(e, e);
    }
    const i = this.#queue.indexOf(job);
    if (i >= 0) {
      this.#queue.splice(i, 1);
      job.reject(new JobTimeoutError(Math.round(job.deadline), false));
    }
  }

  /**
   * Runs `msg` on the Worker. Within `timeoutMs` of this call (waiting in the queue included) it
   * answers, or fails with JobTimeoutError: if it was running, its Worker is terminated and a
   * fresh one started. `kill: false` lets a running job finish (the limit then bounds only its
   * wait in the queue).
   */
  run<T>(
    msg: unknown,
    timeoutMs: number,
    opts: { transfer?: Transferable[]; kill?: boolean; force?: boolean } = {},
  ): Promise<T> {
    if (this.#closed) return Promise.reject(new JobLostError("the worker is closed"));
    if (!opts.force && this.load >= this.opts.maxQueued) {
      return Promise.reject(new JobQueueFullError(this.load));
    }
    if (this.#broken) {
      this.#broken = false;
      this.#spawn();
    }
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        id: this.#nextId++,
        msg,
        transfer: opts.transfer ?? [],
        deadline: timeoutMs,
        kill: opts.kill ?? true,
        resolve: resolve as (v: unknown) => void,
        reject,
      };
      job.timer = setTimeout(() => this.#expire(job), timeoutMs);
      this.#queue.push(job);
      this.#ready.then(() => this.#next(), () => {});
    });
  }

  /** Fails every queued (not running) job with `e`. */
  dropQueued(e: Error): void {
    const q = this.#queue;
    this.#queue = [];
    for (const j of q) {
      clearTimeout(j.timer);
      j.reject(e);
    }
  }

  /** Terminates the Worker now (freeing its memory) and starts a fresh one; jobs fail with `e`. */
  reset(e: Error): void {
    this.dropQueued(e);
    this.#restart(e, e);
  }

  /** Stops the Worker; jobs in flight fail. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const e = new JobLostError("the worker is closed");
    this.dropQueued(e);
    this.#restart(e, e);
  }
}
