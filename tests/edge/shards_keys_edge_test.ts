// Key-event chains across a rotation of the log at the edge (docs/SHARDS.md "Carried state";
// docs/KEYS.md "Shards"), in real local workerd with a local R2 bucket: the same Python-built
// scenario as the Deno service (tests/e2e/_keys_shards.ts). The frozen shard's object reads its
// key state (final once frozen) and hands it to the next shard's object, which writes it in one
// transaction of its SQLite before the directory lists it; a restart keeps it.
import { removeBundle, startWorker } from "../../fixtures/worker.ts";
import type { EdgeRuntime } from "../../edge/mod.ts";
import { exerciseKeysAcrossShards, rotateLog } from "../e2e/_keys_shards.ts";

const ADMIN = "edge-admin-token-for-tests";

Deno.test({
  name: "edge: a key chain from s0 continues in s1; a key rotated out in s0 stays out",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-shards-keys-" });
    const vars = { JC_ADMIN_TOKEN: ADMIN, JC_EDGE_BATCHERS: "2" };
    let rt: EdgeRuntime = await startWorker(state, vars);
    const url = () => rt.url.href.replace(/\/$/, "");
    try {
      await exerciseKeysAcrossShards({
        url,
        rotate: () => rotateLog(url(), ADMIN),
        restart: async () => {
          await rt.stop();
          rt = await startWorker(state, vars);
        },
      });
    } finally {
      await rt.stop();
      await removeBundle();
      await Deno.remove(state, { recursive: true });
    }
  },
});
