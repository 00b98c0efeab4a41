// Bulk appends end to end (issue 29) against the real service (its verifier pool, SQLite, a
// sequencer cut to small batches so that one bulk spans several): `client submit A B C…
// --batch N` prints one checked line per file, a refused one beside the others; and a SIGKILL
// while 4 clients send bulks loses no envelope any answer acknowledged (ARCHITECTURE Decision 7):
// after a restart each is at its index with a proof that verifies.
import assert from "node:assert/strict";
import { LogClient } from "../../client/mod.ts";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { ROOT, runClient, startService } from "../../fixtures/service.ts";

Deno.test({
  name: "e2e: client submit A B C --batch 2 appends in bulks, one checked line per file",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-bulk-cli-" });
    const svc = await startService({ DATA_DIR: dir });
    try {
      const files = ["receipt", "invalid-joules-below-tools", "policy", "jcp2"].map((f) =>
        `${ROOT}examples/${f}.cose`
      );
      const r = await runClient(["submit", ...files, "--batch", "2", "--url", svc.url]);
      assert.equal(r.code, 1, r.stderr); // one refused
      const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(lines.map((l) => l.index), [0, undefined, 1, 2]);
      assert.equal(lines[1].refused, "joules-below-tools");
      assert.equal(lines[1].status, 422);
      assert.ok(lines.filter((l) => l.index !== undefined).every((l) => l.verified === true));
      // again: the same entries, nothing new; all logged: exit 0
      const ok = [files[0], files[2]];
      const again = await runClient(["submit", ...ok, "--url", svc.url]);
      assert.equal(again.code, 0, again.stderr);
      const l2 = again.stdout.trim().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(l2.map((l) => [l.index, l.created]), [[0, false], [1, false]]);
    } finally {
      await svc.stop("SIGTERM");
      await Deno.remove(dir, { recursive: true });
    }
  },
});

const CLIENTS = 4;
const BULK = 50;

Deno.test({
  name: "e2e: SIGKILL under 4 clients sending bulks loses nothing acknowledged",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-bulk-crash-" });
    // batches of 16: one bulk of 50 spans several sequencer batches, proved against one head
    const env = { DATA_DIR: dataDir, JC_BATCH_MAX: "16" };
    let svc = await startService(env);
    try {
      const acked: { leaf: string; index: number }[] = [];
      let stop = false, killedAt = 0, heads = 0;
      const s = steward(5);
      const workers = Array.from({ length: CLIENTS }, async (_, w) => {
        const client = new LogClient(svc.url, svc.signer);
        for (let n = 0; !stop; n++) {
          const bulk = Array.from(
            { length: BULK },
            (_, k) => validEnvelope(w * 10_000_000 + n * BULK + k, s),
          );
          try {
            const results = await client.submitBulk(bulk); // head and every proof checked
            for (const r of results) {
              assert.ok(r.ok, JSON.stringify(r));
              acked.push({ leaf: r.leaf_hash, index: r.index });
            }
            heads++;
          } catch (e) {
            if (!killedAt) throw e; // before the kill every bulk must succeed
            return;
          }
        }
      });
      while (acked.length < 1500) await new Promise((r) => setTimeout(r, 20));
      killedAt = acked.length;
      const st = await svc.stop("SIGKILL");
      assert.equal(st.success, false);
      stop = true;
      await Promise.all(workers);
      assert.ok(heads > 0 && acked.length >= killedAt);

      svc = await startService(env);
      const client = new LogClient(svc.url, svc.signer);
      const head = await client.head();
      for (const { leaf, index } of acked) {
        const p = await client.prove(leaf); // checked against the signed head
        assert.equal(p.index, index, `acknowledged leaf ${leaf} moved`);
      }
      assert.ok(head.size >= acked.length);
    } finally {
      await svc.stop("SIGTERM");
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
