// Verdict classes end to end over HTTP against the real service (JCR-1 §6, SPEC §6): a receipt
// of each class is verified and appended — valid, joule-unverified and alert are logged (201, the
// alert with its DriftAlert figures), invalid refused 422 — and every view of each entry shows its
// verdict: JSON, JSON-LD, N-Quads, Turtle, the export, the SPARQL store and the metrics; the client's
// `submit` prints the verdict and exits 0 for an alert. After a restart the views say the same.
import assert from "node:assert/strict";
import { runClient, startService } from "../../fixtures/service.ts";
import { checkVerdictsOver, classVectors, getText, OPERATOR_CONFIG_PATH } from "../_verdicts.ts";
import { toHex } from "../../verify/mod.ts";

const SPARQL_COUNTS = `PREFIX jc: <https://jouleclaw.transaction.science/vocab/v1#>
SELECT ?v (COUNT(?e) AS ?n) WHERE { GRAPH ?g { ?e jc:verificationVerdict ?v } }
GROUP BY ?v ORDER BY ?v`;

async function sparqlCounts(url: string): Promise<Record<string, number>> {
  // the store loads off the request path: ask until it holds the three entries
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${url}/v1/sparql?query=${encodeURIComponent(SPARQL_COUNTS)}`, {
      headers: { accept: "application/sparql-results+json" },
    });
    if (res.status === 200) {
      const rows = (await res.json()).results.bindings as {
        v: { value: string };
        n: { value: string };
      }[];
      const counts = Object.fromEntries(rows.map((r) => [r.v.value, Number(r.n.value)]));
      if (Object.values(counts).reduce((a, b) => a + b, 0) === 3) return counts;
    } else await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the SPARQL store never held the three entries");
}

Deno.test({
  name:
    "e2e: each verdict class is appended or refused as JCR-1 §6 / SPEC §6 say, and shown by every view",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-e2e-verdicts-" });
    const env = { DATA_DIR: dataDir, JC_OPERATOR_CONFIG: OPERATOR_CONFIG_PATH };
    let svc = await startService(env);
    try {
      const indexes = await checkVerdictsOver(svc.url);
      assert.deepEqual(await sparqlCounts(svc.url), {
        "alert": 1,
        "joule-unverified": 1,
        "valid": 1,
      });

      // the client: submit prints the verdict (and the alert's figures), exit 0
      const alert = (await classVectors())[2];
      const file = `${dataDir}/alert.hex`;
      await Deno.writeTextFile(file, toHex(alert.envelope));
      const s = await runClient(["submit", file, "--url", svc.url]);
      assert.equal(s.code, 0, s.stdout + s.stderr);
      const printed = JSON.parse(s.stdout);
      assert.equal(printed.verdict, "alert");
      assert.equal(printed.index, indexes[2]);
      assert.equal(printed.drift_alert.reference_uj, 1_500_000);

      // a restart changes no entry's verdict
      assert.equal((await svc.stop("SIGTERM")).code, 0, svc.stderr());
      svc = await startService(env);
      for (const [k, verdict] of ["valid", "joule-unverified", "alert"].entries()) {
        const at = indexes[k]; // after the configuration entry the service logged (issue 23)
        const j = JSON.parse(await getText(svc.url, `/v1/log/entries/${at}`, "application/json"));
        assert.equal(j.verdict, verdict);
      }
    } finally {
      await svc.stop("SIGTERM");
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "e2e: without the reference vectors every cascade receipt is joule-unverified, none an alert",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-e2e-verdicts-" });
    const svc = await startService({ DATA_DIR: dataDir });
    try {
      const [valid, , alert] = await classVectors();
      for (const v of [valid, alert]) {
        const r = await fetch(`${svc.url}/v1/log/entries`, {
          method: "POST",
          headers: { "content-type": "application/cose" },
          body: v.envelope.slice(),
        });
        const body = await r.json();
        assert.equal(r.status, 201, JSON.stringify(body));
        assert.equal(body.verdict, "joule-unverified", v.name);
      }
    } finally {
      await svc.stop("SIGTERM");
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
