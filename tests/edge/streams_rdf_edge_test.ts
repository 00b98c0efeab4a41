// Stream findings as RDF at the edge (issue 24; docs/RDF.md "Stream findings"), in real local
// workerd: streams built by the independent Python implementation (conformance/python/jcstreams),
// appended through the front Worker; GET /v1/streams and an entry's findings answer JSON-LD,
// N-Quads and Turtle by content negotiation (406 otherwise; never cached; Vary: Accept), each
// finding a jc:StreamFinding naming its entries by URL, exactly as the Deno service answers
// (tests/e2e/streams_rdf_test.ts); a gap's finding names the link that cleared it.
import assert from "node:assert/strict";
import { removeBundle, startWorker } from "../../fixtures/worker.ts";
import { post, pyStream } from "../e2e/_streams_http.ts";

const JC = "https://jouleclaw.transaction.science/vocab/v1#";

Deno.test({
  name: "edge: stream findings as JSON-LD, N-Quads and Turtle in workerd",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-streams-rdf-" });
    const rt = await startWorker(state, {});
    const u = rt.url.href.replace(/\/$/, "");
    const entry = (i: unknown) => `${u}/v1/log/entries/${i}`;
    try {
      // a fork
      const fork = await pyStream("fork", 22);
      const fa = [];
      for (const e of fork.send) fa.push(await post(u, e));
      for (const r of fa) assert.equal(r.status, 201, JSON.stringify(r.body));
      const forked = fa[3].body.index as number;
      const q = `${u}/v1/streams?steward=${encodeURIComponent(fork.steward)}`;
      const json = await (await fetch(q)).json();
      assert.equal(json.streams[0].findings[0].code, "stream-fork", "JSON is the default");

      const ttl = await fetch(q, { headers: { accept: "text/turtle" } });
      const t = await ttl.text();
      assert.equal(ttl.status, 200, t);
      assert.match(ttl.headers.get("content-type")!, /^text\/turtle/);
      assert.equal(ttl.headers.get("cache-control"), "no-cache");
      assert.match(ttl.headers.get("vary") ?? "", /Accept/);
      assert.match(t, /StreamFinding/);
      assert.match(t, /"stream-fork"/);

      const ldr = await fetch(q, { headers: { accept: "application/ld+json" } });
      const ld = await ldr.json();
      assert.equal(ldr.status, 200, JSON.stringify(ld));
      assert.equal(ld["@graph"].length, 1);
      assert.equal(ld["@graph"][0].about, entry(forked));
      assert.equal(ld["@graph"][0].other, entry(fa[1].body.index));

      const nq = await fetch(`${entry(forked)}/findings`, {
        headers: { accept: "application/n-quads" },
      });
      const nqt = await nq.text();
      assert.equal(nq.status, 200, nqt);
      assert.equal(nq.headers.get("cache-control"), "no-cache");
      assert.ok(nqt.includes(`<${JC}aboutEntry> <${entry(forked)}>`), nqt);
      assert.ok(nqt.includes(`<${JC}otherEntry> <${entry(fa[1].body.index)}>`), nqt);

      const refused = await fetch(q, { headers: { accept: "image/png" } });
      assert.equal(refused.status, 406);
      assert.equal((await refused.json()).code, "not-acceptable");

      // a gap, cleared by the link that arrives later: the finding names it
      const gap = await pyStream("gap", 21);
      const idx: number[] = [];
      for (const k of gap.order!.slice(0, 3)) {
        idx[k] = (await post(u, gap.send[k])).body.index as number;
      }
      const last = await post(u, gap.send[2]);
      const g = await fetch(`${entry(last.body.index)}/findings`, {
        headers: { accept: "application/n-quads" },
      });
      const gt = await g.text();
      assert.equal(g.status, 200, gt);
      assert.ok(gt.includes(`"stream-gap"`), gt);
      assert.ok(gt.includes(`<${JC}aboutEntry> <${entry(idx[3])}>`), gt);
      assert.ok(gt.includes(`<${JC}clearedBy> <${entry(last.body.index)}>`), gt);
    } finally {
      await rt.stop();
      await removeBundle();
      await Deno.remove(state, { recursive: true });
    }
  },
});
