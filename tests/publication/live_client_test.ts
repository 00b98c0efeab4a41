// The client against the LIVE service (deno task start, SQLite): `prove` verifies from tiles by
// default (both views; the vkey from /v1/log/key), `monitor` follows both views' checkpoints,
// `mirror` copies the live log and again only what is new, the mirror behind python3 -m
// http.server answers `prove` like the service, and `verify-proof` checks offline both a tlog-proof
// of the service's route and one the client made from the mirror's tiles.
import assert from "node:assert/strict";
import { LogClient } from "../../client/mod.ts";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { runClient, startService } from "../../fixtures/service.ts";
import { serveDir } from "./_static.ts";

const json = (s: string) => JSON.parse(s.trim().split("\n").at(-1)!);

Deno.test({
  name: "live service: prove and monitor from tiles, mirror, verify-proof offline",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-live-client-" });
    const svc = await startService({ DATA_DIR: `${dir}/data`, JC_LOG_NAME: "live.example/jc" });
    try {
      const client = new LogClient(svc.url, svc.signer);
      const s = steward(6);
      const envelopes: Uint8Array[] = [];
      const fill = async (from: number, to: number) => {
        for (let n = from; n < to; n += 64) {
          const batch = Array.from(
            { length: Math.min(64, to - n) },
            (_, k) => validEnvelope(n + k, s),
          );
          const got = await Promise.all(batch.map((e) => client.submit(e)));
          got.forEach((a, k) => (envelopes[a.index] = batch[k]));
        }
      };
      await fill(0, 300);
      const key = await (await fetch(`${svc.url}/v1/log/key`)).json();
      const VK = key.vkeys.sha256 as string;
      // prove: tiles by default (auto), vkey from /v1/log/key pinned by --signer.
      const p = await runClient(["prove", "257", "--url", svc.url, "--signer", svc.signer]);
      assert.equal(p.code, 0, p.stderr);
      const pr = json(p.stdout);
      assert.equal(pr.from, "tiles");
      assert.equal(pr.views.blake3.size, 300);
      // The BLAKE3 view's root is the §22.2 head's at that size.
      const head = await (await fetch(`${svc.url}/v1/log/tree-head`)).json();
      if (head.size === 300) assert.equal(pr.views.blake3.root, head.root);
      // --source api still works.
      const pa = await runClient(["prove", "257", "--url", svc.url, "--source", "api"]);
      assert.equal(pa.code, 0, pa.stderr);
      // A --signer that is not the log's key: refused before any proof.
      const wrong = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
      assert.equal((await runClient(["prove", "1", "--url", svc.url, "--signer", wrong])).code, 3);

      const state = `${dir}/monitor.json`;
      const m1 = await runClient(["monitor", svc.url, "--state", state, "--once"]);
      assert.equal(m1.code, 0, m1.stderr);
      const mirrorDir = `${dir}/mirror`;
      const r1 = await runClient(["mirror", svc.url, mirrorDir, "--log-key", VK]);
      assert.equal(r1.code, 0, r1.stderr);
      assert.equal(json(r1.stdout).views.sha256.size, 300);

      await fill(300, 600);
      const m2 = await runClient(["monitor", svc.url, "--state", state, "--once"]);
      assert.equal(m2.code, 0, m2.stderr);
      assert.match(json(m2.stdout).message, /blake3 \d+ extends 300/);
      const r2 = await runClient(["mirror", svc.url, mirrorDir, "--log-key", VK]);
      assert.equal(r2.code, 0, r2.stderr);
      const rep = json(r2.stdout);
      assert.equal(rep.views.sha256.from, 300);
      assert.ok(rep.views.sha256.size >= 600);

      // The mirror is a complete log: the same proof as the service's tiles.
      const srv = await serveDir(mirrorDir);
      try {
        const size = rep.views.blake3.size;
        const pm = await runClient([
          "prove",
          "450",
          "--url",
          srv.url,
          "--log-key",
          VK,
          "--tlog-proof",
          `${dir}/e450.tlog-proof`,
        ]);
        assert.equal(pm.code, 0, pm.stderr);
        assert.equal(json(pm.stdout).views.blake3.size, size);
        await Deno.writeFile(`${dir}/e450.cose`, envelopes[450]);
        const v = await runClient([
          "verify-proof",
          `${dir}/e450.cose`,
          `${dir}/e450.tlog-proof`,
          "--log-key",
          VK,
        ]);
        assert.equal(v.code, 0, v.stderr);
        assert.equal(json(v.stdout).view, "blake3");
      } finally {
        await srv.close();
      }
      // The service's own tlog-proof (SHA-256 view), verified offline.
      for (const view of ["sha256", "blake3"]) {
        const res = await fetch(`${svc.url}/v1/log/proof/tlog-proof?index=123&view=${view}`);
        assert.equal(res.status, 200);
        await Deno.writeTextFile(`${dir}/e123-${view}.tlog-proof`, await res.text());
        await Deno.writeFile(`${dir}/e123.cose`, envelopes[123]);
        const v = await runClient([
          "verify-proof",
          `${dir}/e123.cose`,
          `${dir}/e123-${view}.tlog-proof`,
          "--log-key",
          VK,
        ]);
        assert.equal(v.code, 0, v.stderr);
        assert.equal(json(v.stdout).view, view);
        // Another receipt's bytes: not proven.
        await Deno.writeFile(`${dir}/e124.cose`, envelopes[124]);
        const bad = await runClient([
          "verify-proof",
          `${dir}/e124.cose`,
          `${dir}/e123-${view}.tlog-proof`,
          "--log-key",
          VK,
        ]);
        assert.equal(bad.code, 3, bad.stderr);
      }
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
