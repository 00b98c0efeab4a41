// Migration on open (docs/STORAGE.md "Migration"): a data directory written by the schema-2 code
// (tests/log/fixtures/schema2, made by the code before the SHA-256 view; key 0x07 × 32) opens
// with this build: the schema goes to the current one, the SHA-256 view is rebuilt from the
// entries (tiles and every head's root), nothing of the BLAKE3 view changes, fsck is clean,
// appends go on. One written by the schema-3 code (tests/log/fixtures/schema3: 4,200 entries
// `schema-3 fixture entry <i>`, key 0x07 × 32, made at d95091c through openSqliteLog, batches ending at 1, 256, 300, 4,096 and 4,200) has its
// full tile groups moved to one row each (docs/STORAGE.md "Tile groups") and reads the same.
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { fsckLog, referenceRoot, sha256Hasher } from "../../log/mod.ts";
import { openSqliteLog, openSqliteStorage, SQLITE_SCHEMA_VERSION } from "../../log/sqlite/mod.ts";
import { toHex } from "../../verify/mod.ts";

const FIXTURE = new URL("./fixtures/schema2/log.sqlite", import.meta.url).pathname;
const SECRET = new Uint8Array(32).fill(7);
// The fixture's latest head as the schema-2 code signed it.
const ROOT_600 = "4318cb65e95b17ec9fff9e498cd539d950d59d0c181a32b533c8969503e60cdc";

Deno.test("a schema-2 data directory is migrated on open: SHA-256 view rebuilt, BLAKE3 untouched", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-migrate-" });
  try {
    await Deno.copyFile(FIXTURE, `${dir}/log.sqlite`);
    let db = new DatabaseSync(`${dir}/log.sqlite`);
    const before = db.prepare("SELECT size, root, ts, sig FROM heads ORDER BY size").all();
    assert.equal(
      (db.prepare("SELECT v FROM meta WHERE k = 'schema'").get() as { v: string }).v,
      "2",
    );
    db.close();
    const log = await openSqliteLog({ dir, secretKey: SECRET });
    const head = await log.latestHead();
    assert.equal(head.size, 600);
    assert.equal(head.root, ROOT_600);
    await log.close();
    db = new DatabaseSync(`${dir}/log.sqlite`);
    assert.equal(
      (db.prepare("SELECT v FROM meta WHERE k = 'schema'").get() as { v: string }).v,
      SQLITE_SCHEMA_VERSION,
    );
    // 600 leaves: two full groups of level-0 tiles per view, each one row (schema 4)
    for (const table of ["tile_groups", "tile_groups256"]) {
      const ids = db.prepare(`SELECT id FROM ${table} ORDER BY id`).all().map((r) => r.id);
      assert.deepEqual(ids, [0, 1], table);
    }
    assert.deepEqual(
      db.prepare("SELECT size, root, ts, sig FROM heads ORDER BY size").all(),
      before,
    );
    db.close();
    const s = openSqliteStorage(`${dir}/log.sqlite`);
    try {
      const entries = await s.entries(0, 1000);
      assert.equal(entries.length, 600);
      const heads = await s.heads(0, 100);
      assert.deepEqual(heads.map((h) => h.size), [0, 1, 256, 300, 600]);
      for (const h of heads) {
        const want = referenceRoot(sha256Hasher, entries.slice(0, h.size).map(sha256Hasher.leaf));
        assert.equal(toHex(h.sha256Root!), toHex(want), `SHA-256 root at ${h.size}`);
      }
      const report = await fsckLog(s, log.publicKey());
      assert.deepEqual(report.problems, []);
    } finally {
      await s.close();
    }
    // Reopened again: nothing to migrate; appends go on in both views.
    const again = await openSqliteLog({ dir, secretKey: SECRET });
    assert.equal((await again.append(new TextEncoder().encode("after migration"))).index, 600);
    const fifth = await again.entry(5);
    assert.equal((await again.append(fifth!)).index, 5);
    assert.equal((await again.append(fifth!)).created, false);
    await again.close();
    const s2 = openSqliteStorage(`${dir}/log.sqlite`);
    assert.deepEqual((await fsckLog(s2, again.publicKey())).problems, []);
    await s2.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const ROOT_4200 = "677f5e0a9b665475fe53ef897a341ec5f2405dbdfe720182acdd9015d0a9a875";

Deno.test("a schema-3 data directory is migrated on open: full tile groups become one row each, every tile reads the same", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-migrate3-" });
  try {
    await Deno.copyFile(
      new URL("./fixtures/schema3/log.sqlite", import.meta.url).pathname,
      `${dir}/log.sqlite`,
    );
    let db = new DatabaseSync(`${dir}/log.sqlite`);
    const schema = () =>
      (db.prepare("SELECT v FROM meta WHERE k = 'schema'").get() as { v: string }).v;
    assert.equal(schema(), "3");
    const heads = db.prepare("SELECT * FROM heads ORDER BY size").all();
    // every tile of both views as schema 3 stored it: id = level·2^48 + index
    const before = new Map<string, Map<number, string>>();
    for (const [view, table] of [["blake3", "tiles"], ["sha256", "tiles256"]]) {
      const rows = db.prepare(`SELECT id, hashes FROM ${table}`).all();
      before.set(view, new Map(rows.map((r) => [r.id as number, toHex(r.hashes as Uint8Array)])));
    }
    assert.equal(before.get("blake3")!.size, 282);
    db.close();
    const log = await openSqliteLog({ dir, secretKey: SECRET });
    assert.equal((await log.latestHead()).root, ROOT_4200);
    // published full tiles: one group row each, the same bytes as the 16 tiles they replace
    for (const view of ["blake3", "sha256"] as const) {
      for (const index of [0, 7, 15]) {
        const want = Array.from(
          { length: 16 },
          (_, k) => before.get(view)!.get(index * 16 + k)!,
        ).join("");
        assert.equal(toHex((await log.tile(view, 0, index, 256))!), want, `${view} 0/${index}`);
      }
    }
    await log.close();
    db = new DatabaseSync(`${dir}/log.sqlite`);
    assert.equal(schema(), SQLITE_SCHEMA_VERSION);
    assert.deepEqual(db.prepare("SELECT * FROM heads ORDER BY size").all(), heads);
    // 4,200 leaves: 16 full groups at level 0 and one at level 1 per view; 10 tiles left as rows
    const L1 = 2 ** 48;
    for (const [groups, tiles] of [["tile_groups", "tiles"], ["tile_groups256", "tiles256"]]) {
      const ids = db.prepare(`SELECT id FROM ${groups} ORDER BY id`).all().map((r) => r.id);
      assert.deepEqual(ids, [...Array.from({ length: 16 }, (_, k) => k), L1], groups);
      assert.equal((db.prepare(`SELECT count(*) AS n FROM ${tiles}`).get() as { n: number }).n, 10);
    }
    db.close();
    const s = openSqliteStorage(`${dir}/log.sqlite`);
    try {
      for (const view of ["blake3", "sha256"] as const) {
        for (const [id, hex] of before.get(view)!) {
          const level = Math.floor(id / L1), index = id % L1;
          assert.equal(
            toHex((await s.tile(level, index, view))!),
            hex,
            `${view} ${level}/${index}`,
          );
        }
        // range reads across group and row boundaries answer as the point reads do
        for (const [level, start, count] of [[0, 250, 13], [0, 14, 20], [1, 10, 8], [2, 0, 2]]) {
          const got = await s.tileRange!(level, start, count, view);
          for (let k = 0; k < count; k++) {
            assert.equal(
              toHex(got[k] ?? new Uint8Array()),
              before.get(view)!.get(level * L1 + start + k) ?? "",
              `${view} range ${level}/${start + k}`,
            );
          }
        }
        assert.equal(await s.tileGroup!(0, 16, view), undefined); // 262 full tiles: not 16 more
      }
      assert.deepEqual((await fsckLog(s, log.publicKey())).problems, []);
    } finally {
      await s.close();
    }
    // appends and deduplication go on over grouped tiles
    const again = await openSqliteLog({ dir, secretKey: SECRET });
    const old = await again.entry(5);
    assert.equal((await again.append(old!)).index, 5);
    assert.equal((await again.append(new TextEncoder().encode("after"))).index, 4200);
    await again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
