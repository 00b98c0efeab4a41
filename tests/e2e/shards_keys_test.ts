// Key-event chains across rotations of the log (docs/SHARDS.md "Carried state"; docs/KEYS.md
// "Shards") over real processes and real files: the shared scenario (tests/e2e/_keys_shards.ts:
// a chain from s0 continued in s1, a key rotated out in s0 refused there, a fork naming s0, a
// restart), then a second rotation carries s1's state (its own and s0's) into s2, and a shard
// store that lost the state carried into it refuses to start (`shard-carry-missing`).
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { ROOT, type Service, startService } from "../../fixtures/service.ts";
import { postTo } from "./_keys_http.ts";
import { exerciseKeysAcrossShards, rotateLog, shardsScenario } from "./_keys_shards.ts";

const opts = { sanitizeResources: false, sanitizeOps: false };
const TOKEN = "test-admin-token-0123456789";

/** Starts the service expecting a refusal: its stderr. */
async function refused(env: Record<string, string>): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "start"],
    cwd: ROOT,
    env: { PORT: "0", HOST: "127.0.0.1", NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const err = new Response(child.stderr).text();
  const first = await child.stdout.getReader().read();
  if (!first.done) {
    const line = new TextDecoder().decode(first.value);
    Deno.kill(JSON.parse(line.split("\n")[0]).pid, "SIGKILL");
    await child.status;
    throw new Error(`the service started instead of refusing: ${line}`);
  }
  assert.notEqual((await child.status).code, 0);
  return await err;
}

Deno.test({
  ...opts,
  name: "shards keys: a chain from s0 continues in s1 and s2; a key rotated out stays out",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-shards-keys-" });
    const env = { DATA_DIR: dir, JC_ADMIN_TOKEN: TOKEN, JC_BATCH_AGE_MS: "2" };
    let svc: Service | undefined = await startService(env);
    try {
      await exerciseKeysAcrossShards({
        url: () => svc!.url,
        rotate: () => rotateLog(svc!.url, TOKEN),
        restart: async () => {
          await svc!.stop();
          svc = await startService(env);
        },
      });
      const doc = await shardsScenario();
      // A second rotation of the log carries what s1 holds (its own and s0's) into s2.
      await rotateLog(svc!.url, TOKEN);
      const again = doc.steps.find((s) => s.name === "receipt-by-retired-1")!;
      const r2 = await postTo(svc!.url, "/shards/s2/v1/log/entries", again.hex);
      assert.equal(r2.status, 422, JSON.stringify(r2.body));
      assert.equal(r2.body.code, "key-rotated-out");
      const in2 = await (await fetch(`${svc!.url}/v1/keys/${doc.identity}`)).json();
      assert.deepEqual(in2.event_shards, ["s0", "s0", "s1"]);
      assert.equal(in2.forked_shard, "s1");
      const frozen = doc.steps.find((s) => s.name === "rotation-3-after-fork")!;
      const r3 = await postTo(svc!.url, "/v1/keys/events", frozen.hex);
      assert.equal(r3.body.code, "key-event-fork", JSON.stringify(r3.body));
      await svc!.stop();
      svc = undefined;

      // s2's store loses the carried state (its rows and mark deleted, as in a store rolled back
      // to before the carry): the directory state pins it, the start is refused
      const db = new DatabaseSync(`${dir}/shards/s2/log.sqlite`);
      db.exec(
        "DELETE FROM key_events; DELETE FROM key_heads; DELETE FROM key_forks;" +
          " DELETE FROM meta WHERE k = 'keys_carried'",
      );
      db.close();
      const err = await refused({ DATA_DIR: dir, JC_ADMIN_TOKEN: TOKEN });
      assert.ok(err.includes("[shard-carry-missing]"), err);
    } finally {
      await svc?.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
