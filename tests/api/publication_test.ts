// The tiled publication over HTTP (API.md "Publication", PUBLICATION.md P1-P2): every malformed
// tile path gets its 404 code; random (size, level, index, width) agree with a naive reference of
// which tiles exist and what they hold, for both views and the bundles; checkpoints open under
// the published vkeys with the roots of both views; tlog-proofs verify; the log name is fixed.
import assert from "node:assert/strict";
import fc from "fast-check";
import { ENTRIES, openCheckpoint, parseBundle, verifyTlogProof } from "../../log/c2sp/mod.ts";
import {
  blake3Hasher,
  type Hasher,
  type Log,
  openMemoryLog,
  referenceRoot,
  sha256Hasher,
} from "../../log/mod.ts";
import { openSqliteLog } from "../../log/sqlite/mod.ts";
import { createApp, Metrics, resolveConfig, verifierOptions } from "../../api/mod.ts";
import { toHex } from "../../verify/mod.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const NAME = "log.example.org/jc";

function appOver(log: Log) {
  const config = resolveConfig({ JC_RATE_READ: "0", JC_RATE_WRITE: "0" });
  return createApp({ log, config, verifier: verifierOptions(config), metrics: new Metrics() });
}

async function get(app: ReturnType<typeof appOver>, path: string) {
  const r = await app.request(`http://localhost${path}`);
  const body = new Uint8Array(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, body, text: new TextDecoder().decode(body) };
}

const codeOf = (text: string) => JSON.parse(text).code as string;

Deno.test("publication: every malformed tile path is a 404 with its stable code, never an alias", async () => {
  const log = await openMemoryLog({ batchAgeMs: 1, logName: NAME });
  await Promise.all(Array.from({ length: 300 }, (_, i) => log.append(enc(`e${i}`))));
  const app = appOver(log);
  const cases: [string, string][] = [
    ["tile/0/0", "tile-path-bad-index"], // not 3 digits
    ["tile/0/0000", "tile-path-bad-index"],
    ["tile/0/x000/001", "tile-path-bad-index"], // a leading x000 group spells 1 twice
    ["tile/0/001/000", "tile-path-bad-index"], // all but the last group need an x
    ["tile/0/x001", "tile-path-bad-index"], // the last group has no x
    ["tile/0/%30%30%30", "tile-path-bad-index"], // percent-encoded digits
    ["tile/0/+01", "tile-path-bad-index"],
    ["tile/00/000", "tile-path-bad-level"], // leading zero
    ["tile/64/000", "tile-path-bad-level"],
    ["tile/-1/000", "tile-path-bad-level"],
    ["tile/a/000", "tile-path-bad-level"],
    ["tile/8/0/000", "tile-path-bad-index"], // Go x/mod's own (height-prefixed) form
    ["tile/0/001.p/0", "tile-path-bad-width"],
    ["tile/0/001.p/256", "tile-path-bad-width"],
    ["tile/0/001.p/044", "tile-path-bad-width"],
    ["tile/0/001.p/", "tile-path-bad-width"],
    ["tile/0/001.p", "tile-path-malformed"],
    ["tile/0/001.p/4x", "tile-path-bad-width"],
    ["tile/entries/001.p/0", "tile-path-bad-width"],
    ["tile/entries/1", "tile-path-bad-index"],
    ["tile/0/001", "tile-beyond-width"], // partial (44 hashes) asked as full
    ["tile/0/001.p/45", "tile-beyond-width"],
    ["tile/0/002", "tile-beyond-tree"],
    ["tile/0/002.p/1", "tile-beyond-tree"],
    ["tile/1/000", "tile-beyond-width"],
    ["tile/1/000.p/2", "tile-beyond-width"],
    ["tile/2/000.p/1", "tile-beyond-tree"], // an empty tile
    ["tile/63/000.p/1", "tile-beyond-tree"],
    ["tile/entries/002.p/1", "tile-beyond-tree"],
    ["tile/entries/001", "tile-beyond-width"],
  ];
  for (const view of ["blake3", "sha256"]) {
    for (const [path, code] of cases) {
      const r = await get(app, `/log/${view}/${path}`);
      assert.equal(r.status, 404, `${view} ${path}`);
      assert.equal(r.headers.get("content-type"), "application/problem+json", path);
      assert.equal(codeOf(r.text), code, `${view} ${path}`);
    }
    // The canonical spellings of the same tiles answer.
    for (const ok of ["tile/0/000", "tile/0/001.p/44", "tile/0/001.p/1", "tile/1/000.p/1"]) {
      assert.equal((await get(app, `/log/${view}/${ok}`)).status, 200, ok);
    }
  }
  assert.equal(codeOf((await get(app, "/log/md5/tile/0/000")).text), "unknown-view");
  assert.equal(codeOf((await get(app, "/log/md5/checkpoint")).text), "unknown-view");
  await log.close();
});

/** Naive reference: the hashes of tree level 8·L of a tree of `n` leaves (RFC 6962 MTH). */
class Reference {
  readonly leaves: Uint8Array[] = [];
  readonly #memo = new Map<string, Uint8Array>();
  constructor(readonly h: Hasher) {}
  count(n: number, level: number): number {
    let c = n;
    for (let l = 0; l < level; l++) c = Math.floor(c / 256);
    return c;
  }
  hash(level: number, i: number): Uint8Array {
    if (level === 0) return this.leaves[i];
    const k = `${level}/${i}`;
    let x = this.#memo.get(k);
    if (!x) {
      const span = 256 ** level;
      x = referenceRoot(this.h, this.leaves.slice(i * span, (i + 1) * span));
      this.#memo.set(k, x);
    }
    return x;
  }
  /** The tile's bytes, or undefined when the tree of `n` has no such tile (or no such width). */
  tile(n: number, level: number, index: number, width: number): Uint8Array | undefined {
    if (width < 1 || width > 256) return undefined;
    if (index * 256 + width > this.count(n, level)) return undefined;
    const out = new Uint8Array(width * 32);
    for (let k = 0; k < width; k++) out.set(this.hash(level, index * 256 + k), k * 32);
    return out;
  }
}

function path(level: number, index: number, width: number): string {
  let s = String(index % 1000).padStart(3, "0");
  for (let r = Math.floor(index / 1000); r > 0; r = Math.floor(r / 1000)) {
    s = `x${String(r % 1000).padStart(3, "0")}/${s}`;
  }
  const l = level === ENTRIES ? "entries" : String(level);
  return `tile/${l}/${s}${width === 256 ? "" : `.p/${width}`}`;
}

Deno.test("publication property: served tiles and bundles agree with a naive reference at every size", async () => {
  const log = await openMemoryLog({ batchAgeMs: 1, batchMax: 4096, logName: NAME });
  const app = appOver(log);
  const refs = { blake3: new Reference(blake3Hasher), sha256: new Reference(sha256Hasher) };
  const entries: Uint8Array[] = [];
  const grow = async (to: number) => {
    const batch: Promise<unknown>[] = [];
    for (let i = entries.length; i < to; i++) {
      const e = enc(`entry ${i} ${"z".repeat(i % 13)}`);
      entries.push(e);
      refs.blake3.leaves.push(blake3Hasher.leaf(e));
      refs.sha256.leaves.push(sha256Hasher.leaf(e));
      batch.push(log.append(e));
    }
    await Promise.all(batch);
  };
  for (const size of [1, 255, 256, 257, 511, 4_000, 65_535, 65_536, 65_537, 66_000]) {
    await grow(size);
    const n = (await log.latestHead()).size;
    assert.equal(n, size);
    // Random (level, index, width), biased to the interesting edges, through the HTTP route.
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<"blake3" | "sha256">("blake3", "sha256"),
        fc.integer({ min: -1, max: 3 }),
        fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 300 })),
        fc.oneof(fc.constant(256), fc.integer({ min: 1, max: 255 }), fc.constant(1)),
        async (view, level, index, width) => {
          const r = await get(app, `/log/${view}/${path(level, index, width)}`);
          if (level === ENTRIES) {
            const exists = width >= 1 && index * 256 + width <= n;
            assert.equal(r.status, exists ? 200 : 404, `bundle ${index}.${width} at ${n}`);
            if (exists) {
              const got = parseBundle(r.body, width);
              assert.deepEqual(
                got.map(toHex),
                entries.slice(index * 256, index * 256 + width).map(toHex),
              );
            }
            return;
          }
          const want = refs[view].tile(n, level, index, width);
          assert.equal(r.status, want ? 200 : 404, `${view} ${level}/${index}.${width} at ${n}`);
          if (want) {
            assert.equal(toHex(r.body), toHex(want), `${view} ${level}/${index}.${width}`);
            assert.equal(r.headers.get("cache-control"), "public, max-age=31536000, immutable");
            assert.equal(r.headers.get("content-type"), "application/octet-stream");
          } else {
            assert.match(codeOf(r.text), /^tile-beyond-(tree|width)$/);
          }
        },
      ),
      { numRuns: 60 },
    );
    // Every tile of the right edge, exactly (the ones a client needs for this checkpoint).
    for (const view of ["blake3", "sha256"] as const) {
      for (let level = 0; refs[view].count(n, level) > 0; level++) {
        const c = refs[view].count(n, level);
        const index = Math.floor(c / 256);
        const width = c % 256;
        if (width === 0) continue;
        const r = await get(app, `/log/${view}/${path(level, index, width)}`);
        assert.equal(r.status, 200);
        assert.equal(toHex(r.body), toHex(refs[view].tile(n, level, index, width)!));
      }
    }
  }
  await log.close();
});

Deno.test("publication: checkpoints open under the published vkeys, with both views' roots; tlog-proofs verify", async () => {
  const log = await openMemoryLog({ batchAgeMs: 1, logName: NAME });
  const entries = Array.from({ length: 700 }, (_, i) => enc(`cp ${i}`));
  await Promise.all(entries.map((e) => log.append(e)));
  const app = appOver(log);
  const key = JSON.parse((await get(app, "/v1/log/key")).text);
  assert.equal(key.log_name, NAME);
  assert.match(key.vkeys.blake3, /^log\.example\.org\/jc\/blake3\+[0-9a-f]{8}\+/);
  assert.match(key.vkeys.sha256, /^log\.example\.org\/jc\/sha256\+[0-9a-f]{8}\+/);
  const head = await log.latestHead();
  for (const view of ["blake3", "sha256"] as const) {
    const r = await get(app, `/log/${view}/checkpoint`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(r.headers.get("cache-control"), "no-cache");
    const { checkpoint } = await openCheckpoint(r.text, key.vkeys[view]);
    assert.equal(checkpoint.origin, `${NAME}/${view}`);
    assert.equal(checkpoint.size, 700);
    const h = view === "blake3" ? blake3Hasher : sha256Hasher;
    assert.equal(toHex(checkpoint.root), toHex(referenceRoot(h, entries.map((e) => h.leaf(e)))));
    if (view === "blake3") assert.equal(toHex(checkpoint.root), head.root); // same as §22.2
    // The other view's vkey does not open it (its origin and key ID differ).
    const other = view === "blake3" ? "sha256" : "blake3";
    await assert.rejects(openCheckpoint(r.text, key.vkeys[other]));
    for (const index of [0, 255, 256, 699]) {
      const p = await get(app, `/v1/log/proof/tlog-proof?index=${index}&view=${view}`);
      assert.equal(p.status, 200, p.text);
      const v = await verifyTlogProof(p.text, {
        logKeys: [key.vkeys[view]],
        hasher: h,
        leafHash: h.leaf(entries[index]),
      });
      assert.equal(v.index, index);
      assert.equal(v.checkpoint.size, 700);
      // ... and fails for another entry's leaf hash.
      await assert.rejects(
        verifyTlogProof(p.text, {
          logKeys: [key.vkeys[view]],
          hasher: h,
          leafHash: h.leaf(entries[(index + 1) % 700]),
        }),
      );
    }
    const byLeaf = await get(
      app,
      `/v1/log/proof/tlog-proof?leaf_hash=${toHex(blake3Hasher.leaf(entries[42]))}&view=${view}`,
    );
    assert.match(byLeaf.text, /\nindex 42\n/);
  }
  const bad = await get(app, "/v1/log/proof/tlog-proof?index=700");
  assert.equal(bad.status, 400);
  assert.equal((await get(app, "/v1/log/proof/tlog-proof?index=1&view=md5")).status, 400);
  await log.close();
});

Deno.test("log name: bound to the data directory on first start; another one is refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-logname-" });
  const secretKey = new Uint8Array(32).fill(9);
  try {
    let log = await openSqliteLog({ dir, secretKey, logName: NAME });
    assert.equal(log.logName(), NAME);
    await log.close();
    await assert.rejects(
      openSqliteLog({ dir, secretKey, logName: "other.example/jc" }),
      (e: Error & { code?: string }) =>
        e.code === "log-name-changed" && e.message.includes(NAME) &&
        e.message.includes("JC_LOG_NAME"),
    );
    log = await openSqliteLog({ dir, secretKey }); // unset: the bound name
    assert.equal(log.logName(), NAME);
    await log.close();
    await assert.rejects(
      openSqliteLog({ dir: `${dir}/b`, secretKey, logName: "bad name" }),
      (e: Error & { code?: string }) => e.code === "bad-log-name",
    );
    // A fresh directory without a configured name gets the default, derived from the key.
    log = await openSqliteLog({ dir: `${dir}/c`, secretKey });
    assert.match(log.logName(), /^jouleclaw\.invalid\/[0-9a-f]{16}$/);
    await log.close();
    assert.throws(() => resolveConfig({ JC_LOG_NAME: "a+b" }), /log_name/);
    assert.equal(resolveConfig({ JC_LOG_NAME: NAME }).logName, NAME);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
