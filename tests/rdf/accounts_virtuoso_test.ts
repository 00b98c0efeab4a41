// Issue 30: the accounts' documented SPARQL query (docs/ACCOUNTING.md) against a real Virtuoso
// filled by `rdf:sync` (fixtures/virtuoso.ts): streams built by conformance/python/jcaccounts are
// appended to the real service, synced from its tiles (each graph with its jc:contentId and
// jc:integratedAt), and the query's sums, as written, over each window, equal the Python replay's
// (JCP §8.1) and the service's GET /v1/accounts, every member the service answers.
import assert from "node:assert/strict";
import { startService } from "../../fixtures/service.ts";
import { startVirtuoso } from "../../fixtures/virtuoso.ts";
import { runSync } from "./_sync_checks.ts";
import { post } from "../e2e/_streams_http.ts";
import {
  compareRdf,
  documentedQuery,
  httpAccounts,
  pyBuild,
  pyReplay,
  sparqlRows,
  type Sums,
  windowedQuery,
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
      // each entry's integration time (the first signed head covering it), and windows over them
      const ts = new Map<number, number>();
      for (const e of logged) {
        const f = await (await fetch(`${svc.url}/v1/log/entries/${e.index}/findings`)).json();
        ts.set(e.index, f.integrated_in.timestamp);
      }
      const times = [...new Set(ts.values())].sort((a, b) => a - b);
      assert.ok(times.length >= 3, `distinct integration times: ${times.length}`);
      const at = (q: number) => times[Math.floor(times.length * q)];
      const windows: [number | null, number | null][] = [
        [null, null],
        [null, at(0.5)],
        [at(0.5), null],
        [at(0.25), at(0.75)],
      ];
      const want = await pyReplay(
        logged.map((e) => ({ envelope: e.envelope, ts: ts.get(e.index)! })),
        windows,
      );
      const doc = await documentedQuery();
      let sums = 0, accounts = 0;
      for (let w = 0; w < windows.length; w++) {
        const served = new Map<string, Sums>();
        for (const s of streams) {
          const http = await httpAccounts(svc.url, s.steward, ...windows[w], 100);
          for (const [k, row] of http.rows) served.set(k, row);
        }
        const r = await fetch(v.sparql, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            accept: "application/sparql-results+json",
          },
          body: new URLSearchParams({ query: windowedQuery(doc, ...windows[w]) }),
        });
        const text = await r.text();
        assert.equal(r.status, 200, text.slice(0, 800));
        const got = sparqlRows(JSON.parse(text).results.bindings);
        sums += compareRdf(`virtuoso window ${w}`, got, served, want[w]);
        accounts += got.size;
      }
      assert.ok(
        [...want[0].values()].some((a) => (a.holds_settled as number) > 0),
        "a settled hold",
      );
      console.log(
        `accounts in Virtuoso: ${windows.length} windows, ${accounts} accounts, ${sums} sums ` +
          "equal to the service's and the replay's",
      );
    } finally {
      await v.stop();
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
