// log/c2sp/ is pure (it runs in the service, the CLI, the Worker and the browser): every module
// reachable from log/c2sp/mod.ts uses web APIs only (static scan), and a browser-platform bundle
// signs, opens and proves from tiles in Node 20 (/usr/bin/node) exactly as in Deno.
import assert from "node:assert/strict";
import { assertWebOnly, reachable } from "../../_pure_scan.ts";

const root = new URL("../../../log/c2sp/", import.meta.url);

Deno.test("log/c2sp: every module reachable from mod.ts uses web-standard APIs only", async () => {
  const mods = await reachable(new URL("mod.ts", root));
  assert.ok(mods.size >= 10);
  assertWebOnly(mods);
});

// The smoke run: the same statements in Node 20 (bundle) and in Deno (module), same output.
const SMOKE = `
export async function smoke(l) {
  const c = l.c2sp, h = l.sha256Hasher;
  const secret = new Uint8Array(32).fill(7);
  const entries = Array.from({ length: 70000 }, (_, i) => new TextEncoder().encode("e" + i));
  const levels = c.buildTileLevels(h, entries.map((e) => h.leaf(e)));
  const size = 65537;
  const fetch = (t) => Promise.resolve(t.level === c.ENTRIES
    ? c.bundleBytes(entries, t.index, t.width) : c.tileBytes(levels, t).slice());
  const r0 = new c.TileHashReader(h, { size: 256, root: new Uint8Array(32) }, fetch);
  let code = null; try { await r0.checkRoot(); } catch (e) { code = e.code; }
  const top = l.referenceRoot(h, entries.slice(0, size).map((e) => h.leaf(e)));
  const root = await new c.TileHashReader(h, { size, root: top }, fetch).rootAt(size);
  const note = c.signCheckpoint({ origin: "example.org/p", size, root: top }, secret);
  const vkey = c.ed25519Vkey("example.org/p", secret);
  const opened = await c.openCheckpoint(note, vkey);
  const r = new c.TileHashReader(h, opened.checkpoint, fetch);
  const proof = await r.inclusionProof(40000);
  const bundle = await r.entries(156);
  return { code, root, note, vkey, proof: proof.map(c.toBase64), e: new TextDecoder().decode(bundle[64]),
    path: c.tilePath({ level: 0, index: 1234067, width: 3 }) };
}
`;

Deno.test("log/c2sp/mod.ts bundled for the browser platform runs unchanged in Node 20", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const b = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform=browser",
        new URL("../mod.ts", root).pathname,
        "-o",
        `${dir}/log.mjs`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(b.success, `deno bundle failed: ${new TextDecoder().decode(b.stderr)}`);
    await Deno.writeTextFile(`${dir}/smoke_lib.mjs`, SMOKE);
    await Deno.writeTextFile(
      `${dir}/main.mjs`,
      `const l = await import(process.argv[2]); const { smoke } = await import(process.argv[3]);
       const out = await smoke(l);
       out.root = l.c2sp.toBase64(out.root);
       console.log(JSON.stringify(out));`,
    );
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command("/usr/bin/node", {
        args: [`${dir}/main.mjs`, `${dir}/log.mjs`, `${dir}/smoke_lib.mjs`],
        stdout: "piped",
        stderr: "piped",
      }).output();
    } catch (e) {
      throw new Error(`Cannot run Node 20 at /usr/bin/node for the portability check: ${e}`);
    }
    assert.ok(out.success, `node failed: ${new TextDecoder().decode(out.stderr)}`);
    const node = JSON.parse(new TextDecoder().decode(out.stdout));
    const l = await import("../../../log/mod.ts");
    const { smoke } = await import(`file://${dir}/smoke_lib.mjs`);
    const here = await smoke(l);
    here.root = l.c2sp.toBase64(here.root);
    assert.deepEqual(node, here);
    assert.equal(node.code, "tile-root-mismatch");
    assert.equal(node.e, "e40000");
    assert.equal(node.path, "tile/0/x001/x234/067.p/3");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
