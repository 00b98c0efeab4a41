// C-TLOG vectors: regenerating them changes no byte; the TypeScript verifiers agree with every
// vector; the independent Python verifier (conformance/python/jcverify/tlog.py: b3sum, libsodium)
// agrees with every vector, and notices a vector whose expectation is wrong. A missing Debian
// package FAILS this test, naming the package.
import assert from "node:assert/strict";
import { generateTlogVectors } from "./gen.ts";
import {
  blake3Hasher,
  blake3Hasher as h,
  c2sp,
  checkTreeHead,
  sha256Hasher,
  verifyConsistency,
  verifyInclusion,
} from "../../log/mod.ts";
import { fromHex } from "../../verify/mod.ts";

const here = new URL("./", import.meta.url);
const PY = "/usr/bin/python3";
const pyDir = new URL("../python/", import.meta.url).pathname;
const fromBase64Local = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const hx = (s: string) => (/^([0-9a-f]{2})*$/.test(s) ? fromHex(s) : new Uint8Array(1));

Deno.test("C-TLOG: regenerating the vectors changes no byte", async () => {
  const files = await generateTlogVectors();
  assert.deepEqual(Object.keys(files).sort(), [
    "consistency.json",
    "heads.json",
    "inclusion.json",
    "roots.json",
    "tiles.json",
  ]);
  let total = 0;
  for (const [name, text] of Object.entries(files)) {
    const onDisk = await Deno.readTextFile(new URL(name, here));
    assert.ok(
      onDisk === text,
      `conformance/tlog/${name} differs from the generator's output: run deno task conformance:tlog`,
    );
    total += text.length;
  }
  assert.ok(total < 5_000_000, `vector files total ${total} bytes`);
});

Deno.test("C-TLOG tiles: every checkpoint opens (or is refused with its code), every tile proves", async () => {
  const doc = JSON.parse(await Deno.readTextFile(new URL("tiles.json", here)));
  let whole = 0;
  for (const v of doc.vectors) {
    let code = "ok";
    let opened: c2sp.OpenedCheckpoint | undefined;
    try {
      opened = await c2sp.openCheckpoint(v.checkpoint, doc.vkeys[v.view]);
    } catch (e) {
      code = (e as { code: string }).code;
    }
    assert.equal(code, v.want_err ? v.code : "ok", v.name);
    if (!opened) continue;
    assert.equal(opened.checkpoint.size, v.size, v.name);
    const vh = v.view === "blake3" ? blake3Hasher : sha256Hasher;
    const files = v.tiles as Record<string, { base64?: string; sha256?: string }>;
    const fetch = (t: c2sp.TileId) => {
      const f = files[c2sp.tilePath(t)];
      if (!f?.base64) return Promise.reject(new Error(`${c2sp.tilePath(t)} not given whole`));
      return Promise.resolve(c2sp.fromBase64(f.base64));
    };
    const r = new c2sp.TileHashReader(vh, opened.checkpoint, fetch);
    await r.checkRoot();
    // Every tile given whole is a tile of this size, checked against the signed root.
    for (const [path, f] of Object.entries(files)) {
      const t = c2sp.parseTilePath(path);
      assert.ok(c2sp.tileOfSize(v.size, t), `${v.name}: ${path}`);
      if (!f.base64) continue;
      whole++;
      if (t.level === c2sp.ENTRIES) await r.entries(t.index);
      else assert.deepEqual(await r.tile(t.level, t.index), c2sp.fromBase64(f.base64));
    }
    assert.equal(Object.keys(files).length, [...c2sp.newTiles(0, v.size)].length, v.name);
  }
  assert.ok(whole > 20);
});

Deno.test("C-TLOG: the TypeScript verifiers agree with every vector", async () => {
  const load = async (f: string) => JSON.parse(await Deno.readTextFile(new URL(f, here)));
  const incl = await load("inclusion.json");
  for (const v of incl.vectors) {
    const ok = verifyInclusion(h, v.index, v.size, hx(v.leaf_hash), v.proof.map(hx), hx(v.root));
    assert.equal(ok, !v.want_err, v.name);
  }
  const cons = await load("consistency.json");
  for (const v of cons.vectors) {
    const ok = verifyConsistency(h, v.size1, v.size2, v.proof.map(hx), hx(v.root1), hx(v.root2));
    assert.equal(ok, !v.want_err, v.name);
  }
  const heads = await load("heads.json");
  for (const v of heads.vectors) {
    const c = await checkTreeHead(v.head, heads.signer);
    assert.equal(c.ok, !v.want_err, v.name);
    if (!c.ok) assert.equal(c.code, v.code, v.name);
  }
  assert.ok(incl.vectors.length > 2000 && cons.vectors.length > 2000 && heads.vectors.length >= 15);
  assert.ok(incl.vectors.filter((v: { want_err: boolean }) => v.want_err).length > 1000);
});

async function py(args: string[], cwd = pyDir) {
  let o;
  try {
    o = await new Deno.Command(PY, {
      args,
      cwd,
      stdout: "piped",
      stderr: "piped",
      env: { PYTHONDONTWRITEBYTECODE: "1" },
    })
      .output();
  } catch (e) {
    throw new Error(
      `Cannot run the Python verifier: ${PY} is missing (install Debian package python3)`,
      { cause: e },
    );
  }
  return {
    code: o.code,
    out: new TextDecoder().decode(o.stdout),
    err: new TextDecoder().decode(o.stderr),
  };
}

Deno.test("C-TLOG: the independent Python verifier agrees with every vector", async () => {
  const r = await py(["-m", "jcverify", new URL(".", here).pathname]);
  assert.notEqual(r.code, 2, `Cannot run the Python verifier (missing Debian package): ${r.err}`);
  assert.equal(r.code, 0, r.err + r.out);
  let n = 0;
  for (
    const f of ["roots.json", "inclusion.json", "consistency.json", "heads.json", "tiles.json"]
  ) {
    n += JSON.parse(await Deno.readTextFile(new URL(f, here))).vectors.length;
  }
  assert.match(r.out, new RegExp(`checked ${n} vectors, 0 disagreements`));
});

Deno.test("C-TLOG: the Python verifier notices wrong expectations (it can fail)", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "jc-tlog-py-" });
  try {
    const heads = JSON.parse(await Deno.readTextFile(new URL("heads.json", here)));
    heads.vectors.find((v: { name: string }) => v.name === "head-refused-root-31-bytes").code =
      "head-bad-signature";
    heads.vectors[0].want_err = true; // a good head claimed refused
    const incl = JSON.parse(await Deno.readTextFile(new URL("inclusion.json", here)));
    incl.vectors = incl.vectors.slice(0, 50);
    incl.vectors[3].want_err = !incl.vectors[3].want_err;
    const roots = JSON.parse(await Deno.readTextFile(new URL("roots.json", here)));
    roots.vectors[9].root = roots.vectors[10].root;
    await Deno.writeTextFile(`${tmp}/heads.json`, JSON.stringify(heads));
    await Deno.writeTextFile(`${tmp}/inclusion.json`, JSON.stringify(incl));
    await Deno.writeTextFile(`${tmp}/roots.json`, JSON.stringify(roots));
    // Tiles: one whole tile of a good vector altered, one digest of a big one altered.
    const tiles = JSON.parse(await Deno.readTextFile(new URL("tiles.json", here)));
    const t257 = tiles.vectors.find((v: { name: string }) => v.name === "tiles-blake3-257");
    const b = fromBase64Local(t257.tiles["tile/0/000"].base64);
    b[100] ^= 1;
    t257.tiles["tile/0/000"].base64 = btoa(String.fromCharCode(...b));
    const big = tiles.vectors.find((v: { name: string }) => v.name === "tiles-sha256-65536");
    big.tiles["tile/0/100"].sha256 = "00".repeat(32);
    tiles.vectors = tiles.vectors.filter((v: { size: number }) =>
      !v.size || v.size <= 257 || v === big
    );
    await Deno.writeTextFile(`${tmp}/tiles.json`, JSON.stringify(tiles));
    const r = await py(["-m", "jcverify", tmp]);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /6 disagreements/);
    assert.match(r.err, /tiles-blake3-257/);
    assert.match(r.err, /tiles-sha256-65536/);
    assert.match(r.err, /head-refused-root-31-bytes/);
    assert.match(r.err, /root-9/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
