// `client get INDEX --out FILE` against the real service (issue 28): the entry's envelope, byte for
// byte, written only after its inclusion is proven (from tiles, and through the API); past the
// end a not-found (exit 1) and nothing written; a server that alters the entry's bytes (a proxy
// flipping a byte of the entry bundle or of the entry) is a failed check (exit 3), nothing written.
import assert from "node:assert/strict";
import { ROOT, runClient, startService } from "../../fixtures/service.ts";

const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

/** A proxy to `target` that flips the last byte of every answer whose path `alter` matches. */
function flippingProxy(target: string, alter: RegExp) {
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    async (req) => {
      const u = new URL(req.url);
      const res = await fetch(`${target}${u.pathname}${u.search}`, { headers: req.headers });
      const body = new Uint8Array(await res.arrayBuffer());
      if (res.ok && alter.test(u.pathname) && body.length > 0) body[body.length - 1] ^= 1;
      const headers = new Headers(res.headers);
      headers.delete("content-length");
      headers.delete("content-encoding");
      return new Response(body, { status: res.status, headers });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    stop: async () => (ac.abort(), await server.finished),
  };
}

Deno.test({
  name:
    "client get: the envelope, proven first (tiles and API); past the end exit 1; altered bytes exit 3",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-client-get-" });
    const svc = await startService({ DATA_DIR: `${dir}/data` });
    try {
      for (const f of ["receipt.cose", "policy.cose"]) {
        const s = await runClient(["submit", `${ROOT}examples/${f}`, "--url", svc.url]);
        assert.equal(s.code, 0, s.stderr);
      }
      const policy = await Deno.readFile(`${ROOT}examples/policy.cose`);
      for (const source of ["tiles", "api"]) {
        const out = `${dir}/e1-${source}.cose`;
        const g = await runClient(["get", "1", "--out", out, "--url", svc.url, "--source", source]);
        assert.equal(g.code, 0, g.stderr);
        const r = JSON.parse(g.stdout);
        assert.equal(r.index, 1);
        assert.equal(r.size, 2);
        assert.equal(r.from, source);
        assert.equal(r.verified, true);
        assert.equal(r.bytes, policy.length);
        assert.deepEqual(await Deno.readFile(out), policy, "the envelope, byte for byte");
        // what `verify` reads
        const v = await new Deno.Command(Deno.execPath(), {
          args: ["task", "-q", "verify", "--compact", out],
          cwd: ROOT,
          stdout: "piped",
        }).output();
        assert.equal(v.code, 0);
        // past the end: a not-found, nothing written
        const past = `${dir}/e7-${source}.cose`;
        const n = await runClient([
          "get",
          "7",
          "--out",
          past,
          "--url",
          svc.url,
          "--source",
          source,
        ]);
        assert.equal(n.code, 1, n.stderr);
        assert.doesNotMatch(n.stderr, /CHECK FAILED/);
        assert.equal(await exists(past), false);
      }
      // usage
      const u = await runClient(["get", "x", "--out", `${dir}/x`, "--url", svc.url]);
      assert.equal(u.code, 2, u.stderr);
      const noOut = await runClient(["get", "1", "--url", svc.url]);
      assert.equal(noOut.code, 2, noOut.stderr);
      // a server that alters the entry: refused, nothing written
      for (
        const [source, alter] of [
          ["tiles", /\/tile\/entries\//],
          ["api", /^\/v1\/log\/entries\/1$/],
        ] as const
      ) {
        const proxy = flippingProxy(svc.url, alter);
        try {
          const out = `${dir}/bad-${source}.cose`;
          const g = await runClient([
            "get",
            "1",
            "--out",
            out,
            "--url",
            proxy.url,
            "--source",
            source,
          ]);
          assert.equal(g.code, 3, `${source}: ${g.code} ${g.stderr}`);
          assert.match(g.stderr, /CHECK FAILED/);
          assert.equal(await exists(out), false, "nothing written");
        } finally {
          await proxy.stop();
        }
      }
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
