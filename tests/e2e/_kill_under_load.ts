// SIGKILL under load, once (the crash tests of issues 24, 25 and 30): `lanes` workers append to
// the real service until `first` acknowledgements, the service is SIGKILLed mid-load, restarted
// on the same data directory and appended to until `more` further acknowledgements. Answers the
// restarted service, still running.
import assert from "node:assert/strict";
import { type Service, startService } from "../../fixtures/service.ts";

/** The kill's plan: how many lanes, acknowledgements before the kill and after the restart. */
export interface KillPlan {
  env: Record<string, string>;
  lanes: number;
  /** Acknowledgements so far (the workers count them). */
  acked: () => number;
  first: number;
  more: number;
}

/**
 * Runs `step` (one worker's next append or appends to `url`) again and again in each lane under
 * the plan, against `started` (the caller's, so its cleanup stops it if anything fails). A step
 * that fails while the killed service is gone ends its lane; any other failure fails the test.
 */
export async function killUnderLoad(
  plan: KillPlan,
  step: (lane: number, url: string) => Promise<void>,
  started: Service,
): Promise<Service> {
  let killed = false;
  const load = (url: string, until: () => boolean) =>
    Promise.all(Array.from({ length: plan.lanes }, async (_, w) => {
      while (!until()) {
        try {
          await step(w, url);
        } catch (e) {
          if (!killed) throw e;
          return; // the service is gone: expected after the kill
        }
      }
    }));
  const running = load(started.url, () => killed);
  while (plan.acked() < plan.first) await new Promise((r) => setTimeout(r, 10));
  killed = true;
  assert.equal((await started.stop("SIGKILL")).success, false);
  await running;
  killed = false;
  const again = await startService(plan.env);
  const more = plan.acked() + plan.more;
  await load(again.url, () => plan.acked() >= more);
  return again;
}

/** POSTs one envelope to `/v1/log/entries`; its status (the body is not read). */
export async function appendStatus(url: string, e: Uint8Array<ArrayBuffer>): Promise<number> {
  const r = await fetch(`${url}/v1/log/entries`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: e,
  });
  await r.body?.cancel();
  return r.status;
}
