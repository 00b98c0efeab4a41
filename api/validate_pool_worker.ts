// One worker of api/validate_pool.ts: JouleClaw SPEC §15 validation (vocab/validate.ts: JSON or
// JSON-LD → RDF → SHACL → report) of one document per job, with the node limit it was started
// with. The time limit is the main thread's: a job past it ends this Worker. An init or a job of
// another shape is refused with a stable code (api/worker_message.ts).
/// <reference lib="deno.worker" />
import { CONTEXT_URL, validateDocument } from "../vocab/mod.ts";
import { serveJobs } from "./off_loop_worker.ts";
import { isRecord, UnexpectedMessageError } from "./worker_message.ts";

let maxNodes = Infinity;

/**
 * Two small documents, one per path (a plain document by its class; JSON-LD under the context),
 * validated at init: the shapes, the context and the JIT are ready before the Worker says so.
 * Why: a job's time limit must not pay for a fresh Worker's first-use costs (about as long as the
 * Worker's start, 200-330 ms on a quiet machine, several times that under load): with
 * `validate_timeout_ms` below them, each replacement Worker's first job was ended in turn and
 * the service never validated again. A job waiting for a starting Worker only waits (its limit
 * drops it from the queue, never ends the Worker).
 */
const WARM_UP: [string, string | undefined][] = [
  [JSON.stringify({ size: 1 }), "TreeHead"],
  [
    JSON.stringify({ "@context": CONTEXT_URL, "@id": "_:w", "@type": "Receipt", tier: "L9" }),
    undefined,
  ],
];

serveJobs(async (config) => {
  if (!isRecord(config) || typeof config.maxNodes !== "number" || !(config.maxNodes > 0)) {
    throw new UnexpectedMessageError(config, "an init of {maxNodes > 0}");
  }
  maxNodes = config.maxNodes;
  for (const [text, cls] of WARM_UP) await validateDocument(text, { cls, maxNodes });
}, async (msg) => {
  if (
    !isRecord(msg) || typeof msg.text !== "string" ||
    (msg.cls !== undefined && typeof msg.cls !== "string")
  ) {
    throw new UnexpectedMessageError(msg, "a job of {text, cls?} (strings)");
  }
  return { value: await validateDocument(msg.text, { cls: msg.cls, maxNodes }) };
});
