// Independent implementations against the LIVE service over real HTTP (PUBLICATION.md "What
// stays true"): the service (`deno task start`, SQLite store) is filled past tile edges and, at
// two sizes, Go's golang.org/x/mod/sumdb/note + sumdb/tlog (conformance/go/tlogcheck) check the
// SHA-256 view — the checkpoint's signature under the vkey of /v1/log/key, every tile through
// tlog.TileHashReader, every record read from the bundles, consistency with the older checkpoint
// — and the Python verifier (conformance/python/jcverify/tiles.py: b3sum, libsodium) checks the
// BLAKE3 view the same way. Either disagreeing fails the test; so that they can, each is also
// shown failing against the other view or key. A missing Go or Debian package FAILS.
import assert from "node:assert/strict";
import { pyCheck } from "./_python.ts";
import { LogClient } from "../../client/mod.ts";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { startService } from "../../fixtures/service.ts";
import { runTlogcheck } from "../../conformance/go/tlogcheck.ts";

Deno.test({
  name: "live service: Go x/mod verifies the SHA-256 view, Python the BLAKE3 view, over HTTP",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-live-" });
    const svc = await startService({ DATA_DIR: dir, JC_LOG_NAME: "live.example/jc" });
    try {
      const client = new LogClient(svc.url, svc.signer);
      const s = steward(5);
      const fill = async (from: number, to: number) => {
        for (let n = from; n < to; n += 64) {
          await Promise.all(
            Array.from(
              { length: Math.min(64, to - n) },
              (_, k) => client.submit(validEnvelope(n + k, s)),
            ),
          );
        }
      };
      const key = await (await fetch(`${svc.url}/v1/log/key`)).json();
      assert.match(key.vkeys.sha256, /^live\.example\/jc\/sha256\+/);
      await fill(0, 257);
      const old: Record<string, string> = {};
      for (const view of ["blake3", "sha256"]) {
        old[view] = `${dir}/old-${view}`;
        const text = await (await fetch(`${svc.url}/log/${view}/checkpoint`)).text();
        assert.match(text, /\n257\n/);
        await Deno.writeTextFile(old[view], text);
      }
      await fill(257, 600);
      const go = await runTlogcheck([
        "-url",
        `${svc.url}/log/sha256`,
        "-vkey",
        key.vkeys.sha256,
        "-records",
        "all",
        "-old",
        old.sha256,
      ]);
      assert.equal(go.error, undefined, `Go x/mod: ${go.error}`);
      assert.equal(go.size, 600);
      assert.equal(go.records, 600);
      assert.equal(go.consistent, 1);
      const py = await pyCheck(`${svc.url}/log/blake3`, key.vkeys.blake3, [
        "--records",
        "all",
        "--old",
        old.blake3,
      ]);
      assert.equal(py.error, undefined, `Python: ${py.error}`);
      assert.equal(py.size, 600);
      assert.equal(py.records, 600);
      assert.equal(py.consistent, 1);
      // Not vacuous: each checker refuses the other view (other hash, other origin and key ID).
      const goOther = await runTlogcheck([
        "-url",
        `${svc.url}/log/blake3`,
        "-vkey",
        key.vkeys.blake3,
        "-records",
        "3",
      ]);
      assert.equal(goOther.ok, false, "Go x/mod must refuse the BLAKE3 view's tiles");
      const pyOther = await pyCheck(`${svc.url}/log/sha256`, key.vkeys.sha256, ["--records", "3"]);
      assert.equal(pyOther.ok, false, "the Python verifier must refuse the SHA-256 view's tiles");
      const goWrongKey = await runTlogcheck([
        "-url",
        `${svc.url}/log/sha256`,
        "-vkey",
        key.vkeys.blake3,
      ]);
      assert.equal(goWrongKey.ok, false);
    } finally {
      await svc.stop("SIGTERM");
      await Deno.remove(dir, { recursive: true });
    }
  },
});
