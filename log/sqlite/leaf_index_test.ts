// The SQLite backend's lagging leaf index (docs/STORAGE.md "Lagging leaf index"): whatever the lag
// and wherever the store is closed and reopened, every stored entry is found, every resubmission
// resolves to its original index, fsck is clean, the `leaves` table holds exactly the entries
// before `leaves_upto`, a second connection sees the first one's commits, and a schema-1 store
// (every entry in `leaves`) is migrated.
import assert from "node:assert/strict";
import fc from "fast-check";
import { DatabaseSync } from "node:sqlite";
import { blake3Hasher, fsckLog, openLog } from "../mod.ts";
import { openSqliteLog, openSqliteStorage, SQLITE_SCHEMA_VERSION } from "./mod.ts";

const SECRET = new Uint8Array(32).fill(9);
const enc = (s: string) => new TextEncoder().encode(s);

function leavesTable(path: string): { upto: number; rows: number; min: number; max: number } {
  const db = new DatabaseSync(path);
  try {
    const upto = Number(
      (db.prepare("SELECT v FROM meta WHERE k = 'leaves_upto'").get() as { v: string }).v,
    );
    const r = db.prepare("SELECT count(*) AS n, min(idx) AS lo, max(idx) AS hi FROM leaves")
      .get() as { n: number; lo: number | null; hi: number | null };
    return { upto, rows: r.n, min: r.lo ?? -1, max: r.hi ?? -1 };
  } finally {
    db.close();
  }
}

Deno.test("lagging leaf index: exactly-once and fsck across reopenings at any lag", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 40 }),
      fc.array(fc.array(fc.integer({ min: 0, max: 59 }), { minLength: 1, maxLength: 12 }), {
        minLength: 1,
        maxLength: 6,
      }),
      async (lag, sessions) => {
        const dir = await Deno.makeTempDir({ prefix: "jc-leaf-lag-" });
        try {
          const where = new Map<number, number>(); // entry number → index
          for (const session of sessions) {
            const log = await openSqliteLog({
              dir,
              secretKey: SECRET,
              leafIndexLag: lag,
              batchMax: 5,
            });
            const rs = await Promise.all(session.map((k) => log.append(enc(`entry-${k}`))));
            rs.forEach((r, i) => {
              const k = session[i];
              const known = where.get(k);
              if (known === undefined) where.set(k, r.index);
              else assert.equal(r.index, known, `entry-${k} resubmitted`);
            });
            for (const [k, index] of where) {
              assert.equal(await log.indexOfLeaf(blake3Hasher.leaf(enc(`entry-${k}`))), index);
            }
            assert.equal(
              await log.indexOfLeaf(blake3Hasher.leaf(enc("never appended"))),
              undefined,
            );
            await log.close();
          }
          const t = leavesTable(`${dir}/log.sqlite`);
          assert.equal(t.rows, t.upto, "leaves holds exactly the entries before leaves_upto");
          assert.ok(t.rows === 0 || (t.min === 0 && t.max === t.upto - 1));
          assert.ok(where.size - t.upto <= lag, "at most `lag` entries are only in memory");
          const store = openSqliteStorage(`${dir}/log.sqlite`, { leafIndexLag: lag });
          const report = await fsckLog(
            store,
            (await import("../../verify/mod.ts")).ed25519PublicKey(SECRET),
          );
          await store.close();
          assert.deepEqual(report.problems, []);
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
      },
    ),
    { numRuns: 25 },
  );
});

Deno.test("lagging leaf index: a second connection sees entries committed after it opened", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-leaf-lag-" });
  try {
    const writer = openSqliteStorage(`${dir}/log.sqlite`, { leafIndexLag: 4 });
    const reader = openSqliteStorage(`${dir}/log.sqlite`, { leafIndexLag: 4 });
    const log = await openLog(writer, { secretKey: SECRET, batchMax: 3 });
    const hashes: Uint8Array[] = [];
    for (let k = 0; k < 11; k++) {
      const e = enc(`seen-${k}`);
      hashes.push(blake3Hasher.leaf(e));
      const r = await log.append(e);
      // after each commit (some flush, some only extend the tail) the other connection finds all
      const many = await reader.leafCandidatesMany!(hashes);
      for (let j = 0; j <= k; j++) {
        assert.ok((await reader.leafCandidates(hashes[j])).includes(j), `entry ${j} after ${k}`);
        assert.ok(many[j].includes(j));
      }
      assert.equal(r.index, k);
    }
    await log.close();
    await reader.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("lagging leaf index: a schema-1 store is migrated, a newer schema refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-leaf-lag-" });
  const path = `${dir}/log.sqlite`;
  try {
    // lag 0 writes every entry to `leaves`: what a schema-1 store holds
    let log = await openSqliteLog({ dir, secretKey: SECRET, leafIndexLag: 0 });
    for (let k = 0; k < 20; k++) await log.append(enc(`old-${k}`));
    await log.close();
    let db = new DatabaseSync(path);
    db.exec("DELETE FROM meta WHERE k = 'leaves_upto'; UPDATE meta SET v = '1' WHERE k = 'schema'");
    db.close();
    log = await openSqliteLog({ dir, secretKey: SECRET, leafIndexLag: 100 });
    assert.equal(leavesTable(path).upto, 20);
    assert.equal((await log.append(enc("old-7"))).index, 7);
    assert.equal((await log.append(enc("new"))).index, 20);
    await log.close();
    db = new DatabaseSync(path);
    const newer = String(Number(SQLITE_SCHEMA_VERSION) + 1);
    db.exec(`UPDATE meta SET v = '${newer}' WHERE k = 'schema'`);
    db.close();
    assert.throws(() => openSqliteStorage(path), new RegExp(`schema version ${newer}`));
    assert.throws(() => openSqliteStorage(`${dir}/x.sqlite`, { leafIndexLag: -1 }), RangeError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("leafPrefix is the first 6 bytes as a big-endian integer (BigInt reference)", async () => {
  const { leafPrefix } = await import("../mod.ts");
  const ref = (h: Uint8Array) =>
    Number(h.subarray(0, 6).reduce((x, b) => (x << 8n) | BigInt(b), 0n));
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (h) => leafPrefix(h) === ref(h)),
    { numRuns: 2000 },
  );
  assert.equal(leafPrefix(new Uint8Array(32).fill(0xff)), 2 ** 48 - 1);
  assert.equal(leafPrefix(Uint8Array.of(0x80, 0, 0, 0, 0, 0, ...new Uint8Array(26))), 2 ** 47);
});

Deno.test("large batches (multi-row inserts of entries and leaf-index rows) store every row", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-leaf-lag-" });
  try {
    // batches of up to 200 and a flush every > 150 entries: 64-row statements plus remainders
    const log = await openSqliteLog({ dir, secretKey: SECRET, leafIndexLag: 150, batchMax: 200 });
    const entries = Array.from({ length: 677 }, (_, k) => enc(`large-${k}-${"x".repeat(k % 97)}`));
    const rs = await Promise.all(entries.map((e) => log.append(e)));
    const where = new Map(rs.map((r, k) => [k, r.index]));
    for (const [k, index] of where) {
      assert.deepEqual(await log.entry(index), entries[k]);
      assert.equal(await log.indexOfLeaf(blake3Hasher.leaf(entries[k])), index);
    }
    assert.equal((await log.append(entries[300])).index, where.get(300));
    await log.close();
    const t = leavesTable(`${dir}/log.sqlite`);
    assert.ok(t.upto > 150 && t.rows === t.upto && t.max === t.upto - 1);
    const { ed25519PublicKey } = await import("../../verify/mod.ts");
    const store = openSqliteStorage(`${dir}/log.sqlite`);
    const report = await fsckLog(store, ed25519PublicKey(SECRET));
    await store.close();
    assert.deepEqual(report.problems, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
