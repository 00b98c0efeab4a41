// The Worker side of api/services/off_loop.ts: takes the init message first, then answers each
// {id, msg} with {id, value} or {id, error: {name, message, code}}. One job at a time (the main
// thread sends the next only after the answer), so a job's time limit is its own. A message of
// neither shape is answered with a stable code (api/services/worker_message.ts), never thrown on; a job the
// handler cannot read is answered as a job error with that code.
/// <reference lib="deno.worker" />
import type { OffLoopAnswer } from "./pool/mod.ts";
import { isRecord, unexpectedAnswer } from "./worker_message.ts";

/** A handler's answer: the value, and buffers to move rather than copy. */
export interface JobAnswer {
  value: unknown;
  transfer?: Transferable[];
}

/**
 * Serves jobs in this Worker: `init(config)` once, then `handle(msg)` per job.
 *
 * ```ts
 * serveJobs((cfg) => setup(cfg), async (msg) => ({ value: await work(msg) }));
 * ```
 */
export function serveJobs(
  init: (config: unknown) => void | Promise<void>,
  handle: (msg: unknown) => JobAnswer | Promise<JobAnswer>,
): void {
  const answer = (m: OffLoopAnswer, transfer: Transferable[] = []) => self.postMessage(m, transfer);
  self.onmessage = async (ev: MessageEvent<unknown>) => {
    const m = ev.data;
    if (!isRecord(m) || !("init" in m || (Number.isSafeInteger(m.id) && "msg" in m))) {
      return answer(unexpectedAnswer(m, "{init} or {id, msg}"));
    }
    if ("init" in m) {
      try {
        await init(m.init);
        answer({ ready: true });
      } catch (e) {
        answer({ failed: e instanceof Error ? e.message : String(e) });
      }
      return;
    }
    try {
      const a = await handle(m.msg);
      answer({ id: m.id as number, value: a.value }, a.transfer);
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      const code = (err as { code?: unknown }).code;
      answer({
        id: m.id as number,
        error: {
          name: err.name,
          message: err.message,
          code: typeof code === "string" ? code : undefined,
        },
      });
    }
  };
}
