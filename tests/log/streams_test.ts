// Stream checks at append (issue 24; docs/STREAMS.md) on the SQLite store: each finding with its
// code, listed in the append's answer and stored, the gap cleared by its missing link, a fork
// with both entries logged, every entry logged whatever it caused; the state survives a reopen.
import assert from "node:assert/strict";
import { type AppendResult, type Log, openLog } from "../../log/mod.ts";
import { openSqliteStorage } from "../../log/sqlite/mod.ts";
import { fromHex } from "../../verify/mod.ts";
import { steward } from "../../fixtures/app.ts";
import { chain, cidOf, jcpEnvelope, receiptWithId, ZEROS } from "../_streams.ts";

const KEY = new Uint8Array(32).fill(3);

async function withLog(fn: (log: Log, reopen: () => Promise<Log>) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/log.sqlite`;
  let log = await openLog(openSqliteStorage(path), { secretKey: KEY, batchAgeMs: 1 });
  try {
    await fn(log, async () => {
      await log.close();
      log = await openLog(openSqliteStorage(path), { secretKey: KEY, batchAgeMs: 1 });
      return log;
    });
  } finally {
    await log.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const codes = (r: AppendResult) => (r.findings ?? []).map((f) => f.code);

Deno.test("streams: a clean chain causes no finding", async () => {
  await withLog(async (log) => {
    for (const e of chain(5)) {
      const r = await log.append(e);
      assert.equal(r.created, true);
      assert.deepEqual(codes(r), []);
    }
    const s = await log.streamReads!.streams(steward().did);
    assert.deepEqual(s.map((x) => [x.key, x.length, x.last_seq]), [["jcp", 5, 4]]);
  });
});

Deno.test("streams: a gap is found and cleared when the missing link arrives", async () => {
  await withLog(async (log, reopen) => {
    const c = chain(4);
    await log.append(c[0]);
    await log.append(c[1]);
    const r3 = await log.append(c[3]);
    assert.deepEqual(codes(r3), ["stream-gap"]);
    assert.equal(r3.findings![0].seq, 3);
    log = await reopen(); // the state is the store's
    const r2 = await log.append(c[2]);
    assert.deepEqual(codes(r2), []);
    const f = await log.streamReads!.findings(steward().did, 0, 10);
    assert.equal(f.length, 1);
    assert.equal(f[0].code, "stream-gap");
    assert.equal(f[0].index, r3.index);
    assert.equal(f[0].cleared_by, r2.index);
  });
});

Deno.test("streams: a fork logs both and is found; a wrong prev is found", async () => {
  await withLog(async (log) => {
    const c = chain(2);
    const a = await log.append(c[0]);
    await log.append(c[1]);
    const other = jcpEnvelope(99, { seq: 1, prev: cidOf(c[0]) });
    const f = await log.append(other);
    assert.equal(f.created, true);
    assert.deepEqual(codes(f), ["stream-fork"]);
    assert.equal(f.findings![0].other, a.index + 1);
    const wrong = await log.append(jcpEnvelope(100, { seq: 2, prev: ZEROS }));
    assert.deepEqual(codes(wrong), ["stream-prev-mismatch"]);
    const first = await log.append(jcpEnvelope(101, { seq: 0, prev: cidOf(c[1]) }, steward(9)));
    assert.deepEqual(codes(first), ["stream-prev-mismatch"], "seq 0's prev is 64 zeros");
    const e = await log.streamReads!.entryFindings(a.index + 1);
    // the fork names the first entry as its other side, as does the wrong prev after it
    assert.deepEqual(e.map((x) => x.code), ["stream-fork", "stream-prev-mismatch"]);
  });
});

Deno.test("streams: a late link whose successor names another prev", async () => {
  await withLog(async (log) => {
    const c = chain(3);
    await log.append(c[0]);
    const r2 = await log.append(c[2]);
    assert.deepEqual(codes(r2), ["stream-gap"]);
    const liar = jcpEnvelope(7, { seq: 1, prev: cidOf(c[0]) }); // not the c[1] that c[2] names
    const r1 = await log.append(liar);
    assert.deepEqual(codes(r1), ["stream-prev-mismatch"]);
    assert.equal(r1.findings![0].index, r2.index);
    assert.equal(r1.findings![0].other, r1.index);
  });
});

Deno.test("streams: a reused receipt id, an unknown settle, a late close", async () => {
  let t = Date.parse("2026-05-31T18:00:00Z");
  const dir = await Deno.makeTempDir();
  const log = await openLog(openSqliteStorage(`${dir}/log.sqlite`), {
    secretKey: KEY,
    batchAgeMs: 1,
    now: () => t,
  });
  try {
    const a = await log.append(
      receiptWithId("r-1", 1, steward(), { closed_at: "2026-05-31T17:00:00Z" }),
    );
    assert.deepEqual(codes(a), []);
    const b = await log.append(
      receiptWithId("r-1", 2, steward(), { closed_at: "2026-05-31T17:00:00Z" }),
    );
    assert.deepEqual(codes(b), ["receipt-id-reused"]);
    assert.equal(b.findings![0].other, a.index);
    const other = await log.append(
      receiptWithId("r-1", 3, steward(9), { closed_at: "2026-05-31T17:00:00Z" }),
    );
    assert.deepEqual(codes(other), [], "ids are per steward");
    const hold = jcpEnvelope(1, { held_uj: 5000 });
    await log.append(hold);
    const ok = await log.append(jcpEnvelope(2, { settles: cidOf(hold) }));
    assert.deepEqual(codes(ok), []);
    const unknown = await log.append(jcpEnvelope(3, { settles: "ab".repeat(32) }));
    assert.deepEqual(codes(unknown), ["settles-unknown"]);
    const late = await log.append(
      receiptWithId("r-9", 9, steward(), { closed_at: "2026-05-31T18:06:00Z" }),
    );
    assert.deepEqual(codes(late), ["closed-after-integration"]);
    const near = await log.append(
      receiptWithId("r-10", 10, steward(), { closed_at: "2026-05-31T18:04:00Z" }),
    );
    assert.deepEqual(codes(near), [], "within the 5-minute skew");
    t += 1;
    // search: by steward and id, by input hash
    const s = log.streamReads!;
    assert.deepEqual(await s.search({ steward: steward().did, receiptId: "r-1" }, -1, 10), [0, 1]);
    assert.deepEqual(await s.search({ receiptId: "r-1" }, -1, 10), [0, 1, 2]);
    assert.deepEqual(await s.search({ receiptId: "r-1" }, 0, 1), [1]);
    assert.equal(await s.byContentId(fromHex(cidOf(hold))), 3);
    assert.equal(await s.byContentId(new Uint8Array(32)), undefined);
  } finally {
    await log.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("streams: a reused id is found however many other stewards used it first", async () => {
  // JCR-1 §2: `id` is unique per steward. 65 stewards log one id; then the last of them logs it
  // again with another content: the check answers by (steward, id), not by the id's first rows.
  await withLog(async (log, reopen) => {
    const firsts: number[] = [];
    for (let k = 0; k < 65; k++) {
      const r = await log.append(receiptWithId("shared-id", k, steward(30 + k)));
      assert.deepEqual(codes(r), [], `steward ${k}: ids are per steward`);
      firsts.push(r.index);
    }
    const again = await log.append(receiptWithId("shared-id", 1000, steward(30 + 64)));
    assert.deepEqual(codes(again), ["receipt-id-reused"]);
    assert.equal(again.findings![0].other, firsts[64]);
    log = await reopen(); // from the store, not the batch's memory
    const third = await log.append(receiptWithId("shared-id", 1001, steward(30 + 64)));
    assert.deepEqual(codes(third), ["receipt-id-reused"]);
    assert.equal(third.findings![0].other, firsts[64], "the first of the steward's, named");
    const s = log.streamReads!;
    const all = await s.search({ receiptId: "shared-id" }, -1, 100);
    assert.deepEqual(all, [...firsts, again.index, third.index], "the id's search is intact");
  });
});
