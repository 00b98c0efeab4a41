import { startWorker, postEntry, removeBundle } from "../_worker.ts";
import { validEnvelope } from "../../api/_fixtures.ts";
const state = await Deno.makeTempDir({ prefix: "jc-explore-" });
const rt = await startWorker(state);
for (let k = 0; k < 3; k++) console.log((await postEntry(rt.url, validEnvelope(5000 + k))).status);
await rt.stop();
await removeBundle();
console.log(state);
