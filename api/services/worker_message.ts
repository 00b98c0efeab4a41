// What a Worker of this service (api/services/verify_pool_worker.ts, api/services/off_loop_worker.ts and its jobs
// api/services/validate_pool_worker.ts, api/services/sparql_worker_thread.ts) does with a message it does not
// expect (null, a string, an object without the fields its protocol names): it answers with a
// stable code and stays up, never throws (issue 28: `"config" in null` was an uncaught
// TypeError that ended the thread). The main thread only sends well-formed messages, so such an
// answer means a bug there: the pools treat it as a failed worker, replaced and its work sent again.

/** The stable code of an answer to a message a Worker does not expect. */
export const UNEXPECTED_MESSAGE = "worker-message-unexpected";

/** A Worker's answer to a message it does not expect. */
export interface UnexpectedAnswer {
  unexpected: { code: typeof UNEXPECTED_MESSAGE; message: string };
}

/** The answer to `m`, a message that is not one of `expected` (named in the message). */
export function unexpectedAnswer(m: unknown, expected: string): UnexpectedAnswer {
  return {
    unexpected: {
      code: UNEXPECTED_MESSAGE,
      message: `Cannot handle a message of ${shape(m)}: expected ${expected}`,
    },
  };
}

/** An error with the stable code, thrown by a job handler for a job it cannot read. */
export class UnexpectedMessageError extends Error {
  readonly code = UNEXPECTED_MESSAGE;
  constructor(m: unknown, expected: string) {
    super(unexpectedAnswer(m, expected).unexpected.message);
    this.name = "UnexpectedMessageError";
  }
}

/** Whether `m` is an object (not null, not an array) — the only shape any protocol here uses. */
export function isRecord(m: unknown): m is Record<string, unknown> {
  return typeof m === "object" && m !== null && !Array.isArray(m);
}

/** Whether `m` is an array of finite numbers. */
export function isNumberArray(m: unknown): m is number[] {
  return Array.isArray(m) && m.every((x) => typeof x === "number" && Number.isFinite(x));
}

/** A short description of a message's shape (never its content: it may be large). */
function shape(m: unknown): string {
  if (m === null) return "null";
  if (Array.isArray(m)) return "an array";
  if (typeof m !== "object") return `type ${typeof m}`;
  const keys = Object.keys(m).slice(0, 8);
  return keys.length ? `fields ${keys.join(", ")}` : "an empty object";
}
