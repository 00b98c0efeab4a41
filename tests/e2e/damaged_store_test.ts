// A damaged page in a real store (issue 27): a log of 5,000 entries is written to a real SQLite
// file, closed, and pages in the middle of it are damaged — one zeroed in the entries table (SQLite
// answers "database disk image is malformed"), one whose rows vanish without an error (its b-tree
// cell count cut), one zeroed in the SHA-256 view's level-0 tile groups, one in the BLAKE3 view's
// level-4 nodes (stored level 1: what proofs read). The real service (`deno task start`) then
// starts (the quick check at open reads both ends of the tree, not the middle; the BLAKE3 level-0
// tiles of the newest 65,536 entries are read at open, to rebuild the leaf index's tail) and answers
// every read inside the signed size that needs a damaged page with 503 `storage-unavailable`
// (problem+json, Retry-After), never 404 and never a bare 500; beyond the size it is 404 as
// before; /healthz is degraded (`storage-read`), the metric counts the faults, and the process
// stays up: other entries, tiles and proofs are served and appends go on. A damaged page at the
// tree's right edge stops the start instead (`log-integrity`, naming fsck and the restore).
import assert from "node:assert/strict";
import { join } from "node:path";
import { startService } from "../../fixtures/service.ts";
import { validEnvelope } from "../../fixtures/app.ts";
import { openSqliteLog } from "../../log/sqlite/mod.ts";
import { blake3Hasher, sha256Hasher } from "../../log/mod.ts";
import { dropRows, pageHolding, tablePages, zeroPage } from "../_sqlite_pages.ts";
import { ROOT } from "../../fixtures/service.ts";

const N = 5000;

/** A data directory holding a closed log of N entries (validEnvelope(0..N-1)). */
async function filledDir(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "jc-damaged-" });
  // the leaf index written with every batch: the service's open then reads no level-0 tile to
  // rebuild its tail (docs/STORAGE.md "Lagging leaf index"), and the damaged ones stay unread
  const log = await openSqliteLog({ dir, batchAgeMs: 1, leafIndexLag: 0 });
  const all = [];
  for (let i = 0; i < N; i++) all.push(log.append(validEnvelope(i)));
  await Promise.all(all);
  await log.close(); // checkpoints the WAL into log.sqlite
  return dir;
}

/** Damages the pages of `dir`'s store that hold `targets` (bytes → how), each a different page. */
async function damage(
  dir: string,
  targets: { table: string; bytes: Uint8Array; how: "zero" | "drop-rows" }[],
): Promise<number[]> {
  const path = join(dir, "log.sqlite");
  const file = await Deno.readFile(path);
  const pages = targets.map((t) => pageHolding(file, t.bytes, tablePages(path, t.table)));
  assert.ok(pages.every((p) => p > 0), `pages found: ${pages}`);
  assert.equal(new Set(pages).size, pages.length, `distinct pages: ${pages}`);
  targets.forEach((t, k) => t.how === "zero" ? zeroPage(file, pages[k]) : dropRows(file, pages[k]));
  await Deno.writeFile(path, file);
  return pages;
}

async function problemOf(r: Response, status: number, code: string, what: string) {
  const text = await r.text();
  assert.equal(r.status, status, `${what}: ${r.status} ${text}`);
  assert.equal(r.headers.get("content-type"), "application/problem+json", what);
  const body = JSON.parse(text);
  assert.equal(body.code, code, what);
  if (status === 503) assert.ok(Number(r.headers.get("retry-after")) >= 1, `${what}: Retry-After`);
  return body;
}

Deno.test({
  name:
    "damaged store: reads inside the signed size are 503 storage-unavailable, /healthz degraded",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await filledDir();
    const leaf = (h: typeof blake3Hasher) => h.leaf(validEnvelope(4097));
    const pages = await damage(dir, [
      { table: "entries", bytes: validEnvelope(1000), how: "zero" }, // SQLITE_CORRUPT
      { table: "entries", bytes: validEnvelope(2500), how: "drop-rows" }, // rows silently gone
      // the page with the group of level-0 tiles 256..271 (leaves 4096..4351), both views
      { table: "tile_groups", bytes: leaf(blake3Hasher), how: "zero" },
      { table: "tile_groups256", bytes: leaf(sha256Hasher), how: "zero" },
    ]);
    const svc = await startService({ DATA_DIR: dir, JC_BATCH_AGE_MS: "2" });
    const get = (path: string, accept?: string) =>
      fetch(svc.url + path, accept ? { headers: { accept } } : undefined);
    try {
      const t0 = performance.now();
      // nothing read yet: healthy
      assert.equal((await get("/healthz")).status, 200);
      const inside = [
        "/v1/log/entries/1000",
        "/v1/log/entries/2500",
        "/v1/log/entries?start=2490&limit=20",
        "/log/blake3/tile/entries/009", // entries 2304..2559
        "/log/blake3/tile/entries/003", // entries 768..1023
        "/log/blake3/tile/0/016", // leaves 4096..4351
        "/log/blake3/tile/0/016", // again: the fast lane, then the router
        "/log/sha256/tile/0/016",
        "/v1/log/proof/inclusion?index=4097&size=5000",
        "/v1/log/proof/consistency?first=4098&second=5000",
      ];
      for (const path of inside) {
        const b = await problemOf(await get(path), 503, "storage-unavailable", path);
        assert.match(b.detail, /store failed/, path);
      }
      await problemOf(
        await get("/v1/log/entries/2500", "text/turtle"),
        503,
        "storage-unavailable",
        "the entry's RDF view",
      );
      // beyond the signed size: absent, as before
      await problemOf(await get("/v1/log/entries/5000"), 404, "not-found", "entry 5000");
      await problemOf(await get("/log/blake3/tile/0/020"), 404, "tile-beyond-tree", "tile 0/020");
      await problemOf(await get("/log/blake3/tile/entries/020"), 404, "tile-beyond-tree", "b 20");
      // health: degraded, the failing check named
      const hz = await problemOf(await get("/healthz"), 503, "storage-unavailable", "/healthz");
      assert.equal(hz.health, "degraded");
      assert.equal(hz.failing, "storage-read");
      const metrics = await (await get("/metrics")).text();
      const faults = Number(/^jc_storage_read_faults_total (\d+)$/m.exec(metrics)?.[1]);
      assert.ok(faults >= inside.length, `jc_storage_read_faults_total ${faults}`);
      // the process stays up: the rest is served, appends go on
      const served = [
        "/v1/log/entries/10",
        "/v1/log/entries/4999",
        "/log/blake3/tile/0/000",
        "/log/sha256/tile/0/000",
        "/v1/log/proof/inclusion?index=4999&size=5000",
        "/v1/log/proof/consistency?first=4990&second=5000",
      ];
      for (const path of served) {
        const r = await get(path);
        assert.equal(r.status, 200, path);
        await r.body?.cancel();
      }
      const added = await fetch(svc.url + "/v1/log/entries", {
        method: "POST",
        headers: { "content-type": "application/cose" },
        body: validEnvelope(N),
      });
      assert.equal(added.status, 201, await added.text());
      assert.equal((await get("/v1/log/entries/5000")).status, 200);
      assert.equal((await get("/v1/log/tree-head")).status, 200);
      // still degraded: the damaged pages are still damaged
      const again = await problemOf(await get("/healthz"), 503, "storage-unavailable", "later");
      assert.equal(again.failing, "storage-read");
      console.log(
        `damaged pages ${pages.join(", ")}: ${inside.length} reads answered 503 and the rest ` +
          `served in ${(performance.now() - t0).toFixed(0)} ms; faults counted ${faults}`,
      );
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("damaged store: a damaged page at the tree's right edge stops the start (log-integrity)", async () => {
  const dir = await filledDir();
  try {
    await damage(dir, [{ table: "entries", bytes: validEnvelope(N - 1), how: "zero" }]);
    const o = await new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "start"],
      cwd: ROOT,
      env: { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dir, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(o.stderr);
    assert.equal(o.code, 1, err);
    assert.match(err, /is damaged \(.*malformed.*\); the log refuses to serve or sign/);
    assert.match(err, /deno task fsck/);
    assert.equal(new TextDecoder().decode(o.stdout), "", "never listened");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
