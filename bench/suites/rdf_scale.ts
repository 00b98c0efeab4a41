// RDF at scale (issue 15): entries synced per second into a real Virtuoso (rdfsync, Graph Store
// PUT and batched updates, from the real service's tiles); the embedded endpoint's memory per entry
// and time to ready at BENCH_RDF_SCALE_N entries (default 10^5); SPARQL SUM per tier over as many
// receipts in the embedded store and in Virtuoso (bulk-loaded from the export's N-Quads by its
// own loader). Beside them, the machine's limits measured in the same run: JSON.parse/s of a
// receipt and raw WebCrypto Ed25519 verifies/s (bench/suites/_limits.ts). BENCH_RDF_SYNC_N sets the
// synced log's length (default 2,000). Short mode (bench/suites/_short.ts): a twentieth of both.
import { rawWebCryptoVerifiesPerSecond } from "./_limits.ts";
import { count, ms } from "./_short.ts";
import { resolveConfig } from "../../api/services/config.ts";
import { EmbeddedSparql } from "../../api/services/sparql_worker.ts";
import type { Log } from "../../log/mod.ts";
import { entryInputFromEnvelope, entryNQuads } from "../../vocab/mod.ts";
import { SparqlHttp, syncOnce } from "../../rdfsync/mod.ts";
import { TileClient } from "../../client/tiles.ts";
import { startService } from "../../fixtures/service.ts";
import { seedEnvelope, seedLog, seedReceipt } from "../../fixtures/rdf_seed.ts";
import { startVirtuoso } from "../../fixtures/virtuoso.ts";

const N = Number(Deno.env.get("BENCH_RDF_SCALE_N") ?? count(100_000));
const SYNC_N = Number(Deno.env.get("BENCH_RDF_SYNC_N") ?? count(2_000));
const SUM = `PREFIX jc: <https://jouleclaw.transaction.science/vocab/v1#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
SELECT ?tier (SUM(xsd:decimal(STR(?j))) AS ?total)
WHERE { GRAPH ?g { ?r a jc:Receipt ; jc:tier ?tier ; jc:joulesUj ?j } } GROUP BY ?tier`;

async function median3(f: () => Promise<unknown>): Promise<number> {
  await f();
  const t: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await f();
    t.push(performance.now() - t0);
  }
  return Math.round(t.sort((a, b) => a - b)[1]);
}

export default async (): Promise<Record<string, unknown>> => {
  const text = JSON.stringify(seedReceipt(7), (_k, v) => typeof v === "bigint" ? String(v) : v);
  let parses = 0;
  const p0 = performance.now();
  while (performance.now() - p0 < ms(1000)) JSON.parse(text), parses++;
  const limits = {
    json_parse_per_s: Math.round(parses / ((performance.now() - p0) / 1000)),
    webcrypto_ed25519_verifies_per_s: await rawWebCryptoVerifiesPerSecond(1000),
  };

  // Distinct signed envelopes, cycled: the embedded store and the bulk load see N entries.
  const envs: Uint8Array[] = [];
  for (let i = 0; i < 4096; i++) envs.push(await seedEnvelope(i));
  const fakeLog = {
    latestHead: () => Promise.resolve({ size: N }),
    entry: (i: number) => Promise.resolve(envs[i % envs.length]),
  } as unknown as Log;

  // Embedded endpoint at N.
  const config = resolveConfig({
    JC_SPARQL_MAX_ENTRIES: String(N),
    JC_SPARQL_MAX_MEMORY_MB: "3000",
    JC_SPARQL_TIMEOUT_MS: "120000",
  });
  const emb = new EmbeddedSparql(
    () => Promise.resolve([{ log: fakeLog, origin: "http://127.0.0.1:8080" }]),
    config,
  );
  const e0 = performance.now();
  const st = await emb.caughtUp();
  const readyMs = performance.now() - e0;
  const embSumMs = await median3(() => emb.query(SUM, "application/sparql-results+json"));
  emb.close();

  // Virtuoso: the sync's rate (both ways), then SUM over N bulk-loaded receipts.
  const dir = await Deno.makeTempDir({ prefix: "jc-bench-sync-" });
  await seedLog(dir, SYNC_N);
  const svc = await startService({ DATA_DIR: dir });
  const vkey = (await (await fetch(`${svc.url}/v1/log/key`)).json()).vkeys.blake3 as string;
  const sync: Record<string, unknown> = {};
  for (const mode of ["gsp", "update"] as const) {
    const v = await startVirtuoso();
    try {
      const store = new SparqlHttp({
        endpoint: v.sparql,
        graphStore: mode === "gsp" ? v.gsp : undefined,
      });
      const r = await syncOnce({
        client: new TileClient(svc.url, vkey),
        store,
        graphBase: svc.url,
      });
      sync[`${mode}_entries_per_s`] = Math.round(r.graphs / (r.ms / 1000));
      sync[`${mode}_requests`] = store.requests;
    } finally {
      await v.stop();
    }
  }
  await svc.stop();
  await Deno.remove(dir, { recursive: true });

  const v = await startVirtuoso();
  let virtuoso: Record<string, unknown>;
  const nqDir = await Deno.makeTempDir({ prefix: "jc-bench-nq-", dir: "/tmp" });
  try {
    const f = await Deno.open(`${nqDir}/jc.nq`, { write: true, create: true });
    const enc = new TextEncoder();
    for (let i = 0; i < N; i += 1000) {
      let chunk = "";
      for (let k = i; k < Math.min(N, i + 1000); k++) {
        const url = `http://127.0.0.1:8080/v1/log/entries/${k}`;
        chunk += (await entryNQuads(entryInputFromEnvelope(k, envs[k % envs.length], url)))
          .replace(
            /"(\d{19,})"\^\^<http:\/\/www\.w3\.org\/2001\/XMLSchema#nonNegativeInteger>/g,
            (m, d) =>
              BigInt(d) > 2n ** 63n - 1n ? `"${d}"^^<http://www.w3.org/2001/XMLSchema#decimal>` : m,
          );
      }
      await f.write(enc.encode(chunk));
    }
    f.close();
    const l0 = performance.now();
    await v.isql(`ld_dir('${nqDir}', 'jc.nq', 'urn:jc:default'); rdf_loader_run(); checkpoint;`);
    const loadMs = performance.now() - l0;
    const http = new SparqlHttp({ endpoint: v.sparql });
    const rows = await http.select(SUM);
    virtuoso = {
      bulk_load_entries_per_s: Math.round(N / (loadMs / 1000)),
      sum_per_tier_ms_median: await median3(() => http.select(SUM)),
      tiers: rows.length,
    };
  } finally {
    await v.stop();
    await Deno.remove(nqDir, { recursive: true });
  }

  return {
    machine_limits: limits,
    entries: N,
    embedded: {
      ready_ms: Math.round(readyMs),
      store_bytes: st.memory,
      store_bytes_per_entry: Math.round(st.memory / N),
      sum_per_tier_ms_median: embSumMs,
    },
    virtuoso,
    sync: { entries: SYNC_N, ...sync },
    note:
      "shared 2-core machine; the embedded figures are Oxigraph's WebAssembly memory (never shrinks) and the time from an empty store to caught up",
  };
};
