// The stream findings as RDF and in the monitor (issue 24; docs/RDF.md "Stream findings",
// docs/CLIENTS.md "Stream forks"), over the real service with streams built by the independent
// Python implementation (conformance/python/jcstreams): GET /v1/streams and an entry's findings
// by content negotiation (JSON-LD, N-Quads, Turtle; 406 otherwise; never cached), the findings in
// the SPARQL store (a gap seen open, then cleared by the link that arrives later), and
// `client monitor --watch-steward` alarming (exit 3) once on a fork, quiet on the next poll.
import assert from "node:assert/strict";
import { runClient, startService } from "../../fixtures/service.ts";
import { post, pyStream } from "./_streams_http.ts";

const JC = "https://jouleclaw.transaction.science/vocab/v1#";

/** A SELECT's bindings of `v`, once the store has loaded (503 sparql-loading: retried). */
async function select(u: string, q: string, v: string): Promise<string[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await fetch(`${u}/v1/sparql?query=${encodeURIComponent(`PREFIX jc: <${JC}> ${q}`)}`, {
      headers: { accept: "application/sparql-results+json" },
    });
    if (r.status === 503 && Date.now() < deadline) {
      await r.body?.cancel();
      await new Promise((res) => setTimeout(res, 100));
      continue;
    }
    const body = await r.json();
    assert.equal(r.status, 200, JSON.stringify(body));
    return (body.results.bindings as Record<string, { value: string }>[]).map((b) => b[v]?.value)
      .filter((x) => x !== undefined).sort();
  }
}

/** Polls a SELECT until it answers `want` (the store loads a new batch in the background). */
async function eventually(u: string, q: string, v: string, want: string[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  let got: string[] = [];
  while (Date.now() < deadline) {
    got = await select(u, q, v);
    if (JSON.stringify(got) === JSON.stringify(want)) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.deepEqual(got, want, q);
}

Deno.test({
  name: "e2e streams rdf: findings as RDF, in SPARQL (a gap clears), and the monitor's fork alarm",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-streams-rdf-" });
    const svc = await startService({ DATA_DIR: dir, JC_BATCH_AGE_MS: "2" });
    const u = svc.url;
    const entry = (i: unknown) => `${u}/v1/log/entries/${i}`;
    try {
      // a gap, open: the third link withheld
      const gap = await pyStream("gap", 21);
      const idx: number[] = [];
      for (const k of gap.order!.slice(0, 3)) {
        const r = await post(u, gap.send[k]);
        assert.equal(r.status, 201);
        idx[k] = r.body.index as number;
      }
      const GAPS = `SELECT ?e ?c WHERE { ?f a jc:StreamFinding ; jc:findingCode "stream-gap" ; ` +
        `jc:aboutEntry ?e . OPTIONAL { ?f jc:clearedBy ?c } }`;
      await eventually(u, GAPS, "e", [entry(idx[3])]);
      assert.deepEqual(await select(u, GAPS, "c"), [], "open: not cleared yet");
      // the missing link arrives: the finding's graph in the store is replaced
      const last = await post(u, gap.send[2]);
      await eventually(u, GAPS, "c", [entry(last.body.index)]);
      assert.deepEqual(await select(u, GAPS, "e"), [entry(idx[3])], "one finding, not two");

      // a fork, watched by the monitor: exit 3 once, then 0
      const fork = await pyStream("fork", 22);
      const state = `${dir}/monitor.json`;
      const watch = ["--watch-steward", fork.steward, "--watch-steward", gap.steward];
      const before = await runClient(["monitor", u, "--once", "--state", state, ...watch]);
      assert.equal(before.code, 0, before.stderr);
      const fa = [];
      for (const e of fork.send) fa.push(await post(u, e));
      const forked = fa[3].body.index as number;
      const alarm = await runClient(["monitor", u, "--once", "--state", state, ...watch]);
      assert.equal(alarm.code, 3, alarm.stdout + alarm.stderr);
      assert.match(alarm.stderr, /ALARM: .*1 new stream fork/);
      const line = JSON.parse(alarm.stdout.trim().split("\n").at(-1)!);
      assert.equal(line.code, "stream-fork");
      assert.deepEqual(line.forks.map((f: { index: number }) => f.index), [forked]);
      assert.equal(line.forks[0].other, fa[1].body.index);
      const quiet = await runClient(["monitor", u, "--once", "--state", state, ...watch]);
      assert.equal(quiet.code, 0, quiet.stdout + quiet.stderr);
      const bad = await runClient([
        "monitor",
        u,
        "--once",
        "--state",
        state,
        "--watch-steward",
        "x",
      ]);
      assert.equal(bad.code, 2, "a --watch-steward that is no DID is a usage error");

      // the RDF views, content-negotiated and never cached
      const q = `${u}/v1/streams?steward=${encodeURIComponent(fork.steward)}`;
      const ttl = await fetch(q, { headers: { accept: "text/turtle" } });
      assert.equal(ttl.status, 200);
      assert.match(ttl.headers.get("content-type")!, /^text\/turtle/);
      assert.equal(ttl.headers.get("cache-control"), "no-cache");
      assert.match(ttl.headers.get("vary")!, /Accept/);
      const t = await ttl.text();
      assert.match(t, /StreamFinding/);
      assert.match(t, /"stream-fork"/);
      const ld = await (await fetch(q, { headers: { accept: "application/ld+json" } })).json();
      assert.equal(ld["@graph"].length, 1);
      assert.equal(ld["@graph"][0].about, entry(forked));
      assert.equal(ld["@graph"][0].other, entry(fa[1].body.index));
      const nq = await fetch(`${entry(forked)}/findings`, {
        headers: { accept: "application/n-quads" },
      });
      assert.equal(nq.status, 200);
      assert.equal(nq.headers.get("cache-control"), "no-cache");
      assert.ok(
        (await nq.text()).includes(`<${JC}aboutEntry> <${entry(forked)}>`),
        "the finding names its entry by URL",
      );
      const json = await (await fetch(q)).json();
      assert.equal(json.streams[0].findings[0].code, "stream-fork", "JSON stays the default");
      const refused = await fetch(q, { headers: { accept: "image/png" } });
      assert.equal(refused.status, 406);
      assert.equal((await refused.json()).code, "not-acceptable");

      // the brief's query: the entries a fork is about
      await eventually(
        u,
        `SELECT ?e WHERE { ?f a jc:StreamFinding ; jc:findingCode "stream-fork" ; jc:aboutEntry ?e }`,
        "e",
        [entry(forked)],
      );
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
