// Meter readings at the edge (issue 16's chain heads over issue 12's R2 design), in real local
// workerd: POST /v1/readings goes front Worker → a batcher → the sequencer with each reading's
// agent link, so the chain head moves in the reading's own commit (R2PublishedStorage hands the
// batch, links included, to the object's SQLite); GET /v1/agents/{did} reads it from the
// sequencer. Checked: heads after each reading, a replayed reading answered with its index and
// the head unmoved, a gap refused, and the head — with its span end and calibrations (issue 26),
// so an overlapping span is refused — surviving a restart of the runtime.
import assert from "node:assert/strict";
import { readingAgent } from "../_readings.ts";
import { removeBundle, startWorker } from "../../fixtures/worker.ts";
import {
  blake3,
  decodeCbor,
  envelopeContentId,
  meterReading,
  parseCoseSign1,
  toHex,
} from "../../verify/mod.ts";

const { did: AGENT, reading } = readingAgent(new Uint8Array(32).fill(13));

async function post(base: URL, envelopes: Uint8Array[]) {
  const res = await fetch(new URL("/v1/readings", base), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ envelopes: envelopes.map(toHex) }),
  });
  assert.equal(res.status, 200);
  return (await res.json()).results;
}

async function agent(base: URL) {
  const res = await fetch(new URL(`/v1/agents/${encodeURIComponent(AGENT)}`, base));
  assert.equal(res.status, 200);
  return await res.json();
}

Deno.test({
  name: "edge: readings through batchers move the agent's chain head in their commit",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-readings-" });
    const vars = { JC_AGENTS: `${AGENT}=edge-meter`, JC_EDGE_BATCHERS: "4" };
    let rt = await startWorker(state, vars);
    try {
      assert.equal((await agent(rt.url)).last_seq, null, "no reading yet");
      const sent: Uint8Array[] = [];
      let prev = meterReading.GENESIS_PREV;
      for (let seq = 0; seq < 3; seq++) {
        const r = reading(seq, prev);
        sent.push(r);
        assert.deepEqual(await post(rt.url, [r]), [{ seq, index: seq, verdict: "valid" }]);
        const a = await agent(rt.url);
        assert.equal(a.last_seq, seq);
        assert.equal(a.last_index, seq);
        assert.equal(a.prev, toHex(blake3(r)));
        prev = a.prev;
      }
      // A replayed reading: its index again, nothing appended, the head unmoved.
      assert.deepEqual(await post(rt.url, [sent[1]]), [{ seq: 1, index: 1, verdict: "valid" }]);
      // A gap is refused, nothing appended.
      const gap = await post(rt.url, [reading(5, prev)]);
      assert.equal(gap[0].code, "reading-seq-gap");
      assert.equal((await agent(rt.url)).last_seq, 2);
      const stats = await (await fetch(new URL("/__edge/stats", rt.url))).json();
      const forwarded = stats.batchers.reduce(
        (n: number, b: { forwarded: number }) => n + b.forwarded,
        0,
      );
      assert.equal(forwarded, 3, "the three new readings went through the batchers");

      await rt.stop();
      rt = await startWorker(state, vars);
      const a = await agent(rt.url);
      assert.equal(a.last_seq, 2, "the head survives a restart");
      assert.equal(a.prev, toHex(blake3(sent[2])));
      // issue 26: the span end and the calibration, kept by the object's store with the head
      const core = decodeCbor(parseCoseSign1(sent[2]).payload) as Map<string, unknown>;
      assert.equal(a.last_end, core.get("end"), "the last span's end survives a restart");
      assert.equal(a.calibrations.gpu.reading, toHex(envelopeContentId(sent[2])!));
      const overlap = await post(rt.url, [reading(3, a.prev, 2)]);
      assert.equal(overlap[0].code, "reading-overlap", "a span over the last one is refused");
      assert.deepEqual(await post(rt.url, [reading(3, a.prev)]), [{
        seq: 3,
        index: 3,
        verdict: "valid",
      }]);
      assert.equal((await agent(rt.url)).last_index, 3);
    } finally {
      await rt.stop();
      await removeBundle();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});
