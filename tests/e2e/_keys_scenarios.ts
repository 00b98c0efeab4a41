// The key-event scenarios over real HTTP (issue 25; docs/KEYS.md), shared by the Deno service's
// tests (tests/e2e/keys_python_test.ts) and the edge's (tests/edge/keys_edge_test.ts): a
// Python-built lifecycle with every refusal, a fork and §2.1's thief; a rotation under load.
import assert from "node:assert/strict";
import { postTo, pyKeys, replayMatches } from "./_keys_http.ts";

interface Step {
  name: string;
  hex: string;
  expect: string;
}

/** The lifecycle of conformance/python/jckeys, step by step, then the log replayed. */
export async function exerciseKeyLifecycle(u: string): Promise<void> {
  const doc = await pyKeys(["lifecycle", "3"]) as {
    identity: string;
    keys: string[];
    steps: Step[];
    state: { seq: number; current: string; next_hash: string };
  };
  const at: Record<string, number> = {};
  for (const s of doc.steps) {
    const route = s.name.startsWith("receipt") ? "/v1/log/entries" : "/v1/keys/events";
    const { status, body } = await postTo(u, route, s.hex);
    const why = `${s.name}: ${JSON.stringify(body)}`;
    if (s.expect === "logged" || s.expect === "fork") {
      assert.equal(status, 201, why);
      at[s.name] = body.index as number;
    } else if (s.expect === "200") assert.equal(status, 200, why);
    else {
      assert.equal(status, 422, why);
      assert.equal(body.code, s.expect, why);
    }
    if (s.expect === "fork") {
      const k = body.key_event as Record<string, number>;
      assert.equal(k.fork_of, at["rotation-2"], why);
      assert.equal(k.forked_at, body.index, why);
    }
  }
  // the report names the key event a receipt was judged under
  const under = await postTo(u, "/v1/log/entries", doc.steps.at(-1)!.hex); // again: 200
  assert.equal(under.status, 200);
  const id = doc.identity;
  const got = await (await fetch(`${u}/v1/keys/${id}`)).json();
  assert.equal(got.seq, 2);
  assert.equal(got.current, doc.keys[2]);
  assert.equal(got.current, doc.state.current);
  assert.equal(got.next_hash, doc.state.next_hash);
  assert.deepEqual(got.events, [at.inception, at["rotation-1"], at["rotation-2"]]);
  assert.deepEqual(got.forks, [{ seq: 2, index: at["fork-at-2"], first: at["rotation-2"] }]);
  assert.equal(got.forked_at, at["fork-at-2"]);
  // a receipt logged under the chain names the event: the current one at its append
  const r4 = doc.steps.find((s) => s.name === "receipt-by-new-current")!;
  const rr = await (await fetch(`${u}/v1/log/entries/${at["receipt-by-new-current"]}`)).json();
  assert.ok(rr, r4.name);
  // bad input: a malformed DID 400, an unknown identity 404, a receipt is no key event 422
  assert.equal(
    (await (await fetch(`${u}/v1/keys/did:key:zNOPE`)).json()).code,
    "bad-parameter",
  );
  const unknown = await fetch(`${u}/v1/keys/${doc.keys[5]}`);
  assert.equal(unknown.status, 404);
  await unknown.body?.cancel();
  const notEvent = await postTo(u, "/v1/keys/events", doc.steps[0].hex);
  assert.equal(notEvent.status, 422);
  assert.equal(notEvent.body.code, "not-a-key-event");
  const wrongType = await fetch(`${u}/v1/keys/events`, {
    method: "POST",
    headers: { "content-type": "text/plain" },
    body: "x",
  });
  assert.equal(wrongType.status, 415);
  await wrongType.body?.cancel();
  // POST /v1/verify judges a receipt under the identity's current key too
  const verdict = async (name: string) => {
    const hex = doc.steps.find((s) => s.name === name)!.hex;
    const r = await postTo(u, "/v1/verify", hex);
    assert.equal(r.status, 200);
    return [r.body.valid, (r.body.steps as { code?: string }[])[2].code];
  };
  assert.deepEqual(await verdict("receipt-under-forked-identity"), [true, undefined]);
  assert.deepEqual(await verdict("receipt-by-rotated-out-key"), [false, "key-rotated-out"]);
  assert.deepEqual(await verdict("receipt-by-next-key-too-early"), [false, "key-rotated-out"]);
  await replayMatches(u, [id]);
}

/**
 * n receipts by the old key and n by the new raced against the rotation between them: no old-key
 * receipt is logged after the rotation, no new-key one before it.
 */
export async function exerciseRotationUnderLoad(u: string, n: number): Promise<void> {
  const d = await pyKeys(["load", "7", String(n)]) as {
    identity: string;
    inception: string;
    rotation: string;
    old: string[];
    new: string[];
  };
  assert.equal((await postTo(u, "/v1/keys/events", d.inception)).status, 201);
  // old-key and new-key receipts interleaved, 32 in flight, the rotation sent in the middle
  const jobs: { kind: "old" | "new" | "rot"; hex: string }[] = [];
  for (let j = 0; j < n; j++) {
    jobs.push({ kind: "old", hex: d.old[j] }, { kind: "new", hex: d.new[j] });
    if (j === n / 2) jobs.push({ kind: "rot", hex: d.rotation });
  }
  const results: { kind: string; status: number; body: Record<string, unknown> }[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      const path = job.kind === "rot" ? "/v1/keys/events" : "/v1/log/entries";
      results.push({ kind: job.kind, ...(await postTo(u, path, job.hex)) });
    }
  }));
  const rot = results.find((r) => r.kind === "rot")!;
  assert.equal(rot.status, 201, JSON.stringify(rot.body));
  const R = rot.body.index as number;
  let oldLogged = 0, newLogged = 0;
  for (const r of results) {
    if (r.kind === "rot") continue;
    if (r.status === 201) {
      const k = r.body.key_event as { seq: number; index: number };
      if (r.kind === "old") {
        oldLogged++;
        assert.ok((r.body.index as number) < R, "an old-key receipt logged after the rotation");
        assert.equal(k.seq, 0);
      } else {
        newLogged++;
        assert.ok((r.body.index as number) > R, "a new-key receipt logged before the rotation");
        assert.deepEqual([k.seq, k.index], [1, R]);
      }
    } else {
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "key-rotated-out");
    }
  }
  console.log(
    `rotation at ${R}: ${oldLogged} old-key and ${newLogged} new-key receipts logged`,
  );
  assert.ok(oldLogged > 0 && newLogged > 0, "the rotation landed at an edge of the load");
  await replayMatches(u, [d.identity]);
}
