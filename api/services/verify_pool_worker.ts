// One worker of api/services/verify_pool.ts: builds the verifier options from the ServiceConfig it is
// sent first (api/http/verifier_options.ts, the same function the main thread uses), then answers
// each {ids, bytes, ends} message with one outcome per envelope: verify/'s verifyEnvelope report
// (JCR-1 §6), or the error it threw. Any other message is answered with a stable code
// (api/services/worker_message.ts), never thrown on; `{drill: "crash"}` fails the thread on purpose
// (VerifierPool.crashWorker: the pool's replacement of a failed worker is tested with it).
/// <reference lib="deno.worker" />
import { verifyEnvelope } from "../../verify/mod.ts";
import { entryFacts } from "../../log/mod.ts";
import type { VerifierOptions } from "../../verify/mod.ts";
import type { ServiceConfig } from "./config.ts";
import {
  type PoolAnswer,
  type PoolOutcome,
  type PoolRequest,
  requestEnvelopes,
} from "./verify_pool.ts";
import { verifierOptions } from "../http/verifier_options.ts";
import { isNumberArray, isRecord, unexpectedAnswer } from "./worker_message.ts";

let options: VerifierOptions | undefined;

function answer(m: PoolAnswer): void {
  self.postMessage(m);
}

async function outcome(envelope: Uint8Array, facts: boolean): Promise<PoolOutcome> {
  try {
    const { receipt: _, ...report } = await verifyEnvelope(envelope, options);
    // the receipt is computed where it is read (verify_pool.ts withReceipt); an append's stream
    // facts here, off the event loop (issue 29), for an envelope that verified
    const f = facts && report.valid ? entryFacts(envelope) : undefined;
    return f ? { report, facts: f } : { report };
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    return { error: { name: err.name, message: err.message } };
  }
}

const EXPECTED =
  "{config}, {ids, bytes, ends, facts?} (as many ids as ends, ends rising within bytes, facts " +
  "positions among them)";

/** Whether `m` is a well-formed request: its envelopes are inside its buffer, one per id. */
function isRequest(m: Record<string, unknown>): m is Record<string, unknown> & PoolRequest {
  const { ids, bytes, ends } = m;
  if (!isNumberArray(ids) || !isNumberArray(ends) || !(bytes instanceof Uint8Array)) return false;
  if (ids.length !== ends.length) return false;
  const { facts } = m;
  if (
    facts !== undefined &&
    (!isNumberArray(facts) || !facts.every((i) => Number.isInteger(i) && i >= 0 && i < ends.length))
  ) {
    return false;
  }
  return ends.every((e, i) => Number.isInteger(e) && e >= (ends[i - 1] ?? 0) && e <= bytes.length);
}

self.onmessage = async (ev: MessageEvent<unknown>) => {
  const m = ev.data;
  if (isRecord(m) && m.drill === "crash") {
    setTimeout(() => {
      throw new Error("verifier worker drill: crash");
    });
    return;
  }
  if (isRecord(m) && isRecord(m.config)) {
    try {
      options = verifierOptions(m.config as unknown as ServiceConfig);
      answer({ ready: true });
    } catch (e) {
      answer({ failed: e instanceof Error ? e.message : String(e) });
    }
    return;
  }
  if (!isRecord(m) || !isRequest(m)) return answer(unexpectedAnswer(m, EXPECTED));
  const wanted = new Set(m.facts);
  answer({
    ids: m.ids,
    outcomes: await Promise.all(requestEnvelopes(m).map((e, i) => outcome(e, wanted.has(i)))),
  });
};
