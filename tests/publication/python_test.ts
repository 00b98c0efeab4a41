// The independent Python verifier (conformance/python/jcverify/tiles.py: b3sum, libsodium, its own
// C2SP parsing) checks the BLAKE3 view of static logs built by log/c2sp over real HTTP
// (python3 -m http.server): checkpoint signature, every tile, records from bundles, inclusion and
// consistency. A corrupted tile, bundle, key or forked older checkpoint makes it fail. A missing
// Debian package FAILS this test (exit 2 names it).
import assert from "node:assert/strict";
import { pyCheck } from "./_python.ts";
import { c2sp } from "../../log/mod.ts";
import { entryOf, serveDir, STATIC_SECRET, staticLog, vkeyOf, writeFiles } from "./_static.ts";

/** Serves several logs at once, one per folder: `f(urlOf(name), dirOf(name))`. */
async function withLogs<T>(
  logs: Record<string, Map<string, Uint8Array>>,
  f: (url: (name: string) => string, dir: string) => Promise<T>,
) {
  const dir = await Deno.makeTempDir({ prefix: "jc-py-" });
  for (const [name, files] of Object.entries(logs)) await writeFiles(`${dir}/${name}`, files);
  const srv = await serveDir(dir);
  try {
    return await f((name) => `${srv.url}/${name}/log/blake3`, dir);
  } finally {
    await srv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("Python jcverify.tiles: verifies the BLAKE3 view around tile edges", async () => {
  const NS = [1, 255, 256, 257, 1500];
  const sizesOf = (n: number) => [...new Set([1, Math.ceil(n / 2), n])];
  const logs = Object.fromEntries(NS.map((n) => [`s${n}`, staticLog(n, sizesOf(n))]));
  await withLogs(logs, async (url, dir) => {
    await Promise.all(NS.map(async (n) => {
      const sizes = sizesOf(n);
      const olds: string[] = [];
      for (const s of sizes.slice(0, -1)) {
        await Deno.writeFile(`${dir}/old-${n}-${s}`, staticLog(s).get("log/blake3/checkpoint")!);
        olds.push("--old", `${dir}/old-${n}-${s}`);
      }
      const r = await pyCheck(url(`s${n}`), vkeyOf("blake3"), [
        "--records",
        n > 600 ? "40" : "all",
        ...olds,
      ]);
      assert.equal(r.error, undefined, `size ${n}: ${r.error}`);
      assert.equal(r.size, n);
      assert.equal(r.consistent, sizes.length - 1);
    }));
  });
});

Deno.test("Python jcverify.tiles: fails on a corrupted tile or bundle, a wrong key, a fork", async () => {
  const n = 600;
  const good = staticLog(n);
  const flip = (path: string, at: number) => {
    const m = new Map(good);
    const b = m.get(path)!.slice();
    b[at % b.length] ^= 0x04;
    m.set(path, b);
    return m;
  };
  const corrupt = [
    "log/blake3/tile/0/000",
    "log/blake3/tile/0/002.p/88",
    "log/blake3/tile/1/000.p/2",
    "log/blake3/tile/entries/001",
  ];
  // The SHA-256 view's tiles under the BLAKE3 prefix: the hash does not match the signed root.
  const swapped = new Map(good);
  for (const [k, v] of good) {
    if (k.startsWith("log/sha256/tile/") && !k.includes("entries")) {
      swapped.set(k.replace("sha256", "blake3"), v);
    }
  }
  const logs: Record<string, Map<string, Uint8Array>> = { good, swapped };
  corrupt.forEach((p, i) => logs[`bad${i}`] = flip(p, 1000));
  const forked = Array.from(
    { length: 300 },
    (_, i) => (i === 7 ? new Uint8Array([2]) : entryOf(i)),
  );
  const old = staticLog(300, undefined, STATIC_SECRET, forked).get("log/blake3/checkpoint")!;
  await withLogs(logs, async (url, dir) => {
    assert.equal((await pyCheck(url("good"), vkeyOf("blake3"))).ok, true);
    await Promise.all(corrupt.map(async (p, i) => {
      const r = await pyCheck(url(`bad${i}`), vkeyOf("blake3"));
      assert.equal(r.ok, false, `corrupted ${p} passed`);
    }));
    const other = c2sp.ed25519Vkey("static.example/jc/blake3", new Uint8Array(32).fill(3));
    assert.equal((await pyCheck(url("good"), other)).ok, false);
    assert.equal((await pyCheck(url("swapped"), vkeyOf("blake3"))).ok, false);
    await Deno.writeFile(`${dir}/old`, old);
    const r = await pyCheck(url("good"), vkeyOf("blake3"), ["--old", `${dir}/old`]);
    assert.match(r.error ?? "", /fork/);
  });
});
