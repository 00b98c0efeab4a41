// Issue 15, the RDF sync as a background job of the service (config `rdf_sync`, api/services/rdf_sync_job.ts)
// against a real Virtuoso (fixtures/virtuoso.ts): the real service started with JC_RDF_SYNC_*,
// receipts appended over HTTP while it runs, the store ends with every entry graph exactly once
// and the sync-state graph at the log's size, and /healthz and /metrics report the job. Also
// `rdf:sync --policy`: a policy whose quorum the log's checkpoints cannot meet (a witness that
// never cosigned) makes the sync refuse the checkpoint (exit 5, as the client's) and write nothing;
// the job then runs under a policy the log meets (`quorum none`), and stops on an alarm recorded in
// the store. Without a store: a failed round is counted, reported and retried.
import assert from "node:assert/strict";
import { cosignatureVkey } from "../../log/c2sp/note.ts";
import { resolveConfig } from "../../api/services/config.ts";
import { Metrics } from "../../api/http/metrics.ts";
import { RdfSyncJob } from "../../api/services/rdf_sync_job.ts";
import { startService } from "../../fixtures/service.ts";
import { seedEnvelope, seedLog } from "../../fixtures/rdf_seed.ts";
import { startVirtuoso } from "../../fixtures/virtuoso.ts";
import { rows, runSync } from "./_sync_checks.ts";

const SEEDED = 20;
const APPENDED = 10;
const S = "https://jouleclaw.transaction.science/vocab/sync#";

/** Entry graphs (distinct, and counted with repeats) and sync-state sizes in the store. */
async function storeState(sparql: string) {
  const [g] = await rows(
    sparql,
    `SELECT (COUNT(DISTINCT ?g) AS ?graphs) (COUNT(?g) AS ?n) WHERE { GRAPH ?g { ?g jc:logIndex ?i } }`,
  );
  const progress = await rows(
    sparql,
    `SELECT ?size WHERE { GRAPH ?s { ?p a <${S}Progress> ; <${S}entries> ?size } }`,
  );
  return {
    graphs: Number(g.graphs),
    n: Number(g.n),
    progress: progress.map((r) => Number(r.size)),
  };
}

async function health(url: string) {
  const r = await fetch(`${url}/healthz`);
  assert.equal(r.status, 200);
  return await r.json();
}

Deno.test("config rdf_sync: the object, the flat env form, and what is refused", () => {
  const file = resolveConfig({}, {
    rdf_sync: { endpoint: "http://s.example/sparql", graph_store: "http://s.example/g" },
  });
  assert.deepEqual(file.rdfSync, {
    endpoint: "http://s.example/sparql",
    graphStore: "http://s.example/g",
    intervalS: 10,
  });
  const env = resolveConfig({
    JC_RDF_SYNC_ENDPOINT: "http://s.example/sparql",
    JC_RDF_SYNC_INTERVAL_S: "3",
    JC_RDF_SYNC_POLICY: "policy.txt",
    JC_RDF_SYNC_LOG: "https://log.example",
  });
  assert.deepEqual(env.rdfSync, {
    endpoint: "http://s.example/sparql",
    intervalS: 3,
    policyFile: "policy.txt",
    log: "https://log.example",
  });
  assert.equal(resolveConfig({}).rdfSync, undefined);
  assert.throws(() => resolveConfig({}, { rdf_sync: {} }), /rdf_sync.endpoint is required/);
  assert.throws(() => resolveConfig({ JC_RDF_SYNC_INTERVAL_S: "5" }), /endpoint is required/);
  assert.throws(
    () => resolveConfig({}, { rdf_sync: { endpoint: "ftp://x" } }),
    /rdf_sync.endpoint must be an http\(s\) URL/,
  );
  assert.throws(
    () => resolveConfig({}, { rdf_sync: { endpoint: "http://x", intervl_s: 1 } }),
    /rdf_sync.intervl_s is unknown/,
  );
  assert.throws(
    () => resolveConfig({ JC_RDF_SYNC_ENDPOINT: "http://x", JC_RDF_SYNC_INTERVAL_S: "0" }),
    /rdf_sync_interval_s must be an integer in \[1, 86400\]/,
  );
});

Deno.test("rdf_sync job: a failed round is counted and reported, the job keeps running; stop", async () => {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closed = `http://127.0.0.1:${(l.addr as Deno.NetAddr).port}`;
  l.close(); // nothing listens there: every round fails to reach the log
  const metrics = new Metrics();
  const lines: string[] = [];
  const job = new RdfSyncJob({
    setting: { endpoint: `${closed}/sparql`, intervalS: 1 },
    selfUrl: closed,
    metrics,
    log: (line) => lines.push(line),
  });
  await job.round();
  await job.round();
  const s = job.status();
  assert.equal(s.state, "running");
  assert.equal(s.failures, 2);
  assert.equal(s.rounds, 2);
  assert.ok(s.last_error && s.last_error.length > 0);
  assert.match(metrics.render(), /^jc_rdf_sync_failures_total 2$/m);
  assert.equal(lines.length, 2);
  assert.match(lines[1], /^rdf sync: round failed \(2x\)/);
  await job.stop();
  assert.equal(job.status().state, "stopped");
});

Deno.test("rdf_sync job of the service into Virtuoso; --policy below quorum writes nothing", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "jc-sync-job-" });
  const tmp = await Deno.makeTempDir({ prefix: "jc-sync-policy-" });
  await seedLog(dir, SEEDED);
  const v = await startVirtuoso();
  try {
    await t.step(
      "rdf:sync --policy: a quorum not met refuses the checkpoint (exit 5)",
      async () => {
        const svc0 = await startService({ DATA_DIR: dir });
        try {
          const keys = await (await fetch(`${svc0.url}/v1/log/key`)).json();
          const witness = cosignatureVkey("w1.example", new Uint8Array(32).fill(77));
          const policy = `${tmp}/policy.txt`;
          await Deno.writeTextFile(
            policy,
            `log ${keys.vkeys.sha256}\nwitness W1 ${witness}\nquorum W1\n`,
          );
          const args = ["--log", svc0.url, "--endpoint", v.sparql, "--graph-store", v.gsp];
          const r = await runSync([...args, "--policy", policy, "--once"]);
          assert.equal(r.code, 5, r.stderr);
          assert.match(r.stderr, /quorum/);
          assert.deepEqual(await storeState(v.sparql), { graphs: 0, n: 0, progress: [] });
          // The same log under a policy that needs no witness: what the job below is given.
          await Deno.writeTextFile(`${tmp}/open.txt`, `log ${keys.vkeys.sha256}\nquorum none\n`);
        } finally {
          await svc0.stop();
        }
      },
    );

    await t.step(
      "the service's job: appended receipts reach the store once each; an alarm stops it",
      async () => {
        const svc = await startService({
          DATA_DIR: dir,
          JC_RDF_SYNC_ENDPOINT: v.sparql,
          JC_RDF_SYNC_GRAPH_STORE: v.gsp,
          JC_RDF_SYNC_INTERVAL_S: "1",
          JC_RDF_SYNC_POLICY: `${tmp}/open.txt`,
        });
        try {
          for (let i = SEEDED; i < SEEDED + APPENDED; i++) {
            const r = await fetch(`${svc.url}/v1/log/entries`, {
              method: "POST",
              headers: { "content-type": "application/cose", accept: "application/json" },
              body: (await seedEnvelope(i)).slice(),
            });
            const text = await r.text();
            assert.equal(r.status, 201, text);
          }
          const total = SEEDED + APPENDED;
          const t0 = Date.now();
          let h = await health(svc.url);
          while (h.rdf_sync?.synced_size !== total) {
            assert.ok(Date.now() - t0 < 60_000, `not synced in 60 s: ${JSON.stringify(h)}`);
            await new Promise((r) => setTimeout(r, 250));
            h = await health(svc.url);
          }
          assert.equal(h.tree_size, total);
          assert.equal(h.rdf_sync.state, "running");
          assert.equal(h.rdf_sync.failures, 0);
          assert.equal(h.rdf_sync.endpoint, v.sparql);
          assert.equal(h.rdf_sync.log, svc.url);
          assert.deepEqual(await storeState(v.sparql), {
            graphs: total,
            n: total,
            progress: [total],
          });
          // The graph IRIs are this service's entry URLs.
          const iri = await rows(v.sparql, `SELECT ?g WHERE { GRAPH ?g { ?g jc:logIndex 25 } }`);
          assert.deepEqual(iri.map((x) => x.g), [`${svc.url}/v1/log/entries/25`]);
          const metrics = await (await fetch(`${svc.url}/metrics`)).text();
          assert.match(metrics, new RegExp(`^jc_rdf_sync_synced_size ${total}$`, "m"));
          assert.match(metrics, /^jc_rdf_sync_alarm 0$/m);

          // An alarm recorded in the store stops the job: /healthz and the metric say so, and the
          // entry appended after it is not written.
          const [state] = await rows(
            v.sparql,
            `SELECT ?s WHERE { GRAPH ?s { ?p a <${S}Progress> } }`,
          );
          const up = await fetch(v.sparql, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({
              update: `INSERT DATA { GRAPH <${state.s}> { <${state.s}#alarm> a <${S}Alarm> ; ` +
                `<${S}reason> "test: another root at a synced size" } }`,
            }),
          });
          assert.ok(up.ok, await up.text());
          const r = await fetch(`${svc.url}/v1/log/entries`, {
            method: "POST",
            headers: { "content-type": "application/cose", accept: "application/json" },
            body: (await seedEnvelope(total)).slice(),
          });
          assert.equal(r.status, 201, await r.text());
          const t1 = Date.now();
          while ((h = await health(svc.url)).rdf_sync.state !== "alarm") {
            assert.ok(Date.now() - t1 < 30_000, `no alarm in 30 s: ${JSON.stringify(h)}`);
            await new Promise((r) => setTimeout(r, 250));
          }
          assert.match(h.rdf_sync.alarm, /another root at a synced size/);
          assert.equal(h.rdf_sync.synced_size, total);
          const m2 = await (await fetch(`${svc.url}/metrics`)).text();
          assert.match(m2, /^jc_rdf_sync_alarm 1$/m);
          assert.match(svc.stderr(), /rdf sync: ALARM, the job stops/);
          assert.deepEqual(await storeState(v.sparql), {
            graphs: total,
            n: total,
            progress: [total],
          });
        } finally {
          const st = await svc.stop();
          assert.equal(st.code, 0, svc.stderr());
          assert.match(svc.stderr(), /Shut down cleanly/);
        }
      },
    );
  } finally {
    await v.stop();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(tmp, { recursive: true });
  }
});
