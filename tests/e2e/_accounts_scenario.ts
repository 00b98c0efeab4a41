// The accounts scenario over real HTTP (issue 30), shared by the Deno service's test
// (tests/e2e/accounts_python_test.ts) and the edge's (tests/edge/accounts_edge_test.ts): streams
// built by conformance/python/jcaccounts (each case of JCP §8.1's reading), sent interleaved and
// out of order; the Python replay, written from §8.1's text, over the log's entries in log order
// with each entry's integration time, gives every (steward, grant) account over several windows,
// and GET /v1/accounts (paged) answers the same sums; the documented SPARQL query gives them from
// the N-Quads export (and from /v1/sparql where the deployment has a store); bad parameters are
// 400 with their codes; an invalid receipt is refused and counted nowhere.
import assert from "node:assert/strict";
import { Store } from "oxigraph";
import { runClient } from "../../fixtures/service.ts";
import { post } from "./_streams_http.ts";
import {
  compareRdf,
  compareSums,
  documentedQuery,
  httpAccounts,
  pyBuild,
  pyReplay,
  sparqlAccounts,
  sparqlRows,
  type Sums,
  windowedQuery,
} from "./_accounts_http.ts";

/** What a run compared. */
export interface AccountsFigures {
  streams: number;
  receipts: number;
  windows: number;
  accounts: number;
  sums: number;
  rdfSums: number;
}

/** Runs the scenario against the service at `u`; `sparql`: it has /v1/sparql; `client`: run the CLI. */
export async function exerciseAccounts(
  u: string,
  seeds: number[],
  o: { sparql: boolean; client: boolean },
): Promise<AccountsFigures> {
  const streams = await pyBuild(seeds);
  const logged: { envelope: string; index: number }[] = [];
  // interleaved: one envelope of each stream in turn, each stream in its shuffled order
  const most = Math.max(...streams.map((s) => s.send.length));
  for (let k = 0; k < most; k++) {
    for (const s of streams) {
      if (k >= s.send.length) continue;
      const r = await post(u, s.send[k]);
      assert.equal(r.status, 201, `${s.labels[k]}: ${JSON.stringify(r.body)}`);
      logged.push({ envelope: s.send[k], index: r.body.index as number });
    }
  }
  // the invalid receipt (a deny without deny_reason) is refused: counted nowhere
  for (const s of streams) {
    const r = await post(u, s.invalid);
    assert.equal(r.status, 422);
  }
  // each entry's integration time: the first signed head covering it
  const ts = new Map<number, number>();
  for (const e of logged) {
    const r = await (await fetch(`${u}/v1/log/entries/${e.index}/findings`)).json();
    ts.set(e.index, r.integrated_in.timestamp);
  }
  logged.sort((a, b) => a.index - b.index);
  const times = [...new Set(ts.values())].sort((a, b) => a - b);
  assert.ok(times.length >= 4, `distinct integration times: ${times.length}`);
  const at = (q: number) => times[Math.floor(times.length * q)];
  const windows: [number | null, number | null][] = [
    [null, null],
    [null, at(0.5)],
    [at(0.5), null],
    [at(0.25), at(0.75)],
    [at(0.1), at(0.2)],
  ];
  const want = await pyReplay(
    logged.map((e) => ({ envelope: e.envelope, ts: ts.get(e.index)! })),
    windows,
  );
  let sums = 0, accounts = 0, pages = 0;
  const served: Map<string, Sums>[] = windows.map(() => new Map());
  for (let w = 0; w < windows.length; w++) {
    for (const s of streams) {
      const [from, to] = windows[w];
      const got = await httpAccounts(u, s.steward, from, to, 2);
      for (const [k, v] of got.rows) served[w].set(k, v);
      pages += got.pages;
      const mine = [...want[w].entries()].filter(([k]) => k.startsWith(`${s.steward} `));
      assert.deepEqual(
        [...got.rows.keys()].sort(),
        mine.map(([k]) => k).sort(),
        `window ${w}: the same accounts`,
      );
      for (const [k, v] of mine) {
        sums += compareSums(got.rows.get(k), v, `window ${w} ${k}`);
        accounts++;
      }
    }
  }
  // the cases happened: a hold never settled, firings, a Partial total, a capped chain
  const all = [...want[0].values()];
  assert.ok(all.some((a) => (a.outstanding_uj as number) > 0), "an unsettled hold");
  assert.ok(all.some((a) => (a.holds_settled as number) > 0), "a settled hold");
  assert.ok(all.some((a) => (a.minted_uj as number) > 0), "a firing");
  assert.ok(all.some((a) => a.partial_total === true), "a Partial total");
  assert.ok(pages > accounts / 2, "paged");

  // the documented SPARQL query over every window: the N-Quads export loaded into a fresh store,
  // and /v1/sparql's store where the deployment has one
  const head = await (await fetch(`${u}/v1/log/tree-head`)).json();
  const nq = await (await fetch(`${u}/v1/log/export?start=0&end=${head.size}`)).text();
  const store = new Store();
  store.load(nq, { format: "application/n-quads" });
  const doc = await documentedQuery();
  let rdfSums = 0;
  for (let w = 0; w < windows.length; w++) {
    const q = windowedQuery(doc, ...windows[w]);
    const res = store.query(q, {
      use_default_graph_as_union: true,
      results_format: "application/sparql-results+json",
    }) as string;
    const views: [string, Map<string, Sums>][] = [
      ["export", sparqlRows(JSON.parse(res).results.bindings)],
    ];
    if (o.sparql) views.push(["sparql", await sparqlAccounts(u, head.size, q)]);
    for (const [name, rows] of views) {
      rdfSums += compareRdf(`${name} window ${w}`, rows, served[w], want[w]);
    }
  }
  assert.ok(head.size >= logged.length);

  // one grant, and the 400s
  const s0 = streams[0];
  const one = await (await fetch(
    `${u}/v1/accounts?steward=${encodeURIComponent(s0.steward)}&grant=${s0.grants.single}`,
  )).json();
  assert.equal(one.accounts.length, 1);
  assert.equal(one.next, null);
  compareSums(one.accounts[0], want[0].get(`${s0.steward} ${s0.grants.single}`)!, "one");
  const bad = async (q: string, code: string, parameter: string) => {
    const r = await fetch(`${u}/v1/accounts?${q}`);
    const b = await r.json();
    assert.equal(r.status, 400, q);
    assert.equal(b.code, code, q);
    assert.equal(b.parameter, parameter, q);
  };
  const st = `steward=${encodeURIComponent(s0.steward)}`;
  await bad(`${st}&colour=red`, "unknown-query-parameter", "colour");
  await bad("steward=nobody", "bad-parameter", "steward");
  await bad("grant=" + "0".repeat(64), "bad-parameter", "steward");
  await bad(`${st}&grant=ABC`, "bad-parameter", "grant");
  await bad(`${st}&from=yesterday`, "bad-window", "from");
  await bad(`${st}&to=1e9`, "bad-window", "to");
  await bad(`${st}&from=200&to=100`, "bad-window", "from");
  await bad(`${st}&from=100&to=100`, "bad-window", "from");
  await bad(`${st}&limit=0`, "bad-parameter", "limit");
  // the client prints every page as one object
  if (o.client) {
    const cli = await runClient(["accounts", s0.steward, "--url", u, "--from", String(at(0.25))]);
    assert.equal(cli.code, 0, cli.stderr);
    const printed = JSON.parse(cli.stdout);
    const paged = await httpAccounts(u, s0.steward, at(0.25), null, 2);
    assert.deepEqual(
      new Map(printed.accounts.map((a: Sums) => [`${s0.steward} ${a.grant}`, a])),
      paged.rows,
    );
    assert.equal(printed.from, at(0.25));
  }
  // RFC 3339 bounds read as the same instant as milliseconds
  const iso = new Date(at(0.5)).toISOString();
  const a = await (await fetch(`${u}/v1/accounts?${st}&from=${iso}`)).json();
  const b = await (await fetch(`${u}/v1/accounts?${st}&from=${at(0.5)}`)).json();
  assert.deepEqual(a.accounts, b.accounts);
  return {
    streams: streams.length,
    receipts: logged.length,
    windows: windows.length,
    accounts,
    sums,
    rdfSums,
  };
}
