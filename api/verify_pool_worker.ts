// One worker of api/verify_pool.ts: builds the verifier options from the ServiceConfig it is
// sent first (api/verifier_options.ts, the same function the main thread uses), then answers
// each {ids, bytes, ends} message with one outcome per envelope: verify/'s verifyEnvelope report
// (JCR-1 §6), or the error it threw.
/// <reference lib="deno.worker" />
import { verifyEnvelope } from "../verify/mod.ts";
import type { VerifierOptions } from "../verify/mod.ts";
import type { ServiceConfig } from "./config.ts";
import {
  type PoolAnswer,
  type PoolOutcome,
  type PoolRequest,
  requestEnvelopes,
} from "./verify_pool.ts";
import { verifierOptions } from "./verifier_options.ts";

let options: VerifierOptions | undefined;

function answer(m: PoolAnswer): void {
  self.postMessage(m);
}

async function outcome(envelope: Uint8Array): Promise<PoolOutcome> {
  try {
    const { receipt: _, ...report } = await verifyEnvelope(envelope, options);
    return { report }; // the receipt is computed where it is read (verify_pool.ts withReceipt)
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    return { error: { name: err.name, message: err.message } };
  }
}

self.onmessage = async (ev: MessageEvent<PoolRequest | { config: ServiceConfig }>) => {
  const m = ev.data;
  if ("config" in m) {
    try {
      options = verifierOptions(m.config);
      answer({ ready: true });
    } catch (e) {
      answer({ failed: (e as Error).message });
    }
    return;
  }
  answer({ ids: m.ids, outcomes: await Promise.all(requestEnvelopes(m).map(outcome)) });
};
