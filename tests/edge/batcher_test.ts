// A batcher (edge/worker/batcher.ts) in Deno: it forwards at `max` appends or after `ageMs`, in
// order, one sequencer call per batch, hands each caller the sequencer's own answer, and when the
// call fails every caller of that batch gets an error outcome (never an answer).
import assert from "node:assert/strict";
import { Batcher } from "../../edge/worker/batcher.ts";
import type { AppendResult } from "../../log/mod.ts";
import type { Outcome } from "../../edge/worker/wire.ts";

const answer = (i: number): Outcome<AppendResult> => ({
  ok: true,
  value: {
    index: i,
    leaf_hash: String(i),
    tree_head: { size: 0, root: "", timestamp: 0, signature: "", signer: "" },
    inclusion_proof: [],
    created: true,
  },
});

Deno.test("batcher: a batch at max appends or at its age, one call each, answers in order", async () => {
  const calls: number[][] = [];
  const b = new Batcher(
    (entries) => {
      calls.push(entries.map((e) => e[0]));
      return Promise.resolve(entries.map((e) => answer(e[0])));
    },
    4,
    30,
  );
  const outs = await Promise.all(
    Array.from({ length: 6 }, (_, k) => b.append(new Uint8Array([k]))),
  );
  assert.deepEqual(calls, [[0, 1, 2, 3], [4, 5]], "full batch at once, the rest after its age");
  outs.forEach((o, k) => assert.equal(o.ok && o.value.index, k));
  assert.equal(b.forwards, 2);
  assert.equal(b.forwarded, 6);
});

Deno.test("batcher: a failed forward answers every caller of the batch with an error", async () => {
  const b = new Batcher(() => Promise.reject(new Error("sequencer lost")), 8, 5);
  const outs = await Promise.all([b.append(new Uint8Array([1])), b.append(new Uint8Array([2]))]);
  for (const o of outs) {
    assert.equal(o.ok, false);
    assert.equal(!o.ok && o.error.code, "sequencer-unavailable");
  }
});
