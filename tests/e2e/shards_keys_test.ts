// Key-event chains across a rotation of the log (docs/SHARDS.md "Carried state"; docs/KEYS.md
// "Shards"), over real processes and real files: an identity incepted and rotated in s0, the log
// rotated to s1; there a receipt by the key rotated out in s0 is refused key-rotated-out, the
// next rotation continues the chain, a fork at a seq whose first event lies in s0 is evidence
// naming s0, and all of it holds across a restart. The chain is built by the independent Python
// implementation (conformance/python/jckeys `shards`, from JCP §2.1's text), which also says
// what each step must get. A shard store that lost the state carried into it refuses to start.
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { ROOT, type Service, startService } from "../../fixtures/service.ts";
import { postTo, pyKeys } from "./_keys_http.ts";

const opts = { sanitizeResources: false, sanitizeOps: false };
const TOKEN = "test-admin-token-0123456789";

interface Step {
  name: string;
  hex: string;
  expect: string;
}

async function rotateLog(url: string): Promise<void> {
  const r = await fetch(`${url}/v1/logs/rotate`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(r.status, 200, await r.clone().text());
  await r.body?.cancel();
}

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
  name: "shards keys: a chain from s0 continues in s1; a key rotated out in s0 stays out",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-shards-keys-" });
    const env = { DATA_DIR: dir, JC_ADMIN_TOKEN: TOKEN, JC_BATCH_AGE_MS: "2" };
    let svc: Service | undefined = await startService(env);
    try {
      const doc = await pyKeys(["shards", "7"]) as {
        identity: string;
        keys: string[];
        steps: Step[];
        state: { seq: number; current: string; next_hash: string };
      };
      const at: Record<string, { index: number; shard: string }> = {};
      let shard = "s0";
      for (const s of doc.steps) {
        if (s.name === "receipt-by-rotated-out-key") {
          await rotateLog(svc!.url); // the chain's two events are in s0 from here on
          shard = "s1";
        }
        if (s.name === "receipt-by-retired-0") {
          await svc!.stop(); // the carried state is the new shard's store's, durably
          svc = await startService(env);
        }
        const u = svc!.url;
        // receipts go to the active shard's append route; key events to the service's route
        const path = s.name.startsWith("receipt")
          ? `${shard === "s0" ? "" : `/shards/${shard}`}/v1/log/entries`
          : "/v1/keys/events";
        const { status, body } = await postTo(u, path, s.hex);
        const why = `${s.name}: ${JSON.stringify(body)}`;
        if (s.expect === "logged" || s.expect === "fork") {
          assert.equal(status, 201, why);
          at[s.name] = { index: body.index as number, shard };
        } else {
          assert.equal(status, 422, why);
          assert.equal(body.code, s.expect, why);
        }
        const k = body.key_event as Record<string, unknown> | undefined;
        if (s.name === "receipt-by-current") {
          // judged under rotation-1, an event of s0: the answer names its shard
          assert.deepEqual(k, {
            identity: doc.identity,
            seq: 1,
            index: at["rotation-1"].index,
            shard: "s0",
          }, why);
        }
        if (s.name === "rotation-2" || s.name === "receipt-by-current-2") {
          assert.deepEqual(k, { identity: doc.identity, seq: 2, index: at["rotation-2"].index });
        }
        if (s.name === "fork-at-1") {
          assert.equal(k?.fork_of, at["rotation-1"].index, why);
          assert.equal(k?.fork_of_shard, "s0", why);
          assert.equal(k?.forked_at, body.index, why);
        }
      }
      // the identity as s1 resolves it: the whole chain, each event's shard named
      const got = await (await fetch(`${svc!.url}/v1/keys/${doc.identity}`)).json();
      assert.equal(got.seq, doc.state.seq);
      assert.equal(got.current, doc.state.current);
      assert.equal(got.next_hash, doc.state.next_hash);
      assert.deepEqual(got.events, [
        at.inception.index,
        at["rotation-1"].index,
        at["rotation-2"].index,
      ]);
      assert.deepEqual(got.event_shards, ["s0", "s0", null]);
      assert.deepEqual(got.forks, [{
        seq: 1,
        index: at["fork-at-1"].index,
        first: at["rotation-1"].index,
        first_shard: "s0",
      }]);
      assert.equal(got.forked_at, at["fork-at-1"].index);
      // POST /v1/verify judges under the carried chain too: the key retired in s0 is out
      const retired = doc.steps.find((s) => s.name === "receipt-by-retired-0")!.hex;
      const v = await postTo(svc!.url, "/v1/verify", retired);
      assert.equal(v.body.valid, false, JSON.stringify(v.body));

      // A second rotation of the log carries what s1 holds (its own and s0's) into s2.
      await rotateLog(svc!.url);
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
