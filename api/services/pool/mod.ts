// The Worker pool (api/services/pool/worker_pool.ts) every off-loop job of the service runs on, its job
// errors, and the two protocols its users speak: one job per message (api/services/pool/jobs.ts, served by
// api/services/off_loop_worker.ts) and the verifier's packed batches (api/services/verify_pool.ts).
export {
  type JobResult,
  type RunOptions,
  type WorkerEvent,
  WorkerPool,
  type WorkerPoolOptions,
  type WorkerProtocol,
} from "./worker_pool.ts";
export {
  JobError,
  JobLostError,
  JobQueueFullError,
  JobTimeoutError,
  WorkerStartError,
} from "./errors.ts";
export { jobsProtocol, type OffLoopAnswer } from "./jobs.ts";
