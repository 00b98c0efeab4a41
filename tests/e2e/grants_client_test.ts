// The client's grant commands against the real service (issue 25; docs/GRANTS.md "Client"): keys
// from `client keygen`, a root grant and a delegated grant sealed with `client grant --make` and
// logged with `client grant FILE` (answers checked: leaf, signed head, inclusion proof), a
// revocation sealed and logged with `client revoke`, a second one answered with the first's
// (proven) entry, and a refusal's code on stderr with exit 1.
import assert from "node:assert/strict";
import { runClient, startService } from "../../fixtures/service.ts";

Deno.test({
  name: "e2e grants: client keygen, grant --make, grant FILE, revoke --make, revoke FILE",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-grants-client-" });
    const svc = await startService({ DATA_DIR: `${dir}/data`, JC_BATCH_AGE_MS: "2" });
    const run = async (args: string[], code = 0) => {
      const r = await runClient([...args]);
      assert.equal(r.code, code, `${args.join(" ")}\n${r.stdout}\n${r.stderr}`);
      return r;
    };
    const json = async (args: string[]) => JSON.parse((await run(args)).stdout);
    const url = ["--url", svc.url];
    try {
      const root = (await run(["keygen", "--out", `${dir}/root.key`])).stdout.trim();
      const alice = (await run(["keygen", "--out", `${dir}/alice.key`])).stdout.trim();
      const res = "ab".repeat(32);
      const g = await json([
        "grant",
        "--make",
        "--key",
        `${dir}/root.key`,
        "--subject",
        alice,
        "--resource",
        res,
        "--actions",
        "read,write",
        "--budget-uj",
        "100000",
        "--delegate-depth",
        "1",
        "--out",
        `${dir}/root.grant`,
      ]);
      assert.equal(g.signer, root);
      const logged = await json(["grant", `${dir}/root.grant`, ...url]);
      assert.equal(logged.grant_id, g.id);
      assert.equal(logged.verified, true);
      const c = await json([
        "grant",
        "--make",
        "--key",
        `${dir}/alice.key`,
        "--subject",
        root,
        "--resource",
        res,
        "--budget-uj",
        "500",
        "--parent",
        g.id,
        "--delegate-depth",
        "0",
        "--out",
        `${dir}/child.grant`,
      ]);
      assert.equal((await json(["grant", `${dir}/child.grant`, ...url])).grant_id, c.id);
      // alice may not revoke root's grant: refused, the code on stderr
      await run([
        "revoke",
        "--make",
        "--key",
        `${dir}/alice.key`,
        "--grant",
        g.id,
        "--out",
        `${dir}/bad.rev`,
      ]);
      const bad = await run(["revoke", `${dir}/bad.rev`, ...url], 1);
      assert.match(bad.stderr, /revocation-not-issuer/);
      await run([
        "revoke",
        "--make",
        "--key",
        `${dir}/root.key`,
        "--grant",
        g.id,
        "--out",
        `${dir}/g.rev`,
      ]);
      const rv = await json(["revoke", `${dir}/g.rev`, ...url]);
      assert.equal(rv.revoked_grant_index, logged.index);
      assert.equal(rv.verified, true);
      await run([
        "revoke",
        "--make",
        "--key",
        `${dir}/root.key`,
        "--grant",
        g.id,
        "--out",
        `${dir}/g2.rev`,
      ]);
      const again = await json(["revoke", `${dir}/g2.rev`, ...url]);
      assert.deepEqual([again.index, again.already_revoked], [rv.index, true]);
      const got = await (await fetch(`${svc.url}/v1/grants/${c.id}`)).json();
      assert.deepEqual(got.chain, [{ grant_id: g.id, index: logged.index, revocation: rv.index }]);
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
