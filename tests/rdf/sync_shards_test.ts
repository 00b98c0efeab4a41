// Issue 28, `rdf:sync` follows the shard directory (docs/RDF.md "Entry IRIs", docs/SHARDS.md):
// against the real service rotated by command (an entry in s0, two in s1) and a real Virtuoso,
// `rdf:sync --log <service> --once` writes every shard's entries, each under its shard-qualified
// IRI, with one sync-state record per shard; a second run adds nothing and a third, after an
// append to s1, only that entry.
import assert from "node:assert/strict";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { startService } from "../../fixtures/service.ts";
import { startVirtuoso } from "../../fixtures/virtuoso.ts";
import { JC, rows, runSync } from "./_sync_checks.ts";

const TOKEN = "test-admin-token-0123456789";
const S = steward(11);

async function append(url: string, n: number): Promise<number> {
  const res = await fetch(`${url}/v1/log/entries`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: validEnvelope(n, S),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()).index;
}

Deno.test({
  name: "rdf:sync: every shard of the directory, under shard-qualified entry IRIs",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-sync-shards-" });
    const v = await startVirtuoso();
    const svc = await startService({ DATA_DIR: dataDir, JC_ADMIN_TOKEN: TOKEN });
    const base = ["--log", svc.url, "--endpoint", v.sparql, "--graph-store", v.gsp, "--once"];
    const graphs = async () =>
      (await rows(v.sparql, `SELECT ?g WHERE { GRAPH ?g { ?g <${JC}logIndex> ?i } } ORDER BY ?g`))
        .map((r) => r.g);
    try {
      await append(svc.url, 1);
      const rot = await fetch(`${svc.url}/v1/logs/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(rot.status, 200, await rot.text());
      const s1 = `${svc.url}/shards/s1`;
      await append(s1, 2);
      await append(s1, 3);

      const r = await runSync(base);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(lines.map((l) => [l.shard, l.from, l.synced]), [["s0", 0, 1], ["s1", 0, 2]]);
      assert.deepEqual(await graphs(), [
        `${svc.url}/shards/s1/v1/log/entries/0`,
        `${svc.url}/shards/s1/v1/log/entries/1`,
        `${svc.url}/v1/log/entries/0`,
      ]);

      // Resumed per shard: nothing new, then only s1's new entry.
      const again = await runSync(base);
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(
        again.stdout.trim().split("\n").map((l) => JSON.parse(l)).map((l) => [l.from, l.synced]),
        [[1, 1], [2, 2]],
      );
      await append(s1, 4);
      const third = await runSync(base);
      assert.equal(third.code, 0, third.stderr);
      const last = JSON.parse(third.stdout.trim().split("\n").at(-1)!);
      assert.deepEqual([last.shard, last.from, last.synced], ["s1", 2, 3]);
      assert.equal((await graphs()).length, 4);
    } finally {
      await svc.stop();
      await v.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
