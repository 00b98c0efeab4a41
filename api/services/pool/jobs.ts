// The one-job-per-message protocol of WorkerPool (api/services/pool/worker_pool.ts), spoken by every
// Worker built on serveJobs (api/services/off_loop_worker.ts): `{init}` first, answered `{ready: true}` or
// `{failed}`; then `{id, msg}` per job, answered `{id, value}` or `{id, error: {name, message,
// code}}`; a message of neither shape is answered `{unexpected}` (api/services/worker_message.ts).
import type { UnexpectedAnswer } from "../worker_message.ts";
import { JobError } from "./errors.ts";
import type { WorkerEvent, WorkerProtocol } from "./worker_pool.ts";

/** Messages from a serveJobs Worker. */
export type OffLoopAnswer =
  | { ready: true }
  | { failed: string }
  | { id: number; value: unknown }
  | { id: number; error: { name: string; message: string; code?: string } }
  | UnexpectedAnswer;

/** The protocol of the serveJobs Worker at `url`, started with `init`. */
export function jobsProtocol<J, R>(url: URL, init: unknown): WorkerProtocol<J, R> {
  return {
    url,
    init: { init },
    request: (ids, jobs) => ({ msg: { id: ids[0], msg: jobs[0] } }),
    read(data: unknown): WorkerEvent<R> {
      const m = data as OffLoopAnswer;
      if ("ready" in m || "failed" in m) return m;
      if ("unexpected" in m) return { unexpected: m.unexpected.code };
      if ("value" in m) return { ids: [m.id], results: [{ value: m.value as R }] };
      const e = m.error;
      return { ids: [m.id], results: [{ error: new JobError(e.name, e.message, e.code) }] };
    },
  };
}
