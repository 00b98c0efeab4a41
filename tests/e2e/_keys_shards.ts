// Key-event chains across a rotation of the log (docs/SHARDS.md "Carried state"; docs/KEYS.md
// "Shards"), shared by the Deno service's test (tests/e2e/shards_keys_test.ts) and the edge's
// (tests/edge/shards_keys_edge_test.ts): an identity incepted and rotated in s0, the log rotated
// to s1; there a receipt by the key rotated out in s0 is refused key-rotated-out, the next
// rotation continues the chain, a fork at a seq whose first event lies in s0 is evidence naming
// s0, across a restart. The chain is built by the independent Python implementation
// (conformance/python/jckeys `shards`, from JCP §2.1's text), which says what each step must get.
import assert from "node:assert/strict";
import { postTo, pyKeys } from "./_keys_http.ts";

interface Step {
  name: string;
  hex: string;
  expect: string;
}

/** The deployment under test: its root URL now, a rotation of the log, a restart. */
export interface ShardedKeysTarget {
  url(): string;
  rotate(): Promise<void>;
  restart(): Promise<void>;
}

/** The Python scenario. */
export function shardsScenario() {
  return pyKeys(["shards", "7"]) as Promise<{
    identity: string;
    keys: string[];
    steps: Step[];
    state: { seq: number; current: string; next_hash: string };
  }>;
}

/** Rotates the log by command (`POST /v1/logs/rotate` with the admin token). */
export async function rotateLog(url: string, token: string): Promise<void> {
  const r = await fetch(`${url}/v1/logs/rotate`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(r.status, 200, await r.clone().text());
  await r.body?.cancel();
}

/** The scenario over `t`: rotates the log once (to s1) and restarts once. */
export async function exerciseKeysAcrossShards(t: ShardedKeysTarget): Promise<void> {
  const doc = await shardsScenario();
  const at: Record<string, { index: number; shard: string }> = {};
  let shard = "s0";
  for (const s of doc.steps) {
    if (s.name === "receipt-by-rotated-out-key") {
      await t.rotate(); // the chain's two events are in s0 from here on
      shard = "s1";
    }
    if (s.name === "receipt-by-retired-0") await t.restart(); // the carried state is durable
    // receipts go to the active shard's append route; key events to the service's route
    const path = s.name.startsWith("receipt")
      ? `${shard === "s0" ? "" : `/shards/${shard}`}/v1/log/entries`
      : "/v1/keys/events";
    const { status, body } = await postTo(t.url(), path, s.hex);
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
      const want = { identity: doc.identity, seq: 1, index: at["rotation-1"].index, shard: "s0" };
      assert.deepEqual(k, want, why);
    }
    if (s.name === "rotation-2" || s.name === "receipt-by-current-2") {
      assert.deepEqual(k, { identity: doc.identity, seq: 2, index: at["rotation-2"].index }, why);
    }
    if (s.name === "fork-at-1") {
      assert.equal(k?.fork_of, at["rotation-1"].index, why);
      assert.equal(k?.fork_of_shard, "s0", why);
      assert.equal(k?.forked_at, body.index, why);
    }
  }
  // the identity as s1 resolves it: the whole chain, each event's shard named
  const got = await (await fetch(`${t.url()}/v1/keys/${doc.identity}`)).json();
  assert.equal(got.seq, doc.state.seq);
  assert.equal(got.current, doc.state.current);
  assert.equal(got.next_hash, doc.state.next_hash);
  const chain = [at.inception.index, at["rotation-1"].index, at["rotation-2"].index];
  assert.deepEqual(got.events, chain);
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
  const v = await postTo(t.url(), "/v1/verify", retired);
  assert.equal(v.body.valid, false, JSON.stringify(v.body));
}
