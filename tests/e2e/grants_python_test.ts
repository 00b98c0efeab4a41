// Grants and revocations over real HTTP against the real service (issue 25), built and checked by
// an independent implementation: conformance/python/jcgrants, written from JCP §3, §4, §4.1-§4.4
// and §8 (python3-cbor2 canonical CBOR, b3sum BLAKE3, python3-nacl Ed25519, its own did:key and
// COSE_Sign1). It logs grants and delegated grants, sends every refusal, revokes a root, and
// checks the allows after it are `grant-revoked` on every chain containing it and an allow whose
// grant is not logged is `revocation-unverifiable` (its exit status says whether every check
// held); the grant and the revocation are typed entries in the SPARQL store, where a query
// finds the allows after the revocation; then the state survives a restart.
import assert from "node:assert/strict";
import { startService } from "../../fixtures/service.ts";
import { jcgrants } from "./_grants_python.ts";

const JC = "https://jouleclaw.transaction.science/vocab/v1#";

/** Polls a SPARQL SELECT until it has `n` rows (the store loads new entries in the background). */
async function sparqlEventually(u: string, q: string, n: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  let rows = -1;
  while (Date.now() < deadline) {
    const r = await fetch(`${u}/v1/sparql?query=${encodeURIComponent(`PREFIX jc: <${JC}> ${q}`)}`, {
      headers: { accept: "application/sparql-results+json" },
    });
    if (r.status === 200) rows = (await r.json()).results.bindings.length;
    else await r.body?.cancel();
    if (rows === n) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.fail(`${q}: ${rows} rows, want ${n}`);
}

Deno.test({
  name: "e2e grants: a Python-built chain, every refusal, a revocation and its findings over HTTP",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-grants-py-" });
    const env = { DATA_DIR: dir, JC_BATCH_AGE_MS: "2" };
    let svc = await startService(env);
    try {
      const r = await jcgrants(svc.url);
      assert.equal(r.code, 0, `${r.text}\n${r.stderr}`);
      const summary = JSON.parse(r.text);
      assert.ok(summary.checks >= 50, r.text);
      // RDF: the grant and the revocation are typed entries in the SPARQL store, and the
      // allows after the revocation are found by a query naming it
      const u = svc.url, entry = (i: number) => `${u}/v1/log/entries/${i}`;
      const rootIndex = (await (await fetch(`${u}/v1/grants/${summary.root}`)).json()).index;
      await sparqlEventually(
        u,
        `SELECT ?x WHERE { <${entry(rootIndex)}> a jc:Grant ; jc:capability ?c . ` +
          `?c jc:resource ?x }`,
        1,
      );
      await sparqlEventually(
        u,
        `SELECT ?x WHERE { <${entry(summary.marker)}> a jc:Revocation ; ` +
          `jc:grantId "${summary.root}" ; jc:revokedBy ?x }`,
        1,
      );
      await sparqlEventually(
        u,
        `SELECT ?x WHERE { ?f a jc:StreamFinding ; jc:findingCode "grant-revoked" ; ` +
          `jc:otherEntry <${entry(summary.marker)}> ; jc:aboutEntry ?x }`,
        5,
      );
      // the state survives a restart: the root's revocation, the child's chain, the findings
      await svc.stop();
      svc = await startService(env);
      const got = async (path: string) => await (await fetch(`${svc.url}${path}`)).json();
      assert.equal((await got(`/v1/grants/${summary.root}`)).revocation, summary.marker);
      const child = await got(`/v1/grants/${summary.child}`);
      assert.deepEqual(child.chain.map((l: { revocation?: number }) => l.revocation), [
        summary.marker,
      ]);
      const s = await got(`/v1/streams?steward=${summary.steward}`);
      assert.equal(s.findings.length, 7);
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
