// Grants and revocations survive SIGKILL under load (issue 25): 6 workers log grants, delegated
// grants, revocations and allows against them concurrently; the service is SIGKILLed mid-load,
// restarted, loaded again and stopped. Then every acknowledged grant and revocation is in the
// store at its acknowledged index, and the grant state and the findings (grant-revoked,
// revocation-unverifiable) equal a recomputation from the log's entries alone
// (tests/_streams_recompute.ts): they move in each batch's commit transaction with the entries.
import assert from "node:assert/strict";
import { startService } from "../../fixtures/service.ts";
import { killUnderLoad } from "./_kill_under_load.ts";
import { openSqliteStorage } from "../../log/sqlite/mod.ts";
import { fromHex } from "../../verify/mod.ts";
import { actor, allow, grant, revocation } from "../_grants.ts";
import { recompute } from "../_streams_recompute.ts";

const WORKERS = 6;

async function post(url: string, path: string, e: Uint8Array) {
  const r = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: e as BodyInit,
  });
  const body = await r.json();
  return { status: r.status, index: body.index as number | undefined };
}

Deno.test({
  name: "e2e grants: grants and revocations survive SIGKILL under load, equal to a recomputation",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-grants-crash-" });
    const env = { DATA_DIR: dir, JC_BATCH_AGE_MS: "2" };
    let svc = await startService(env);
    const grants = new Map<string, number>(), revs = new Map<string, number>();
    let acked = 0, n = 0;
    const step = async (w: number, url: string) => {
      const root = actor(60 + w), alice = actor(70 + w), bob = actor(80), gw = actor(90 + w);
      const ok = (r: { status: number }) => r.status === 200 || r.status === 201;
      const i = n++;
      const g = grant(root, alice, { delegate_depth: 3 });
      const rg = await post(url, "/v1/grants", g.envelope);
      if (ok(rg)) (grants.set(g.id, rg.index!), acked++);
      const c = grant(alice, bob, { parent: g.id, delegate_depth: 2 });
      const rc = await post(url, "/v1/grants", c.envelope);
      if (ok(rc)) (grants.set(c.id, rc.index!), acked++);
      else assert.equal(rc.status, 422); // its parent was lost unacknowledged in the kill
      await post(url, "/v1/log/entries", allow(gw, c.id, 2 * i, { issuer: alice.did }));
      if (i % 3 === 0) {
        const rr = await post(url, "/v1/revocations", revocation(g.id, root));
        if (rr.status === 201) (revs.set(g.id, rr.index!), acked++);
        await post(url, "/v1/log/entries", allow(gw, c.id, 2 * i + 1, { issuer: alice.did }));
      }
      if (i % 5 === 0) {
        const unlogged = grant(root, alice).id;
        await post(url, "/v1/log/entries", allow(gw, unlogged, 2 * i, { issuer: root.did }));
      }
    };
    try {
      svc = await killUnderLoad(
        { env, lanes: WORKERS, acked: () => acked, first: 300, more: 150 },
        step,
        svc,
      );
      await svc.stop();

      const s = openSqliteStorage(`${dir}/log.sqlite`);
      try {
        const size = (await s.latestHead())!.size;
        const want = await recompute(s, size, 300_000);
        const x = s.capabilities().streamIndex!;
        for (const [id, index] of grants) {
          assert.equal((await x.grant!(fromHex(id)))?.index, index, `acknowledged grant ${id}`);
        }
        for (const [id, index] of revs) {
          assert.equal((await x.grant!(fromHex(id)))?.revocation, index, `revocation of ${id}`);
        }
        assert.ok(want.grants.size >= grants.size);
        for (const [id, g] of want.grants) {
          const defined = (o: object | undefined) =>
            Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined));
          assert.deepEqual(defined(await x.grant!(fromHex(id))), defined(g), id);
        }
        let revoked = 0, unverifiable = 0;
        for (let w = 0; w < WORKERS; w++) {
          const did = actor(90 + w).did;
          const strip = ({ id: _id, ...f }: { id?: number }) => f;
          const got = (await x.streamFindings(did, 0, 1_000_000)).map(strip);
          const exp = want.findings.filter((f) => f.steward === did).map(strip);
          assert.deepEqual(got, exp, `findings of worker ${w}`);
          revoked += exp.filter((f) => (f as { code: string }).code === "grant-revoked").length;
          unverifiable += exp.filter((f) =>
            (f as { code: string }).code === "revocation-unverifiable"
          ).length;
        }
        assert.ok(revoked > 0 && unverifiable > 0, `findings: ${revoked}, ${unverifiable}`);
        console.log(
          `grants ${want.grants.size} (acknowledged ${grants.size}), revocations ${revs.size}, ` +
            `grant-revoked ${revoked}, revocation-unverifiable ${unverifiable}, entries ${size}`,
        );
      } finally {
        await s.close();
      }
    } finally {
      await svc.stop().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});
