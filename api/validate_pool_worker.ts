// One worker of api/validate_pool.ts: JouleClaw SPEC §15 validation (vocab/validate.ts: JSON or
// JSON-LD → RDF → SHACL → report) of one document per job, with the node limit it was started
// with. The time limit is the main thread's: a job past it ends this Worker.
/// <reference lib="deno.worker" />
import { validateDocument } from "../vocab/mod.ts";
import { serveJobs } from "./off_loop_worker.ts";

let maxNodes = Infinity;

serveJobs((config) => {
  maxNodes = (config as { maxNodes: number }).maxNodes;
}, async (msg) => {
  const m = msg as { text: string; cls?: string };
  return { value: await validateDocument(m.text, { cls: m.cls, maxNodes }) };
});
