// Issue 15, bounded embedded endpoint: the real service over a log of 50,000 receipts. The store
// loads in the background from the first query on; no query waits on loading for more than a
// second (503 sparql-loading + Retry-After with the progress until ready); once loaded every
// answer covers all entries (JC-Tree-Size) and the store's memory (/metrics
// jc_sparql_store_bytes) stays within sparql_max_memory_mb, the process's RSS within the store's
// bound plus the rest of the service; one entry past sparql_max_entries the answer is 507
// sparql-log-too-large, pointing to the sync. JC_TEST_SPARQL_N shrinks the log (default 50,000).
import assert from "node:assert/strict";
import { startService } from "../../fixtures/service.ts";
import { seedEnvelope, seedLog } from "../../fixtures/rdf_seed.ts";

const N = Number(Deno.env.get("JC_TEST_SPARQL_N") ?? 50_000);
const MAX_MEMORY_MB = 1024; // the default sparql_max_memory_mb

async function rssMb(pid: number): Promise<number> {
  const s = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(s)![1]) / 1024;
}

Deno.test(`embedded SPARQL over ${N} entries: background load, bounded memory, 507 past the bound`, async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-sparql-bound-" });
  await seedLog(dir, N);
  const svc = await startService({ DATA_DIR: dir, JC_SPARQL_MAX_ENTRIES: String(N) });
  try {
    const rssBefore = await rssMb(svc.pid);
    const q =
      `SELECT (COUNT(*) AS ?n) WHERE { ?r a <https://jouleclaw.transaction.science/vocab/v1#Receipt> }`;
    const ask = async () => {
      const t0 = performance.now();
      const r = await fetch(`${svc.url}/v1/sparql?query=${encodeURIComponent(q)}`);
      return { r, body: await r.text(), ms: performance.now() - t0 };
    };
    const waits: number[] = [];
    let progress = -1;
    const t0 = performance.now();
    for (;;) {
      const a = await ask();
      if (a.r.status === 200) {
        // The answer's time is the query's own (1.2 M quads to count), not a wait on loading.
        assert.equal(a.r.headers.get("jc-tree-size"), String(N));
        assert.equal(JSON.parse(a.body).results.bindings[0].n.value, String(N));
        break;
      }
      waits.push(a.ms);
      const p = JSON.parse(a.body);
      assert.equal(a.r.status, 503, a.body);
      assert.equal(p.code, "sparql-loading");
      assert.ok(Number(a.r.headers.get("retry-after")) >= 1);
      assert.ok(p.loaded >= progress && p.target === N, a.body);
      progress = p.loaded;
      assert.ok(performance.now() - t0 < 300_000, "never ready");
      await new Promise((r) => setTimeout(r, 200));
    }
    const readyS = (performance.now() - t0) / 1000;
    // No query waits on loading (a 503 is answered at once): under 1 s each, but for the first
    // (it starts the Worker) and rare scheduling stalls of the shared machine (1 in 20).
    const later = [...waits.slice(1)].sort((a, b) => a - b);
    const p95 = later[Math.floor(0.95 * later.length)] ?? 0;
    assert.ok(p95 < 1_000, `waits: ${JSON.stringify(waits.map(Math.round))}`);
    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    const storeBytes = Number(/^jc_sparql_store_bytes(?:\{\})? (\d+)/m.exec(metrics)?.[1]);
    const rss = await rssMb(svc.pid);
    console.log(
      `  ready after ${readyS.toFixed(1)} s; store ${(storeBytes / 2 ** 20).toFixed(0)} MiB ` +
        `(${Math.round(storeBytes / N)} B/entry); RSS ${rssBefore.toFixed(0)} → ${
          rss.toFixed(0)
        } MiB; ` +
        `longest wait ${Math.max(...waits).toFixed(0)} ms over ${waits.length} queries`,
    );
    assert.ok(storeBytes > 0 && storeBytes <= MAX_MEMORY_MB * 2 ** 20, metrics);
    assert.ok(rss <= rssBefore + MAX_MEMORY_MB + 64, `RSS ${rss} MiB`);

    // One entry more than sparql_max_entries: the documented answer.
    const r = await fetch(`${svc.url}/v1/log/entries`, {
      method: "POST",
      headers: { "content-type": "application/cose" },
      body: (await seedEnvelope(N)).slice(),
    });
    assert.equal(r.status, 201, await r.text());
    const past = await ask();
    assert.equal(past.r.status, 507, past.body);
    assert.equal(past.r.headers.get("content-type"), "application/problem+json");
    const p = JSON.parse(past.body);
    assert.equal(p.code, "sparql-log-too-large");
    assert.equal(p.sparql_max_entries, N);
    assert.match(p.detail, /rdf:sync/);
    assert.ok(past.ms < 1_000);
  } finally {
    await svc.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
