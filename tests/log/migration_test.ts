// Migration on open (docs/STORAGE.md "Migration"): a data directory written by the schema-2 code
// (tests/log/fixtures/schema2, made by the code before the SHA-256 view; key 0x07 × 32) opens
// with this build: the schema goes to 3, the SHA-256 view is rebuilt from the entries (tiles and
// every head's root), nothing of the BLAKE3 view changes, fsck is clean, appends go on.
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { fsckLog, referenceRoot, sha256Hasher } from "../../log/mod.ts";
import { openSqliteLog, openSqliteStorage } from "../../log/sqlite/mod.ts";
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
      "3",
    );
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
