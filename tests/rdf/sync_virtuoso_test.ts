// Issue 15, sync into an external store, against a real Virtuoso (fixtures/virtuoso.ts): the
// real service over a log of 10,000 receipts (u64 joules above 2^53 and above 2^63 among them),
// `deno task rdf:sync` tailing it from tiles into Virtuoso by Graph Store PUT: every entry graph
// present once; per-tier and per-provenance sums of joules_uj from Virtuoso equal those computed
// from the receipts' JSON; re-sent graphs replace, never double; a second log with the same key
// and a different entry at a synced index makes the sync stop with the alarm, both checkpoints
// kept, nothing else written. JC_TEST_RDF_SYNC_N shrinks the log (default 10,000).
import assert from "node:assert/strict";
import { initLogPin } from "../../log/sqlite/mod.ts";
import { startService } from "../../fixtures/service.ts";
import { joulesOf, seedLog, seedReceipt } from "../../fixtures/rdf_seed.ts";
import { startVirtuoso } from "../../fixtures/virtuoso.ts";
import { answer, COMPARED, expectedSums, rows, runSync, storeSums } from "./_sync_checks.ts";

const N = Number(Deno.env.get("JC_TEST_RDF_SYNC_N") ?? 10_000);

Deno.test(`rdf:sync of ${N} receipts into Virtuoso: verified, exact, replacing, alarmed on a rewrite`, async (t) => {
  const dirA = await Deno.makeTempDir({ prefix: "jc-sync-a-" });
  const dirB = await Deno.makeTempDir({ prefix: "jc-sync-b-" });
  await seedLog(dirA, N);
  const svc = await startService({ DATA_DIR: dirA });
  const v = await startVirtuoso();
  let svcB: Awaited<ReturnType<typeof startService>> | undefined;
  const base = ["--endpoint", v.sparql, "--graph-store", v.gsp, "--once"];
  try {
    await t.step("sync: every entry graph once, entries/s measured", async () => {
      const t0 = performance.now();
      const r = await runSync(["--log", svc.url, ...base]);
      const s = (performance.now() - t0) / 1000;
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout.trim().split("\n").at(-1)!).synced, N);
      console.log(
        `  ${N} entries in ${s.toFixed(1)} s (${Math.round(N / s)} entries/s, CLI start included)`,
      );
      const [g] = await rows(
        v.sparql,
        `SELECT (COUNT(DISTINCT ?g) AS ?graphs) (COUNT(?g) AS ?n) WHERE { GRAPH ?g { ?g jc:logIndex ?i } }`,
      );
      assert.equal(Number(g.graphs), N);
      assert.equal(Number(g.n), N, "an entry graph twice");
      const [r2] = await rows(
        v.sparql,
        `SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?r a jc:Receipt } }`,
      );
      assert.equal(Number(r2.n), N);
      const iri = await rows(
        v.sparql,
        `SELECT ?g WHERE { GRAPH ?g { ?g jc:logIndex 7 } }`,
      );
      assert.deepEqual(iri.map((x) => x.g), [`${svc.url}/v1/log/entries/7`]);
    });

    await t.step(
      "sums per tier and per provenance equal the receipts' JSON, u64 included",
      async () => {
        const exp = expectedSums(N);
        const got = await storeSums(v.sparql);
        assert.deepEqual(got.tier, exp.tier);
        assert.deepEqual(got.prov, exp.prov);
        // How Virtuoso holds the wide ones: above 2^53 as xsd:nonNegativeInteger (64-bit), above
        // 2^63-1 as xsd:decimal (it refuses wider integers), digits intact either way.
        const wide = await rows(
          v.sparql,
          `SELECT ?i ?j (DATATYPE(?j) AS ?dt) WHERE { GRAPH ?g { ?g jc:logIndex ?i ; jc:joulesUj ?j } FILTER(?i IN (5, 6)) } ORDER BY ?i`,
        );
        assert.equal(wide[0].j, String((2n ** 63n / 1000n + 1n + 5n) * 1000n));
        assert.match(wide[0].dt, /#decimal$/);
        assert.equal(wide[1].j, String((2n ** 53n / 1000n + 1n + 6n) * 1000n));
        assert.match(wide[1].dt, /#nonNegativeInteger$/);
        // docs/RDF.md's "per steward per day" example, against the JSON.
        const exp2: Record<string, bigint> = {};
        for (let i = 0; i < N; i++) {
          const r = seedReceipt(i);
          const k = `${r.steward} ${(r.closed_at as string).slice(0, 10)}`;
          exp2[k] = (exp2[k] ?? 0n) + joulesOf(i);
        }
        const got2 = await rows(
          v.sparql,
          `SELECT ?steward ?day (SUM(xsd:decimal(STR(?j))) AS ?uj) WHERE { GRAPH ?g { ?r a jc:Receipt ; jc:steward ?steward ; jc:closedAt ?t ; jc:joulesUj ?j } BIND (SUBSTR(STR(?t), 1, 10) AS ?day) } GROUP BY ?steward ?day`,
        );
        assert.deepEqual(
          Object.fromEntries(got2.map((x) => [`${x.steward} ${x.day}`, x.uj.replace(/\.0*$/, "")])),
          Object.fromEntries(Object.entries(exp2).map(([k, x]) => [k, String(x)])),
        );
      },
    );

    await t.step("re-sending graphs replaces them (progress set back by 300)", async () => {
      const before = await Promise.all(COMPARED.slice(0, 3).map((q) => answer(v.sparql, q)));
      const [st] = await rows(
        v.sparql,
        `SELECT ?s ?cp ?root WHERE { GRAPH ?g { ?s a <https://jouleclaw.transaction.science/vocab/sync#Progress> ; <https://jouleclaw.transaction.science/vocab/sync#checkpoint> ?cp ; <https://jouleclaw.transaction.science/vocab/sync#root> ?root } }`,
      );
      const S = "https://jouleclaw.transaction.science/vocab/sync#";
      const g = st.s.replace(/#.*$/, "");
      const esc = JSON.stringify(st.cp);
      await fetch(v.sparql, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          update:
            `DELETE WHERE { GRAPH <${g}> { ?s ?p ?o } } ; INSERT DATA { GRAPH <${g}> { <${g}#progress-${
              N - 300
            }> a <${S}Progress> ; <${S}entries> ${
              N - 300
            } ; <${S}checkpoint> ${esc} ; <${S}root> "${st.root}" } }`,
        }),
      }).then((r) => r.body?.cancel());
      const r = await runSync(["--log", svc.url, ...base]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout.trim().split("\n").at(-1)!).from, N - 300);
      const after = await Promise.all(COMPARED.slice(0, 3).map((q) => answer(v.sparql, q)));
      assert.deepEqual(after, before);
    });

    await t.step(
      "a log rewriting history: the sync stops with the alarm, writes nothing further",
      async () => {
        // Log B: the same key, the same first half, then other entries (to past N).
        await Deno.copyFile(`${dirA}/log-key.hex`, `${dirB}/log-key.hex`);
        // a key made beforehand: B is a new log under it explicitly, with its own pin
        await initLogPin(`${dirB}/log-key.hex`);
        const half = Math.floor(N / 2);
        await seedLog(dirB, half);
        await seedLog(dirB, N + 10, { from: half, tag: "rewrite-" });
        svcB = await startService({ DATA_DIR: dirB });
        const before = await Promise.all(COMPARED.map((q) => answer(v.sparql, q)));
        const r = await runSync(["--log", svcB.url, "--graph-base", svc.url, ...base]);
        assert.equal(r.code, 3, r.stderr);
        assert.match(r.stderr, /ALARM/);
        const alarm = await rows(
          v.sparql,
          `SELECT ?cp ?other WHERE { GRAPH ?g { ?a a <https://jouleclaw.transaction.science/vocab/sync#Alarm> ; <https://jouleclaw.transaction.science/vocab/sync#checkpoint> ?cp ; <https://jouleclaw.transaction.science/vocab/sync#conflictingCheckpoint> ?other } }`,
        );
        assert.equal(alarm.length, 1);
        assert.equal(alarm[0].cp.split("\n")[1], String(N)); // the synced statement
        assert.equal(alarm[0].other.split("\n")[1], String(N + 10)); // the conflicting one
        // The entry graphs are untouched; the state graph only gained the alarm.
        const after = await Promise.all(COMPARED.map((q) => answer(v.sparql, q)));
        assert.deepEqual(after.slice(0, 3), before.slice(0, 3));
        // And it refuses to run again while the alarm is there, even against the honest log.
        const again = await runSync(["--log", svc.url, ...base]);
        assert.equal(again.code, 3, again.stderr);
      },
    );
  } finally {
    await svcB?.stop();
    await v.stop();
    await svc.stop();
    await Deno.remove(dirA, { recursive: true });
    await Deno.remove(dirB, { recursive: true });
  }
});
