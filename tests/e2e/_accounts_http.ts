// Shared by the accounts tests over real HTTP (issue 30): the independent Python builder and
// replay (conformance/python/jcaccounts, written from JCP §8.1's text), and the service's
// GET /v1/accounts read page by page.
import assert from "node:assert/strict";
import { ROOT } from "../../fixtures/service.ts";

/** One stream as jcaccounts built it. */
export interface PyAccountsStream {
  steward: string;
  grants: Record<string, string>;
  send: string[];
  labels: string[];
  invalid: string;
}

/** An account's sums by name (the API's row and the replay's alike). */
export type Sums = Record<string, number | boolean | string>;

async function py(args: string[], stdin?: string): Promise<unknown> {
  const child = new Deno.Command("/usr/bin/python3", {
    args: ["-m", "jcaccounts", ...args],
    cwd: `${ROOT}conformance/python`,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const out = await child.output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** `python3 -m jcaccounts build SEED...`. */
export async function pyBuild(seeds: number[]): Promise<PyAccountsStream[]> {
  return ((await py(["build", ...seeds.map(String)])) as { streams: PyAccountsStream[] }).streams;
}

/** `python3 -m jcaccounts replay`: the accounts of each window, by `steward grant`. */
export async function pyReplay(
  entries: { envelope: string; ts: number }[],
  windows: [number | null, number | null][],
): Promise<Map<string, Sums>[]> {
  const out = (await py(["replay"], JSON.stringify({ entries, windows }))) as {
    windows: { accounts: (Sums & { steward: string; grant: string })[] }[];
  };
  return out.windows.map((w) => new Map(w.accounts.map((a) => [`${a.steward} ${a.grant}`, a])));
}

/** Every account of `steward` over [from, to), read page by page (`limit` per page). */
export async function httpAccounts(
  url: string,
  steward: string,
  from: number | null,
  to: number | null,
  limit: number,
): Promise<{ rows: Map<string, Sums>; pages: number }> {
  const rows = new Map<string, Sums>();
  let after: string | null = null, pages = 0;
  do {
    const q = new URLSearchParams({ steward, limit: String(limit) });
    if (from !== null) q.set("from", String(from));
    if (to !== null) q.set("to", String(to));
    if (after !== null) q.set("after", after);
    const r = await fetch(`${url}/v1/accounts?${q}`);
    const body = await r.json();
    assert.equal(r.status, 200, JSON.stringify(body));
    assert.equal(r.headers.get("cache-control"), "no-cache");
    for (const a of body.accounts) rows.set(`${steward} ${a.grant}`, a);
    after = body.next;
    pages++;
  } while (after !== null);
  return { rows, pages };
}

/** The sums both sides name (the replay's members), compared; the number of figures compared. */
export function compareSums(got: Sums | undefined, want: Sums, what: string): number {
  assert.ok(got, `${what}: the service has no such account`);
  let n = 0;
  for (const [k, v] of Object.entries(want)) {
    if (k === "steward" || k === "grant") continue;
    assert.equal(got[k], v, `${what}: ${k}`);
    n++;
  }
  return n;
}

/** The documented accounts query (the first ```sparql block of docs/ACCOUNTING.md), as written. */
export async function documentedQuery(): Promise<string> {
  const doc = await Deno.readTextFile(`${ROOT}docs/ACCOUNTING.md`);
  const m = doc.match(/```sparql\n([\s\S]*?)```/);
  assert.ok(m, "docs/ACCOUNTING.md has a sparql block");
  return m[1];
}

/**
 * The documented query over the window [from, to) (ms; null: open): its `VALUES` line set, the
 * rest as written.
 */
export function windowedQuery(q: string, from: number | null, to: number | null): string {
  const line = /VALUES \(\?from \?to\) \{ \(0 9007199254740991\) \}/;
  assert.match(q, line, "the documented query has its window line");
  return q.replace(line, `VALUES (?from ?to) { (${from ?? 0} ${to ?? 9007199254740991}) }`);
}

/** SPARQL JSON bindings as accounts by `steward grant` (numbers as numbers, booleans). */
export function sparqlRows(
  bindings: Record<string, { value: string; datatype?: string }>[],
): Map<string, Sums> {
  const out = new Map<string, Sums>();
  for (const b of bindings) {
    const row: Sums = {};
    for (const [k, v] of Object.entries(b)) {
      row[k] = k === "steward" || k === "grant"
        ? v.value
        : v.datatype?.endsWith("#boolean")
        ? v.value === "true" || v.value === "1"
        : Number(v.value);
    }
    out.set(`${b.steward.value} ${b.grant.value}`, row);
  }
  return out;
}

/** A query against /v1/sparql once its store has loaded `size` entries. */
export async function sparqlAccounts(
  url: string,
  size: number,
  q: string,
): Promise<Map<string, Sums>> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await fetch(`${url}/v1/sparql`, {
      method: "POST",
      headers: {
        "content-type": "application/sparql-query",
        accept: "application/sparql-results+json",
      },
      body: q,
    });
    const loaded = Number(r.headers.get("jc-tree-size") ?? -1);
    if ((r.status === 503 || (r.status === 200 && loaded < size)) && Date.now() < deadline) {
      await r.body?.cancel();
      await new Promise((res) => setTimeout(res, 200));
      continue;
    }
    const body = await r.json();
    assert.equal(r.status, 200, JSON.stringify(body));
    assert.equal(loaded, size, "the store covers the whole log");
    return sparqlRows(body.results.bindings);
  }
}

/**
 * The SPARQL accounts of a window against the service's and the replay's: the same accounts, each
 * member the service answers (but `saturated`: SPARQL's integers do not saturate) computed and
 * equal, and equal to the replay's where it has the member. The number of figures compared.
 */
export function compareRdf(
  what: string,
  rows: Map<string, Sums>,
  served: Map<string, Sums>,
  py: Map<string, Sums>,
): number {
  assert.deepEqual([...rows.keys()].sort(), [...py.keys()].sort(), `${what}: the accounts`);
  assert.deepEqual([...rows.keys()].sort(), [...served.keys()].sort(), `${what}: the accounts`);
  let n = 0;
  for (const [k, row] of rows) {
    const svc = served.get(k)!;
    for (const f of Object.keys(svc)) {
      if (f === "grant" || f === "saturated") continue;
      assert.ok(f in row, `${what} ${k}: the query computes ${f}`);
      // Virtuoso answers a boolean as an integer, 1 or 0
      const v = typeof svc[f] === "boolean" && typeof row[f] === "number" ? row[f] !== 0 : row[f];
      assert.equal(v, svc[f], `${what} ${k} ${f} (the service)`);
      if (py.get(k)![f] !== undefined) {
        assert.equal(v, py.get(k)![f], `${what} ${k} ${f} (the replay)`);
      }
      n++;
    }
  }
  return n;
}
