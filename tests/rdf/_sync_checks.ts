// Shared pieces of the Virtuoso sync tests: the CLI as a subprocess, SELECTs against a store,
// the expected sums from the receipts' JSON (exact, bigint), and the answers compared byte for
// byte between stores.
import { ROOT } from "../../fixtures/service.ts";
import { joulesOf, seedReceipt } from "../../fixtures/rdf_seed.ts";

export const JC = "https://jouleclaw.transaction.science/vocab/v1#";
const P = `PREFIX jc: <${JC}> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>`;

/** `deno run rdfsync/cli.ts …` (one process, so SIGKILL ends the sync itself). */
export function syncCommand(args: string[]): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-check", "rdfsync/cli.ts", ...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  });
}

/** Runs the sync CLI to its end. */
export async function runSync(args: string[]) {
  const r = await syncCommand(args).output();
  const dec = new TextDecoder();
  return { code: r.code, stdout: dec.decode(r.stdout), stderr: dec.decode(r.stderr) };
}

/** The raw answer of a SELECT (SPARQL JSON results), as bytes of text. */
export async function answer(endpoint: string, q: string): Promise<string> {
  const r = await fetch(endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/sparql-results+json",
    },
    body: new URLSearchParams({ query: `${P} ${q}` }),
  });
  const t = await r.text();
  if (!r.ok) throw new Error(`query failed ${r.status}: ${t.slice(0, 500)}`);
  return t;
}

/** A SELECT's rows, variable → value. */
export async function rows(endpoint: string, q: string): Promise<Record<string, string>[]> {
  const doc = JSON.parse(await answer(endpoint, q));
  return doc.results.bindings.map((b: Record<string, { value: string }>) =>
    Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.value]))
  );
}

const TIER_IRI: Record<string, string> = {
  L0: "Cache",
  L1: "Lawful",
  L2: "Embed",
  L3: "Model",
  L4: "Wire",
};

/** Expected exact sums of joules_uj per tier IRI and per provenance IRI over receipts [0, n). */
export function expectedSums(n: number) {
  const tier: Record<string, string> = {};
  const prov: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const r = seedReceipt(i);
    const j = joulesOf(i);
    const t = JC + TIER_IRI[r.tier as string];
    const p = JC + (r.energy_provenance as string);
    tier[t] = String(BigInt(tier[t] ?? 0) + j);
    prov[p] = String(BigInt(prov[p] ?? 0) + j);
  }
  return { tier, prov };
}

/** Sums per tier and per provenance from the store (exact: through xsd:decimal). */
export async function storeSums(endpoint: string) {
  const out: Record<string, Record<string, string>> = {};
  for (const [name, prop] of [["tier", "tier"], ["prov", "energyProvenance"]]) {
    const rs = await rows(
      endpoint,
      `SELECT ?k (SUM(xsd:decimal(STR(?j))) AS ?total) WHERE { GRAPH ?g { ?r a jc:Receipt ; jc:${prop} ?k ; jc:joulesUj ?j } } GROUP BY ?k`,
    );
    out[name] = Object.fromEntries(rs.map((r) => [r.k, r.total.replace(/\.0*$/, "")]));
  }
  return out as { tier: Record<string, string>; prov: Record<string, string> };
}

/**
 * Queries whose answers two stores holding the same sync must give byte for byte. The triples
 * per graph leave out jc:integratedAt: a sync from the service carries it, one from a mirror
 * directory cannot (docs/RDF.md "Named-graph layout").
 */
export const COMPARED = [
  `SELECT ?g ?i ?h ?j WHERE { GRAPH ?g { ?g jc:logIndex ?i ; jc:leafHash ?h . ?g jc:joulesUj ?j } } ORDER BY ?i`,
  `SELECT ?g (COUNT(*) AS ?triples) WHERE { GRAPH ?g { ?s ?p ?o FILTER(?p != jc:integratedAt) } FILTER(STRSTARTS(STR(?g), "http")) } GROUP BY ?g ORDER BY ?g`,
  `SELECT ?k (SUM(xsd:decimal(STR(?j))) AS ?total) WHERE { GRAPH ?g { ?r a jc:Receipt ; jc:tier ?k ; jc:joulesUj ?j } } GROUP BY ?k ORDER BY ?k`,
  `SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "urn:jouleclaw:rdf-sync:")) } ORDER BY ?s ?p ?o`,
];
