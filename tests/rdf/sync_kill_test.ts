// Issue 15: a sync killed anywhere resumes exactly. The sync CLI (one process) is SIGKILLed at 20
// random points of its run into one Virtuoso and restarted each time, then left to finish; a
// second Virtuoso gets the same log in one uninterrupted run, read from a `client mirror`
// directory instead of the service. Their answers (every entry graph's
// index, leaf hash and joules; triples per graph; sums per tier; the whole sync-state graph) are
// byte-equal. JC_TEST_RDF_KILL_N sets the log's length (default 1,000: each restart pays the
// CLI's start-up; the 10,000-entry sync is tests/rdf/sync_virtuoso_test.ts).
import assert from "node:assert/strict";
import { runClient, startService } from "../../fixtures/service.ts";
import { seedLog } from "../../fixtures/rdf_seed.ts";
import { startVirtuoso } from "../../fixtures/virtuoso.ts";
import { answer, COMPARED, rows, runSync, syncCommand } from "./_sync_checks.ts";

const N = Number(Deno.env.get("JC_TEST_RDF_KILL_N") ?? 1_000);
const KILLS = 20;

Deno.test(`rdf:sync SIGKILLed at ${KILLS} random points resumes to the same end state`, async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-sync-kill-" });
  await seedLog(dir, N);
  const svc = await startService({ DATA_DIR: dir });
  const [ref, killed] = await Promise.all([startVirtuoso(), startVirtuoso()]);
  try {
    const args = (v: typeof ref) => [
      "--log",
      svc.url,
      "--endpoint",
      v.sparql,
      "--graph-store",
      v.gsp,
      "--once",
    ];
    // The reference sync reads a mirror directory (`client mirror`), not the service: the same
    // verified entries by another path.
    const mirror = await Deno.makeTempDir({ prefix: "jc-sync-mirror-" });
    const m = await runClient(["mirror", svc.url, mirror]);
    assert.equal(m.code, 0, m.stderr);
    const vkey = (await (await fetch(`${svc.url}/v1/log/key`)).json()).vkeys.blake3;
    const r = await runSync([
      ...args(ref).map((a) => a === svc.url ? mirror : a),
      "--graph-base",
      svc.url,
      "--log-key",
      vkey,
    ]);
    assert.equal(r.code, 0, r.stderr);
    await Deno.remove(mirror, { recursive: true });

    let seed = 20261201;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const synced = async () => {
      const [p] = await rows(
        killed.sparql,
        `SELECT (MAX(?n) AS ?m) WHERE { GRAPH ?g { ?s <https://jouleclaw.transaction.science/vocab/sync#entries> ?n } }`,
      );
      return Number(p?.m ?? 0);
    };
    // 20 random points inside the sync: each run is killed once its progress passes the next one
    // (plus 0–150 ms, so kills also land inside a batch, between a batch and its record, …).
    const targets = Array.from({ length: KILLS }, () => Math.floor(rand() * (N - 32))).sort((
      a,
      b,
    ) => a - b);
    const progress: number[] = [];
    for (const target of targets) {
      const child = syncCommand([...args(killed), "--batch", "16"]).spawn();
      let exited = false;
      const out = child.output().then((o) => (exited = true, o));
      while (!exited && await synced() < target) await new Promise((r) => setTimeout(r, 40));
      await new Promise((r) => setTimeout(r, rand() * 150));
      try {
        child.kill("SIGKILL");
      } catch { /* it finished first */ }
      await out;
      progress.push(await synced());
    }
    console.log(`  synced after each kill: ${progress.join(", ")}`);
    assert.ok(progress.some((p) => p > 0 && p < N), "no kill landed inside the sync");
    const last = await runSync(args(killed));
    assert.equal(last.code, 0, last.stderr);
    for (const q of COMPARED) {
      assert.equal(await answer(killed.sparql, q), await answer(ref.sparql, q), q);
    }
    const [g] = await rows(
      killed.sparql,
      `SELECT (COUNT(DISTINCT ?g) AS ?graphs) (COUNT(?g) AS ?n) WHERE { GRAPH ?g { ?g jc:logIndex ?i } }`,
    );
    assert.equal(Number(g.graphs), N);
    assert.equal(Number(g.n), N);
  } finally {
    await Promise.all([ref.stop(), killed.stop()]);
    await svc.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
