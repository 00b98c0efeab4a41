// Issue 27, "Bodies", on the edge: the Worker shares the app's one body reader (api/http/limits.ts,
// net/readLimited), so under real local workerd an oversize chunked body to POST /v1/validate is
// 413 body-too-large once past body_limit, and an append body that trickles in slower than
// body_min_rate is 408 body-too-slow. (The edge has no connection handling of ours: workerd and
// Cloudflare's front end own the connections, docs/EDGE.md.)
import assert from "node:assert/strict";
import { removeBundle, startWorker } from "../../fixtures/worker.ts";

/** A body of `chunk`-byte pieces, `gapMs` apart, `total` bytes at most; counts what was pulled. */
function slowBody(chunk: number, total: number, gapMs: number) {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(c) {
      if (pulled >= total) return c.close();
      if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      c.enqueue(new Uint8Array(chunk).fill(0x61));
      pulled += chunk;
    },
  });
  return { stream, pulled: () => pulled };
}

Deno.test({
  name: "edge: oversize chunked /v1/validate is 413, a trickled append body is 408 (workerd)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-body-" });
    const rt = await startWorker(state, { JC_BODY_MIN_RATE: "1024" });
    try {
      const big = slowBody(64 * 1024, 64 * 1024 * 1024, 0);
      const res = await fetch(new URL("/v1/validate", rt.url), {
        method: "POST",
        headers: { "content-type": "application/ld+json" },
        body: big.stream,
      });
      const body = await res.json();
      console.log(`validate, chunked: ${res.status} ${body.code} after ${big.pulled()} B pulled`);
      assert.equal(res.status, 413, JSON.stringify(body));
      assert.equal(body.code, "body-too-large");

      const t0 = performance.now();
      const slow = slowBody(1, 60_000, 20);
      const res2 = await fetch(new URL("/v1/log/entries", rt.url), {
        method: "POST",
        headers: { "content-type": "application/cose" },
        body: slow.stream,
      });
      const body2 = await res2.json();
      const ms = Math.round(performance.now() - t0);
      console.log(`append, trickled: ${res2.status} ${body2.code} at ${ms} ms`);
      assert.equal(res2.status, 408, JSON.stringify(body2));
      assert.equal(body2.code, "body-too-slow");
      assert.ok(ms < 8000, `cut at ${ms} ms`);
    } finally {
      await rt.stop();
      await Deno.remove(state, { recursive: true }).catch(() => {});
      await removeBundle();
    }
  },
});
