// verify/ in a real browser (Debian chromium, headless): verify/mod.ts bundled for the browser
// platform, served from 127.0.0.1 on a free port, imported by a page; the page verifies ES256 and
// Ed25519 envelopes on the WebCrypto and pure paths and writes the outcome into the DOM, which
// `--dump-dom` returns. Chromium missing fails this test (Debian package chromium).
import assert from "node:assert/strict";
import { removeDirRetrying } from "../_fs.ts";

const PAGE = `<!doctype html><html><body><pre id="out">pending</pre><script type="module">
import * as v from "./verify.mjs";
const out = document.getElementById("out");
try {
  const pk = new Uint8Array(32).fill(6);
  const did = v.didKeyFromP256PublicKey(v.p256PublicKey(pk));
  const env = v.coseSign1Es256(v.encodeCbor({ jc_receipt: "x", steward: did }), pk, did);
  const e = v.parseCoseSign1(env);
  const tbs = v.coseSigStructure(e.protectedBytes, e.payload);
  const pub = v.resolveDidKey(did).pub;
  const twin = v.es256Malleate(e.signature);
  const bad = e.signature.slice(); bad[5] ^= 1;
  const report = await v.verifyEnvelope(env);
  const edSk = new Uint8Array(32).fill(5);
  const edDid = v.didKeyFromPublicKey(v.ed25519PublicKey(edSk));
  const edEnv = v.coseSign1(v.encodeCbor({ a: 1 }), edSk, edDid);
  const ed = v.parseCoseSign1(edEnv);
  out.textContent = JSON.stringify({
    web: [await v.es256Verify(e.signature, tbs, pub), await v.es256Verify(twin, tbs, pub), await v.es256Verify(bad, tbs, pub)],
    pure: [v.es256VerifyPure(e.signature, tbs, pub), v.es256VerifyPure(twin, tbs, pub), v.es256VerifyPure(bad, tbs, pub)],
    backend: v.es256Backend(),
    signatureStep: report.steps.find((s) => s.step === "signature").status,
    ed25519: await v.ed25519Verify(ed.signature, v.coseSigStructure(ed.protectedBytes, ed.payload), v.resolveDidKey(edDid).pub),
  });
} catch (err) {
  out.textContent = "ERR " + err;
}
</script></body></html>`;

Deno.test("verify/ bundled for the browser verifies ES256 and Ed25519 in headless chromium", async () => {
  const dir = await Deno.makeTempDir();
  const b = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=browser",
      new URL("../../verify/mod.ts", import.meta.url).pathname,
      "-o",
      `${dir}/verify.mjs`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(b.success, `deno bundle failed: ${new TextDecoder().decode(b.stderr)}`);
  await Deno.writeTextFile(`${dir}/index.html`, PAGE);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const p = new URL(req.url).pathname;
    const file = p === "/" ? "index.html" : p === "/verify.mjs" ? "verify.mjs" : undefined;
    if (!file) return new Response("not found", { status: 404 });
    return new Response(await Deno.readFile(`${dir}/${file}`), {
      headers: { "content-type": file.endsWith(".html") ? "text/html" : "text/javascript" },
    });
  });
  try {
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command("chromium", {
        args: [
          "--headless=new",
          "--no-sandbox",
          "--disable-gpu",
          `--user-data-dir=${dir}/profile`,
          "--virtual-time-budget=20000",
          "--dump-dom",
          `http://127.0.0.1:${server.addr.port}/`,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
    } catch (e) {
      throw new Error(`Cannot run chromium (install Debian package chromium): ${e}`);
    }
    const dom = new TextDecoder().decode(out.stdout);
    const text = dom.match(/<pre id="out">([^<]*)/)?.[1] ?? `no result: ${dom.slice(0, 300)}`;
    assert.deepEqual(JSON.parse(text.replaceAll("&quot;", '"')), {
      web: [true, true, false],
      pure: [true, true, false],
      backend: "webcrypto",
      signatureStep: "pass",
      ed25519: true,
    });
  } finally {
    await server.shutdown();
    await removeDirRetrying(dir);
  }
});
