// One entry per signed content (docs/DECISIONS.md): a twin of a logged envelope — the ES256
// (r, n − s) twin, tag 18 added or removed, a fresh signature by the key holder — resolves to the
// logged entry's index and leaf hash and adds nothing, on the memory and SQLite stores, across a
// reopen, and when the twins arrive in one batch. Other entries are logged as before.
import assert from "node:assert/strict";
import { createMemoryStore, type Log, openLog } from "../../log/mod.ts";
import { openSqliteStorage } from "../../log/sqlite/mod.ts";
import {
  coseSigStructure,
  entryLeafHash,
  envelopeContentId,
  es256Verify,
  parseCoseSign1,
  resolveDidKey,
  toHex,
} from "../../verify/mod.ts";
import { es256Steward, steward, validEnvelope, validEs256Envelope } from "../../fixtures/app.ts";
import { malleated, resigned, retagged } from "../_twins.ts";

const KEY = new Uint8Array(32).fill(3);

function verifies(env: Uint8Array): Promise<boolean> {
  const e = parseCoseSign1(env);
  const s = es256Steward();
  assert.equal(e.kid, s.did);
  return es256Verify(
    e.signature,
    coseSigStructure(e.protectedBytes, e.payload),
    resolveDidKey(e.kid).pub,
  );
}

Deno.test("twins: each twin is a valid envelope of the same content, with other bytes", async () => {
  const s = es256Steward();
  const e = validEs256Envelope(1);
  for (const t of [malleated(e), retagged(e), resigned(e, s.secret), retagged(malleated(e))]) {
    assert.notEqual(toHex(entryLeafHash(t)), toHex(entryLeafHash(e)));
    assert.equal(toHex(envelopeContentId(t)!), toHex(envelopeContentId(e)!));
    assert.ok(await verifies(t));
  }
  // and content ids differ across receipts, signers and algorithms
  const ids = new Set([
    validEs256Envelope(1),
    validEs256Envelope(2),
    validEs256Envelope(1, es256Steward(8)),
    validEnvelope(1),
    validEnvelope(1, steward(8)),
  ].map((x) => toHex(envelopeContentId(x)!)));
  assert.equal(ids.size, 5);
  assert.equal(envelopeContentId(new TextEncoder().encode("not an envelope")), undefined);
});

async function exercise(open: () => Promise<Log>, reopen: () => Promise<Log>): Promise<void> {
  let log = await open();
  const s = es256Steward();
  const e = validEs256Envelope(1);
  const first = await log.append(e);
  assert.equal(first.created, true);
  const twins = [malleated(e), retagged(e), resigned(e, s.secret), retagged(malleated(e))];
  for (const t of twins) {
    const r = await log.append(t);
    assert.equal(r.created, false);
    assert.equal(r.index, first.index);
    assert.equal(r.leaf_hash, first.leaf_hash);
    assert.equal(r.tree_head.size, 1);
  }
  // Ed25519: the tagged twin too
  const ed = validEnvelope(5);
  const edFirst = await log.append(ed);
  assert.equal(edFirst.created, true);
  const edTwin = await log.append(retagged(ed));
  assert.deepEqual([edTwin.created, edTwin.index, edTwin.leaf_hash], [false, 1, edFirst.leaf_hash]);
  // twins racing in one batch: one entry, every caller answered with it
  const e2 = validEs256Envelope(2);
  const rs = await Promise.all(
    [e2, malleated(e2), retagged(e2), malleated(e2)].map((x) => log.append(x)),
  );
  assert.deepEqual(rs.map((r) => r.index), [2, 2, 2, 2]);
  assert.deepEqual(rs.map((r) => r.created), [true, false, false, false]);
  assert.deepEqual(new Set(rs.map((r) => r.leaf_hash)).size, 1);
  assert.equal((await log.latestHead()).size, 3);
  // non-envelope entries are unaffected (no content identity)
  assert.equal((await log.append(new TextEncoder().encode("raw"))).created, true);
  await log.close();
  // after a reopen the index still answers
  log = await reopen();
  const again = await log.append(malleated(e2));
  assert.deepEqual([again.created, again.index], [false, 2]);
  assert.equal((await log.latestHead()).size, 4);
  await log.close();
}

Deno.test("log: twins are one entry (memory store)", async () => {
  const store = createMemoryStore();
  const open = () => openLog(store, { secretKey: KEY, batchAgeMs: 1 });
  await exercise(open, open);
});

Deno.test("log: twins are one entry (SQLite store)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const open = () =>
      openLog(openSqliteStorage(`${dir}/log.sqlite`), { secretKey: KEY, batchAgeMs: 1 });
    await exercise(open, open);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("log: contentId null turns the index off (the twin is a second entry)", async () => {
  const log = await openLog(createMemoryStore(), { secretKey: KEY, contentId: null });
  const e = validEs256Envelope(1);
  await log.append(e);
  assert.equal((await log.append(malleated(e))).created, true);
  await log.close();
});

Deno.test("stores refuse a batch that repeats a stored content identity", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const mem = createMemoryStore();
    for (const make of [() => mem, () => openSqliteStorage(`${dir}/log.sqlite`)]) {
      const log = await openLog(make(), { secretKey: KEY, contentId: null });
      await log.append(validEs256Envelope(1));
      await log.close();
      const store = make();
      const head = (await store.latestHead())!;
      const id = envelopeContentId(validEs256Envelope(1))!;
      assert.deepEqual(await store.contentIndex!([id]), [undefined]); // contentId: null stored none
      await assert.rejects(
        () =>
          store.commitBatch({
            entries: [
              {
                index: 1,
                leafHash: new Uint8Array(32).fill(1),
                bytes: Uint8Array.of(1),
                contentId: id,
              },
              {
                index: 2,
                leafHash: new Uint8Array(32).fill(2),
                bytes: Uint8Array.of(2),
                contentId: id,
              },
            ],
            tiles: [],
            sha256Tiles: [],
            head: { ...head, size: 3 },
          }),
      );
      assert.equal((await store.latestHead())!.size, 1); // nothing written
      assert.deepEqual(await store.contentIndex!([id]), [undefined]);
      await store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("log: a store written before the content index is backfilled on open (SQLite)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/log.sqlite`;
    // a log as an older build wrote it: no content_ids rows (here: two twins logged twice) …
    const e = validEs256Envelope(1), e2 = validEs256Envelope(2);
    let log = await openLog(openSqliteStorage(path), { secretKey: KEY, contentId: null });
    for (const x of [e, malleated(e), e2]) assert.equal((await log.append(x)).created, true);
    for (let i = 0; i < 1500; i++) await log.append(new TextEncoder().encode(`raw ${i}`));
    await log.close();
    // … and without the table or its reach (what an older build leaves)
    const raw = openSqliteStorage(path);
    raw.db.exec("DROP TABLE content_ids; DELETE FROM meta WHERE k = 'content_ids_upto'");
    await raw.close();
    const store = openSqliteStorage(path);
    assert.equal(await store.contentIndexReach!(), 0);
    log = await openLog(store, { secretKey: KEY, batchAgeMs: 1 });
    assert.equal(await store.contentIndexReach!(), "all");
    const r1 = await log.append(retagged(e));
    assert.deepEqual([r1.created, r1.index], [false, 0]); // the first of the two old twins wins
    const r2 = await log.append(malleated(e2));
    assert.deepEqual([r2.created, r2.index], [false, 2]);
    assert.equal((await log.latestHead()).size, 1503);
    await log.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
