// Streams at the edge (issue 24), in real local workerd: the same Python-built scenarios as the
// Deno service (tests/e2e/_streams_scenarios.ts): appends go front Worker → batchers → the
// sequencer object, whose SQLite runs the stream checks in the round's own transaction (the one
// SQL store's); the reads (GET /v1/streams, the search, the content lookup, an entry's
// integration and findings) are asked of the sequencer. JC_STREAMS_EDGE_N changes the long
// stream's length (default 10^4).
import { removeBundle, startWorker } from "../../fixtures/worker.ts";
import { exerciseStreams } from "../e2e/_streams_scenarios.ts";

const N = Number(Deno.env.get("JC_STREAMS_EDGE_N") ?? 10_000);

Deno.test({
  name: "edge: Python-built streams (gap, fork, wrong prev, reused id, 10^4 links) in workerd",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-streams-" });
    const rt = await startWorker(state, { JC_EDGE_BATCHERS: "4" });
    try {
      await exerciseStreams(rt.url.href.replace(/\/$/, ""), N, 250);
    } finally {
      await rt.stop();
      await removeBundle();
      await Deno.remove(state, { recursive: true });
    }
  },
});
