// The stream backfill (docs/STREAMS.md "Backfill"; issue 24): a store whose entries were logged
// before the stream checks existed, or while they were off, has them checked once, in log order,
// while the log serves: the streams and findings then equal a recomputation from the log alone
// (tests/_streams_recompute.ts), ids included, whatever was appended during the backfill; an
// interrupted backfill continues from its recorded progress; appends are answered meanwhile.
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { type Log, type LogStorage, openLog, type StreamIndex } from "../../log/mod.ts";
import { openSqliteStorage } from "../../log/sqlite/mod.ts";
import { openDurableStorage } from "../../log/durable/mod.ts";
import { sqliteDurableStorage } from "../../fixtures/sqlite_durable.ts";
import { entryFacts } from "../../log/streams/mod.ts";
import { steward } from "../../fixtures/app.ts";
import { chain, cidOf, jcpEnvelope, receiptWithId, ZEROS } from "../_streams.ts";
import { recompute } from "../_streams_recompute.ts";
import { actor, allow, grant, revocation } from "../_grants.ts";

const KEY = new Uint8Array(32).fill(3);
const SKEW = 300_000;
const A = steward(), B = steward(9);
/** Issue 25: a grant by ISSUER, revoked among the old entries; B's allows name it. */
const ISSUER = actor(21);
const G = grant(ISSUER, B);

/** Old entries: a gap, a fork, a wrong prev, a reused id, a settle of a hold, an unknown settle. */
function oldEntries(): Uint8Array<ArrayBuffer>[] {
  const a = chain(6, A), b = chain(4, B, 1);
  const hold = jcpEnvelope(500, { held_uj: 5000 }, A);
  return [
    a[0],
    a[1],
    a[3], // a gap at 3 (2 arrives later, during the backfill)
    b[0],
    b[1],
    b[2],
    b[3],
    jcpEnvelope(99, { seq: 1, prev: cidOf(b[0]) }, B), // a fork at B's seq 1
    jcpEnvelope(100, { seq: 4, prev: ZEROS }, A), // a wrong prev (and a gap: 3 is there, 4 is not)
    receiptWithId("r-1", 1, A),
    receiptWithId("r-1", 2, A), // reused
    hold,
    jcpEnvelope(501, { settles: cidOf(hold) }, A),
    jcpEnvelope(502, { settles: "ab".repeat(32) }, A), // unknown
    G.envelope.slice(),
    allow(B, G.id, 600, { issuer: ISSUER.did }), // before the revocation: no finding
    revocation(G.id, ISSUER).slice(),
    allow(B, G.id, 601, { issuer: ISSUER.did }), // after it: grant-revoked
  ];
}

/** Entries appended once the checks are on: some only make sense against the old ones. */
function newEntries(): Uint8Array<ArrayBuffer>[] {
  const a = chain(6, A);
  return [
    a[2], // fills the old gap: a recomputation never saw it open past this
    jcpEnvelope(98, { seq: 3, prev: cidOf(a[2]) }, A), // a fork against an old link
    receiptWithId("r-1", 3, A), // reused against an old receipt
    allow(B, G.id, 602, { issuer: ISSUER.did }), // against an old revocation: grant-revoked
    a[5],
  ];
}

async function appendAll(log: Log, es: Uint8Array[]): Promise<void> {
  for (const e of es) assert.equal((await log.append(e)).created, true);
}

/** Another steward's clean chain, enough entries for the backfill to take many steps. */
async function appendFiller(log: Log, n: number): Promise<void> {
  const es = chain(n, steward(12), 2);
  for (let i = 0; i < es.length; i += 500) {
    await Promise.all(es.slice(i, i + 500).map((e) => log.append(e)));
  }
}

/**
 * Appends the new entries while the backfill runs (so they are checked against partial state);
 * the findings their answers listed (the live state's, numbered before the swap).
 */
async function appendDuring(log: Log): Promise<number> {
  let live = 0;
  for (const e of newEntries()) {
    const r = await log.append(e);
    assert.equal(r.created, true);
    live += r.findings?.length ?? 0;
  }
  assert.notEqual(await log.streamReads!.reach(), "all", "the backfill was still under way");
  await log.streamBackfill!.done;
  assert.equal(log.streamBackfill!.error, undefined);
  return live;
}

/**
 * The store's streams and findings equal a recomputation's, in its order; the findings numbered
 * after `live` (the most findings the live state made before the swap: a cursor never goes back).
 */
async function assertRecomputed(s: LogStorage, x: StreamIndex, live = 0): Promise<void> {
  const size = (await s.latestHead())!.size;
  const want = await recompute(s, size, SKEW);
  assert.equal(await x.streamsReach(), "all");
  assert.equal(await x.streamsBackfillNext(), undefined);
  for (const did of [A.did, B.did]) {
    assert.deepEqual(await x.streams(did), want.streams.get(did) ?? [], `streams of ${did}`);
    const exp = want.findings.filter((f) => f.steward === did);
    const got = await x.streamFindings(did, 0, 1000);
    const strip = ({ id: _id, ...f }: { id?: number }) => f;
    assert.deepEqual(got.map(strip), exp.map(strip), `findings of ${did}`);
    got.forEach((f, k) => {
      const off = f.id! - exp[k].id!;
      assert.ok(off >= live && off === got[0].id! - exp[0].id!, "numbered in order, after");
    });
  }
  const codes = new Set(want.findings.map((f) => f.code));
  for (
    const c of [
      "stream-gap",
      "stream-fork",
      "stream-prev-mismatch",
      "receipt-id-reused",
      "grant-revoked",
    ]
  ) {
    assert.ok(codes.has(c as never), `the scenario makes a ${c}`);
  }
}

async function withDir(fn: (path: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "jc-streams-backfill-" });
  try {
    await fn(`${dir}/log.sqlite`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const open = (path: string, checks: boolean) =>
  openLog(openSqliteStorage(path), {
    secretKey: KEY,
    batchAgeMs: 1,
    ...(checks ? {} : { streamFacts: null }),
  });

Deno.test("stream backfill: entries logged with the checks off equal a recomputation", async () => {
  await withDir(async (path) => {
    let log = await open(path, false);
    await appendAll(log, oldEntries());
    await appendFiller(log, 2000);
    await log.close();
    log = await open(path, true);
    let live = 0;
    try {
      live = await appendDuring(log);
      assert.ok(live > 0, "the appends during the backfill made findings of their own");
    } finally {
      await log.close();
    }
    const s = openSqliteStorage(path);
    try {
      await assertRecomputed(s, s.capabilities().streamIndex!, live);
    } finally {
      await s.close();
    }
  });
});

/** A store an older version wrote: the old entries (and `more`), then `sql` run on its file. */
async function olderStore(path: string, sql: string[], more: Uint8Array[] = [], filler = 2000) {
  const log = await open(path, true);
  await appendAll(log, [...oldEntries(), ...more]);
  await appendFiller(log, filler);
  await log.close();
  const db = new DatabaseSync(path);
  for (const q of sql) db.exec(q);
  db.close();
}

/** Opens it with the checks on, runs `during`, then compares the store with a recomputation. */
async function reopenRecomputed(path: string, during: (log: Log) => Promise<void>) {
  const log = await open(path, true);
  try {
    await during(log);
  } finally {
    await log.close();
  }
  const s = openSqliteStorage(path);
  try {
    await assertRecomputed(s, s.capabilities().streamIndex!);
  } finally {
    await s.close();
  }
}

Deno.test("stream backfill: a store written before the stream tables existed", async () => {
  await withDir(async (path) => {
    // the older version's store: no stream tables, no mark
    const tables = ["streams", "stream_links", "search_keys", "audit_heads", "stream_findings"];
    await olderStore(path, [
      ...tables.map((t) => `DROP TABLE ${t}`),
      "DELETE FROM meta WHERE k = 'streams_upto'",
    ]);
    await reopenRecomputed(path, async (log) => {
      await appendDuring(log);
      assert.equal(await log.streamReads!.reach(), "all");
    });
  });
});

Deno.test("stream backfill: a store checked before the (steward, id) keys is rechecked", async () => {
  await withDir(async (path) => {
    // the older version's store: its search keys had no (steward, id) kind (6), and no mark
    await olderStore(
      path,
      [
        "DELETE FROM search_keys WHERE substr(k, 1, 1) = x'06'",
        "DELETE FROM meta WHERE k = 'stream_keys'",
      ],
      [receiptWithId("r-old", 7, B)],
      600,
    );
    await reopenRecomputed(path, async (log) => {
      assert.notEqual(await log.streamReads!.reach(), "all", "its checks are recomputed");
      await log.streamBackfill!.done;
      assert.equal(log.streamBackfill!.error, undefined);
      const r = await log.append(receiptWithId("r-old", 8, B));
      assert.deepEqual(r.findings?.map((f) => f.code), ["receipt-id-reused"]);
    });
  });
});

Deno.test("stream backfill: interrupted, it continues from its progress", async () => {
  await withDir(async (path) => {
    let log = await open(path, false);
    await appendAll(log, oldEntries());
    await appendFiller(log, 2000);
    await log.close();
    const s = openSqliteStorage(path);
    const x = s.capabilities().streamIndex!;
    const step = (from: number, n: number) =>
      s.entries(from, n).then((es) =>
        x.backfillStreams({
          from,
          facts: es.map((e) => entryFacts(e)),
          read: entryFacts,
          skewMs: SKEW,
          catchUp: 0,
        })
      );
    assert.equal(await x.streamsBackfillNext(), 0);
    assert.equal(await step(0, 3), 3);
    assert.equal(await step(3, 3), 6);
    await assert.rejects(step(0, 3), /backfill is at 6/, "a step from elsewhere is refused");
    assert.equal(
      await x.streamsReach(),
      oldEntries().length + 2000,
      "the live state is untouched until the end",
    );
    await s.close();
    log = await open(path, true);
    try {
      await appendDuring(log);
    } finally {
      await log.close();
    }
    const s2 = openSqliteStorage(path);
    try {
      await assertRecomputed(s2, s2.capabilities().streamIndex!);
    } finally {
      await s2.close();
    }
  });
});

Deno.test("stream backfill: appends are answered while it runs", async () => {
  await withDir(async (path) => {
    let log = await open(path, false);
    await appendFiller(log, 3000);
    await log.close();
    log = await open(path, true);
    try {
      const t0 = performance.now();
      const first = await Promise.race([
        log.append(receiptWithId("r-x", 1, A)).then(() => "append"),
        log.streamBackfill!.done.then(() => "backfill"),
      ]);
      assert.equal(first, "append", "the append waited for the whole backfill");
      assert.ok(performance.now() - t0 < 2000);
      await log.streamBackfill!.done;
    } finally {
      await log.close();
    }
    const s = openSqliteStorage(path);
    try {
      const x = s.capabilities().streamIndex!;
      assert.equal(await x.streamsReach(), "all");
      const [st] = await x.streams(steward(12).did);
      assert.equal(st.length, 3000);
      assert.deepEqual(await x.streamFindings(steward(12).did, 0, 10), []);
    } finally {
      await s.close();
    }
  });
});

Deno.test("stream backfill: the Durable Object's store (its table prefix) the same", async () => {
  await withDir(async (path) => {
    const opened: { close(): void }[] = [];
    const store = () => {
      const sql = sqliteDurableStorage(path);
      opened.push(sql);
      return openDurableStorage(sql);
    };
    const o = { secretKey: KEY, batchAgeMs: 1 };
    try {
      let log = await openLog(store(), { ...o, streamFacts: null });
      await appendAll(log, oldEntries());
      await appendFiller(log, 2000);
      await log.close();
      log = await openLog(store(), o);
      try {
        await appendDuring(log);
      } finally {
        await log.close();
      }
      const s = store();
      try {
        await assertRecomputed(s, s.capabilities().streamIndex!);
      } finally {
        await s.close();
      }
    } finally {
      for (const x of opened) x.close();
    }
  });
});
