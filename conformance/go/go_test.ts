// Go's x/mod (an independent implementation of signed notes and tiled logs) checks the SHA-256
// view of static logs built by log/c2sp over real HTTP (python3 -m http.server): the checkpoint's
// signature with the published vkey, every tile through tlog.TileHashReader, every record read
// from the bundles (tlog.ProveRecord/CheckRecord) and consistency from older checkpoints
// (tlog.ProveTree/CheckTree). It also agrees with log/c2sp on which tiles are new between sizes.
// A corrupted tile, bundle, key or forked older checkpoint makes it fail.
import assert from "node:assert/strict";
import fc from "fast-check";
import { c2sp } from "../../log/mod.ts";
import { runTlogcheck } from "./tlogcheck.ts";
import {
  entryOf,
  serveDir,
  STATIC_SECRET,
  staticLog,
  vkeyOf,
  writeFiles,
} from "../../tests/publication/_static.ts";

const SIZES = [1, 255, 256, 257, 511, 65_537];

Deno.test("Go x/mod: verifies the SHA-256 view of static logs around tile edges", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-go-" });
  try {
    for (const n of SIZES) {
      const sizes = [...new Set([1, Math.ceil(n / 3), n - 1, n].filter((s) => s >= 1))];
      const files = staticLog(n, sizes);
      const root = `${dir}/${n}`;
      await writeFiles(root, files);
      // Older checkpoints of the same log, to check consistency from.
      const olds: string[] = [];
      for (const s of sizes.slice(0, -1)) {
        const f = `${root}/old-${s}`;
        await Deno.writeFile(f, staticLog(s).get("log/sha256/checkpoint")!);
        olds.push("-old", f);
      }
      const srv = await serveDir(root);
      try {
        const r = await runTlogcheck([
          "-url",
          `${srv.url}/log/sha256`,
          "-vkey",
          vkeyOf("sha256"),
          "-records",
          n > 1000 ? "600" : "all",
          ...olds,
        ]);
        assert.equal(r.error, undefined, `size ${n}: ${r.error}`);
        assert.ok(r.ok);
        assert.equal(r.size, n);
        assert.equal(r.records, n > 1000 ? 600 : n);
        assert.equal(r.consistent, sizes.length - 1);
      } finally {
        await srv.close();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Go x/mod: fails on a corrupted tile, bundle, wrong key, forked old checkpoint", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-go-bad-" });
  const n = 700;
  const good = staticLog(n);
  const run = async (files: Map<string, Uint8Array>, vkey = vkeyOf("sha256"), old?: Uint8Array) => {
    const root = await Deno.makeTempDir({ dir });
    await writeFiles(root, files);
    const args = ["-records", "all"];
    if (old) {
      await Deno.writeFile(`${root}/old`, old);
      args.push("-old", `${root}/old`);
    }
    const srv = await serveDir(root);
    try {
      return await runTlogcheck(["-url", `${srv.url}/log/sha256`, "-vkey", vkey, ...args]);
    } finally {
      await srv.close();
    }
  };
  const flip = (path: string, at: number) => {
    const m = new Map(good);
    const b = m.get(path)!.slice();
    b[at % b.length] ^= 0x10;
    m.set(path, b);
    return m;
  };
  try {
    assert.equal((await run(good)).ok, true);
    for (
      const [what, files] of [
        ["level-0 tile", flip("log/sha256/tile/0/001", 77)],
        ["partial level-0 tile", flip("log/sha256/tile/0/002.p/188", 5)],
        ["level-1 tile", flip("log/sha256/tile/1/000.p/2", 40)],
        ["bundle", flip("log/sha256/tile/entries/000", 300)],
      ] as const
    ) {
      const r = await run(files);
      assert.equal(r.ok, false, `a corrupted ${what} passed`);
    }
    const other = c2sp.ed25519Vkey("static.example/jc/sha256", new Uint8Array(32).fill(9));
    assert.match((await run(good, other)).error ?? "", /note\.Open|verif/i);
    // An old checkpoint of another log history at size 300 (entry 5 differs): a fork.
    const forked = Array.from(
      { length: 300 },
      (_, i) => (i === 5 ? new Uint8Array([1]) : entryOf(i)),
    );
    const old = staticLog(300, undefined, STATIC_SECRET, forked).get("log/sha256/checkpoint")!;
    assert.match((await run(good, undefined, old)).error ?? "", /CheckTree/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Go x/mod: tlog.NewTiles agrees with log/c2sp's newTiles for random sizes", async () => {
  const pairs = fc.sample(
    fc.tuple(fc.integer({ min: 0, max: 200_000 }), fc.integer({ min: 0, max: 200_000 })),
    { numRuns: 12, seed: 42 },
  ).map(([a, b]) => (a <= b ? [a, b] : [b, a]));
  pairs.push([0, 256], [255, 257], [65_535, 65_537], [0, 16_777_217]);
  for (const [a, b] of pairs) {
    const all = (await runTlogcheck(["-newtiles", `${a},${b}`])).tiles!;
    // x/mod (the Go sumdb's convention) lists every partial width between the two sizes, the old
    // one included; C2SP logs publish the partial tiles of the sizes they checkpoint: compare the
    // full tiles and, per level, the widest partial one when it is new.
    const widest = new Map<string, string>();
    const go: string[] = [];
    for (const p of all) {
      const m = /^(tile\/\d+\/[x0-9/]+)\.p\/(\d+)$/.exec(p);
      if (!m) go.push(p);
      else if (Number(m[2]) > Number(/\.p\/(\d+)$/.exec(widest.get(m[1]) ?? ".p/0")![1])) {
        widest.set(m[1], p);
      }
    }
    for (const p of widest.values()) {
      const t = c2sp.parseTilePath(p);
      if (c2sp.tileWidthAt(a, t.level, t.index) !== t.width) go.push(p);
    }
    go.sort();
    // x/mod's NewTiles names hash tiles only (no data tiles).
    const ts = [...c2sp.newTiles(a, b, false)].map(c2sp.tilePath).sort();
    assert.deepEqual(ts, go, `${a} → ${b}`);
  }
});
