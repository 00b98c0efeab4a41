// Start-up (issue 17): a busy port is named and stops the service before anything is written
// (no data directory, no key); a good start prints exactly one line and no install noise.
import assert from "node:assert/strict";
import { ROOT, startService } from "../../fixtures/service.ts";

Deno.test("startup: a busy port is named, and nothing is created", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-start-" });
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (busy.addr as Deno.NetAddr).port;
  try {
    const o = await new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "start"],
      cwd: ROOT,
      env: { PORT: String(port), HOST: "127.0.0.1", DATA_DIR: `${dir}/data`, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(o.stderr);
    assert.equal(o.code, 1);
    assert.equal(err.trim(), `Cannot listen on 127.0.0.1:${port}: address in use; set PORT`);
    assert.equal(new TextDecoder().decode(o.stdout), "");
    await assert.rejects(Deno.stat(`${dir}/data`), Deno.errors.NotFound, "no data dir created");
  } finally {
    busy.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "startup: one line on stdout, nothing on stderr",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-start-" });
    const svc = await startService({ DATA_DIR: `${dir}/data` });
    try {
      assert.match(svc.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      await (await fetch(`${svc.url}/healthz`)).body?.cancel();
      assert.equal(svc.stderr(), "", "no install noise, no warnings");
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
