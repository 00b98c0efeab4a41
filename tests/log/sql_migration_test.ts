// Migration to the one SQL store (log/sql/, issue 22) from fixtures written by the code before it
// (tests/log/fixtures/README.md: made at 94d3c9e): a node:sqlite data directory at schema 4 and a
// Durable Object's SQLite at its own schema 2 (a whole log under `jc_`, a log pruned by the R2
// sequencer under `pub_`, the witness tables). Each opens with the one store: every head byte for
// byte, every tile of both views, every entry, dedup against existing leaves, appends after, fsck.
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { blake3Hasher, fsckLog, type Log, openLog, sha256Hasher } from "../../log/mod.ts";
import { openSqliteLog, openSqliteStorage, SQLITE_SCHEMA_VERSION } from "../../log/sqlite/mod.ts";
import { openSqliteWitnessState } from "../../log/sqlite/witness_state.ts";
import { openDurableStorage } from "../../log/durable/mod.ts";
import { openDurableWitnessState } from "../../log/durable/witness_state.ts";
import { toHex } from "../../verify/mod.ts";
import { sqliteDurableStorage } from "../../fixtures/sqlite_durable.ts";

const FIXTURES = new URL("./fixtures/", import.meta.url).pathname;
const SECRET = new Uint8Array(32).fill(7);
const contentId = (e: Uint8Array) => sha256Hasher.leaf(e);
const enc = (s: string) => new TextEncoder().encode(s);
const L1 = 2 ** 48;
type Row = Record<string, unknown>;

/** Every stored tile of a view as the code before stored it: "level/index" → hex. */
function tilesBefore(db: DatabaseSync, p: string, durable: boolean, view: "" | "256") {
  const out = new Map<string, string>();
  if (durable) {
    for (const r of db.prepare(`SELECT level, idx, hashes FROM ${p}tiles${view}`).all() as Row[]) {
      out.set(`${r.level}/${r.idx}`, toHex(r.hashes as Uint8Array));
    }
    return out;
  }
  for (const r of db.prepare(`SELECT id, hashes FROM tiles${view}`).all() as Row[]) {
    const id = r.id as number;
    out.set(`${Math.floor(id / L1)}/${id % L1}`, toHex(r.hashes as Uint8Array));
  }
  for (const r of db.prepare(`SELECT id, hashes FROM tile_groups${view}`).all() as Row[]) {
    const id = r.id as number, h = r.hashes as Uint8Array;
    for (let k = 0; k < 16; k++) {
      const i = (id % L1) * 16 + k;
      out.set(`${Math.floor(id / L1)}/${i}`, toHex(h.subarray(k * 512, (k + 1) * 512)));
    }
  }
  return out;
}

/** Heads, every column, byte for byte. */
const headsOf = (db: DatabaseSync, p: string) =>
  (db.prepare(`SELECT size, root, ts, sig, sha_root FROM ${p}heads ORDER BY size`).all() as Row[])
    .map((r) =>
      [
        r.size,
        toHex(r.root as Uint8Array),
        r.ts,
        toHex(r.sig as Uint8Array),
        toHex(r.sha_root as Uint8Array),
      ].join(" ")
    );

const storedHeads = async (
  s: { heads(from: number, n: number): Promise<import("../../log/mod.ts").StoredHead[]> },
) =>
  (await s.heads(0, 100)).map((h) =>
    [h.size, toHex(h.root), h.timestamp, toHex(h.signature), toHex(h.sha256Root!)].join(" ")
  );

async function checkTiles(
  s: { tile(l: number, i: number, v?: "blake3" | "sha256"): Promise<Uint8Array | undefined> },
  before: Map<string, string>,
  view: "blake3" | "sha256",
) {
  assert.ok(before.size > 0);
  for (const [k, hex] of before) {
    const [l, i] = k.split("/").map(Number);
    assert.equal(toHex((await s.tile(l, i, view)) ?? new Uint8Array()), hex, `${view} ${k}`);
  }
}

/** Dedup against an existing leaf, then an append after; both views' roots stay right. */
async function appendsGoOn(log: Log, what: string) {
  const old = enc(`${what} fixture entry 5`);
  const again = await log.append(old);
  assert.equal(again.index, 5);
  assert.equal(again.created, false);
  const next = await log.append(enc(`${what} after migration`));
  assert.equal(next.index, 4200);
  assert.equal((await log.latestHead()).size, 4201);
}

Deno.test("a schema-4 data directory written before the one SQL store opens unchanged and reads the same", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-sql4-" });
  try {
    for (const f of ["log.sqlite", "log-key.hex.pin", "witness.sqlite"]) {
      await Deno.copyFile(`${FIXTURES}schema4/${f}`, `${dir}/${f}`);
    }
    let db = new DatabaseSync(`${dir}/log.sqlite`);
    const heads = headsOf(db, "");
    const tiles = [tilesBefore(db, "", false, ""), tilesBefore(db, "", false, "256")];
    db.close();
    const s = openSqliteStorage(`${dir}/log.sqlite`);
    try {
      assert.deepEqual(await storedHeads(s), heads);
      await checkTiles(s, tiles[0], "blake3");
      await checkTiles(s, tiles[1], "sha256");
      const entries = await s.entries(0, 5000);
      assert.deepEqual(
        entries.map((e) => new TextDecoder().decode(e)),
        Array.from({ length: 4200 }, (_, i) => `schema-4 fixture entry ${i}`),
      );
      // the lagging leaf index's tail (none of it flushed) is rebuilt from the level-0 tiles
      for (const i of [0, 17, 4199]) {
        assert.ok((await s.leafCandidates(blake3Hasher.leaf(entries[i]))).includes(i));
      }
      assert.deepEqual(await s.contentIndex!([contentId(entries[9])]), [9]);
      assert.equal(await s.logName(), "fixture.example/log");
      assert.deepEqual(
        (await fsckLog(s, (await openLog(s, { secretKey: SECRET, contentId })).publicKey()))
          .problems,
        [],
      );
    } finally {
      await s.close();
    }
    // the log's options (openLog's contentId through openSqliteLog, as the fixture was written)
    const opts = { dir, secretKey: SECRET, contentId, logName: "fixture.example/log" };
    const log = await openSqliteLog(opts);
    await appendsGoOn(log, "schema-4");
    await log.close();
    db = new DatabaseSync(`${dir}/log.sqlite`);
    assert.equal(
      (db.prepare("SELECT v FROM meta WHERE k = 'schema'").get() as Row).v,
      SQLITE_SCHEMA_VERSION,
    );
    db.close();
    const w = openSqliteWitnessState(`${dir}/witness.sqlite`);
    assert.equal(w.pinned(), true);
    const a = await w.get("example.com/a");
    assert.equal(a?.size, 12);
    assert.equal(toHex(a!.root), "02".repeat(32));
    assert.deepEqual(await w.getCollector("witness.example/w1"), {
      size: 12,
      cosignature: "c29zaWc=",
      root: "cm9vdA==",
    });
    await w.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a Durable Object written before the one SQL store is migrated: heads, tiles, entries, leaf index, witness", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-sqldo-" });
  try {
    await Deno.copyFile(`${FIXTURES}durable2/do.sqlite`, `${dir}/do.sqlite`);
    const raw = new DatabaseSync(`${dir}/do.sqlite`);
    const before = {
      heads: headsOf(raw, "jc_"),
      tiles: [tilesBefore(raw, "jc_", true, ""), tilesBefore(raw, "jc_", true, "256")],
      pubHeads: headsOf(raw, "pub_"),
      pubTiles: [tilesBefore(raw, "pub_", true, ""), tilesBefore(raw, "pub_", true, "256")],
    };
    assert.equal((raw.prepare("SELECT v FROM jc_meta WHERE k = 'schema'").get() as Row).v, "2");
    raw.close();
    const sql = sqliteDurableStorage(`${dir}/do.sqlite`);
    try {
      const s = openDurableStorage(sql);
      assert.deepEqual(await storedHeads(s), before.heads);
      await checkTiles(s, before.tiles[0], "blake3");
      await checkTiles(s, before.tiles[1], "sha256");
      const entries = await s.entries(0, 5000);
      assert.equal(entries.length, 4200);
      for (let i = 0; i < 4200; i++) {
        assert.equal(new TextDecoder().decode(entries[i]), `durable-2 fixture entry ${i}`);
        assert.deepEqual(await s.leafCandidates(blake3Hasher.leaf(entries[i])), [i]);
      }
      assert.deepEqual(
        await s.contentIdsIn(10, 12),
        [10, 11].map((index) => ({ index, contentId: contentId(entries[index]) })),
      );
      assert.equal(await s.publishedSize(), -1);
      const log = await openLog(s, { secretKey: SECRET, contentId, logName: "fixture.example/do" });
      assert.deepEqual((await fsckLog(s, log.publicKey())).problems, []);
      await appendsGoOn(log, "durable-2");
      assert.deepEqual((await fsckLog(s, log.publicKey())).problems, []);
      await log.close();

      // the pruned one: what the object held reads the same; the leaf index covers its window
      const pub = openDurableStorage(sql, { prefix: "pub_" });
      assert.deepEqual(await storedHeads(pub), before.pubHeads);
      await checkTiles(pub, before.pubTiles[0], "blake3");
      await checkTiles(pub, before.pubTiles[1], "sha256");
      assert.equal(await pub.publishedSize(), 4096);
      assert.deepEqual(await pub.entries(0, 10), []);
      const kept = await pub.entries(3584, 1000);
      assert.equal(kept.length, 616);
      for (const i of [3584, 4000, 4199]) {
        assert.equal(new TextDecoder().decode(kept[i - 3584]), `published fixture entry ${i}`);
        assert.deepEqual(await pub.leafCandidates(blake3Hasher.leaf(kept[i - 3584])), [i]);
      }
      await pub.markPublished(4200, 512); // keeps from min(4096, 3688)
      assert.equal((await pub.entries(3688, 1000)).length, 512);
      assert.deepEqual(await pub.leafCandidates(blake3Hasher.leaf(kept[0])), []);
      assert.deepEqual(await pub.leafCandidates(blake3Hasher.leaf(kept[4199 - 3584])), [4199]);

      const w = openDurableWitnessState(sql);
      const b = await w.get("example.com/b");
      assert.equal(b?.size, 5);
      assert.equal(toHex(b!.root), "03".repeat(32));
      assert.deepEqual(await w.getCollector("witness.example/w2"), { size: 5 });
    } finally {
      sql.close();
    }
    const after = new DatabaseSync(`${dir}/do.sqlite`);
    for (const p of ["jc_", "pub_"]) {
      assert.equal(
        (after.prepare(`SELECT v FROM ${p}meta WHERE k = 'schema'`).get() as Row).v,
        "4",
      );
      const cols = after.prepare(`SELECT name FROM pragma_table_info('${p}entries')`).all();
      assert.deepEqual(cols.map((c) => c.name), ["idx", "bytes"]);
    }
    after.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a Durable Object store of an unknown schema version is refused and left as it is", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-sqldo3-" });
  try {
    await Deno.copyFile(`${FIXTURES}durable2/do.sqlite`, `${dir}/do.sqlite`);
    const raw = new DatabaseSync(`${dir}/do.sqlite`);
    raw.exec("UPDATE jc_meta SET v = '3' WHERE k = 'schema'");
    raw.close();
    const sql = sqliteDurableStorage(`${dir}/do.sqlite`);
    try {
      assert.throws(() => openDurableStorage(sql), /schema version 3/);
      assert.deepEqual(sql.sql.exec("SELECT v FROM jc_meta WHERE k = 'schema'").toArray(), [{
        v: "3",
      }]);
    } finally {
      sql.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
