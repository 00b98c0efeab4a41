// The independent checks of live_test.ts against a ROTATED log (docs/SHARDS.md "A shard is a base
// URL"): after a rotation by command, Go's golang.org/x/mod sumdb/tlog checks the frozen first
// shard's SHA-256 view and the active shard's below its prefix `/shards/s1`, and the Python
// verifier the BLAKE3 views, each under the vkeys the signed directory lists; each shard's
// checkpoint is refused under the other shard's key. A missing Go or Debian package FAILS.
import assert from "node:assert/strict";
import { pyCheck } from "./_python.ts";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { startService } from "../../fixtures/service.ts";
import { runTlogcheck } from "../../conformance/go/tlogcheck.ts";
import { openDirectory, shardUrl } from "../../log/shards/mod.ts";

const TOKEN = "live-shards-admin-token";

Deno.test({
  name: "live shards: Go x/mod and Python check a frozen shard and the active one's prefix",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-live-shards-" });
    const svc = await startService({
      DATA_DIR: dir,
      JC_LOG_NAME: "live.example/jc",
      JC_ADMIN_TOKEN: TOKEN,
    });
    try {
      const s = steward(6);
      const fill = async (prefix: string, from: number, to: number) => {
        for (let n = from; n < to; n += 64) {
          await Promise.all(
            Array.from({ length: Math.min(64, to - n) }, async (_, k) => {
              const res = await fetch(shardUrl(svc.url, prefix, "/v1/log/entries"), {
                method: "POST",
                headers: { "content-type": "application/cose" },
                body: validEnvelope(n + k, s),
              });
              assert.equal(res.status, 201);
              await res.body?.cancel();
            }),
          );
        }
      };
      await fill("/", 0, 300);
      const rot = await fetch(`${svc.url}/v1/logs/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(rot.status, 200);
      await rot.body?.cancel();
      await fill("/shards/s1", 1000, 1270);
      const body = await (await fetch(`${svc.url}/v1/logs`)).json();
      const d = await openDirectory(body.note, body.operator_vkey);
      assert.deepEqual(d.shards.map((x) => [x.id, x.state]), [["s0", "frozen"], ["s1", "active"]]);
      const want = [300, 270];
      for (const [i, sh] of d.shards.entries()) {
        const go = await runTlogcheck([
          "-url",
          shardUrl(svc.url, sh.prefix, "/log/sha256").href,
          "-vkey",
          sh.vkeys.sha256,
          "-records",
          "all",
        ]);
        assert.equal(go.error, undefined, `Go x/mod on ${sh.id}: ${go.error}`);
        assert.equal(go.size, want[i]);
        assert.equal(go.records, want[i]);
        const py = await pyCheck(
          shardUrl(svc.url, sh.prefix, "/log/blake3").href,
          sh.vkeys.blake3,
          ["--records", "all"],
        );
        assert.equal(py.error, undefined, `Python on ${sh.id}: ${py.error}`);
        assert.equal(py.size, want[i]);
        assert.equal(py.records, want[i]);
      }
      // Not vacuous: a shard's checkpoint is refused under the other shard's key.
      const crossed = await runTlogcheck([
        "-url",
        shardUrl(svc.url, "/shards/s1", "/log/sha256").href,
        "-vkey",
        d.shards[0].vkeys.sha256,
      ]);
      assert.equal(crossed.ok, false);
    } finally {
      await svc.stop("SIGTERM");
      await Deno.remove(dir, { recursive: true });
    }
  },
});
