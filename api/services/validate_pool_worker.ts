// One worker of api/services/validate_pool.ts: JouleClaw SPEC §15 validation (vocab/validate.ts: JSON or
// JSON-LD → RDF → SHACL → report) of one document per job, with the node limit it was started
// with. The time limit is the main thread's: a job past it ends this Worker. An init or a job of
// another shape is refused with a stable code (api/services/worker_message.ts).
/// <reference lib="deno.worker" />
import { validateDocument, warmUpValidation } from "../../vocab/mod.ts";
import { serveJobs } from "./off_loop_worker.ts";
import { isRecord, UnexpectedMessageError } from "./worker_message.ts";

let maxNodes = Infinity;

serveJobs(async (config) => {
  if (!isRecord(config) || typeof config.maxNodes !== "number" || !(config.maxNodes > 0)) {
    throw new UnexpectedMessageError(config, "an init of {maxNodes > 0}");
  }
  maxNodes = config.maxNodes;
  await warmUpValidation(maxNodes); // vocab/validate.ts: why, and why the labels do not move
}, async (msg) => {
  if (
    !isRecord(msg) || typeof msg.text !== "string" ||
    (msg.cls !== undefined && typeof msg.cls !== "string")
  ) {
    throw new UnexpectedMessageError(msg, "a job of {text, cls?} (strings)");
  }
  return { value: await validateDocument(msg.text, { cls: msg.cls, maxNodes }) };
});
