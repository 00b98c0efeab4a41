// Issue 30: the accounts' documented SPARQL query (docs/ACCOUNTING.md) against a real Virtuoso
// filled by `rdf:sync` (fixtures/virtuoso.ts): streams built by conformance/python/jcaccounts are
// appended to the real service, synced from its tiles, and the query's sums, as written, equal
// the Python replay's (JCP §8.1) and the service's GET /v1/accounts.
import assert from "node:assert/strict";
import { startService } from "../../fixtures/service.ts";
import { startVirtuoso } from "../../fixtures/virtuoso.ts";
import { runSync } from "./_sync_checks.ts";
import { post } from "../e2e/_streams_http.ts";
import {
  compareSums,
  documentedQuery,
  httpAccounts,
  pyBuild,
  pyReplay,
  sparqlRows,
} from "../e2e/_accounts_http.ts";

Deno.test({
  name: "rdf:sync accounts: the documented query in Virtuoso equals the replay and the service",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-accounts-virt-" });
    const svc = await startService({ DATA_DIR: dir, JC_BATCH_AGE_MS: "2" });
    const v = await startVirtuoso();
    try {
      const streams = await pyBuild([11, 12, 13]);
      const logged: { envelope: string; index: number }[] = [];
      for (const s of streams) {
        for (const e of s.send) {
          const r = await post(svc.url, e);
          assert.equal(r.status, 201);
          logged.push({ envelope: e, index: r.body.index as number });
        }
      }
      const sync = await runSync([
        "--log",
        svc.url,
        "--endpoint",
        v.sparql,
        "--graph-store",
        v.gsp,
        "--once",
      ]);
      assert.equal(sync.code, 0, sync.stderr);
      const want = (await pyReplay(logged.map((e) => ({ envelope: e.envelope, ts: 0 })), [[
        null,
        null,
      ]]))[0];
      const r = await fetch(v.sparql, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/sparql-results+json",
        },
        body: new URLSearchParams({ query: await documentedQuery() }),
      });
      const text = await r.text();
      assert.equal(r.status, 200, text.slice(0, 800));
      const got = sparqlRows(JSON.parse(text).results.bindings);
      assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort());
      let sums = 0;
      for (const [k, row] of got) {
        for (const [f, x] of Object.entries(row)) {
          if (f !== "steward" && f !== "grant") {
            assert.equal(x, want.get(k)![f], `${k} ${f}`);
            sums++;
          }
        }
      }
      for (const s of streams) {
        const http = await httpAccounts(svc.url, s.steward, null, null, 100);
        for (const [k, row] of got) {
          if (k.startsWith(`${s.steward} `)) compareSums(http.rows.get(k), row, k);
        }
      }
      console.log(`accounts in Virtuoso: ${got.size} accounts, ${sums} sums equal`);
    } finally {
      await v.stop();
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
