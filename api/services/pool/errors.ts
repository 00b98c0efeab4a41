// How a job of api/services/pool/worker_pool.ts fails: past its time limit, refused by a full queue, lost
// with its Worker, or an error the Worker's handler threw (carried back by name, message, code).

/** A job that ran past its time limit (if it was running, its Worker was terminated and replaced). */
export class JobTimeoutError extends Error {
  constructor(readonly ms: number, readonly started: boolean) {
    super(`Cannot finish the job: it ran past its time limit of ${ms} ms`);
    this.name = "JobTimeoutError";
  }
}

/** A job refused because its Worker's queue is full. */
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

/** A Worker that could not take its first (init) message; `reason` is what it answered. */
export class WorkerStartError extends JobLostError {
  constructor(readonly reason: string) {
    super(`its worker could not start (${reason})`);
    this.name = "WorkerStartError";
  }
}

/** An error the Worker's handler threw, carried back with its name, message and `code`. */
export class JobError extends Error {
  constructor(name: string, message: string, readonly code?: string) {
    super(message);
    this.name = name;
  }
}
