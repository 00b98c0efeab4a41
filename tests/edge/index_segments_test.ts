// R2's index past the dedup window (issue 29, log/r2/index_segments.ts, docs/EDGE.md "The index
// segments"), in Deno over node:sqlite and an in-memory R2: every key of a segment is found and
// no other (property test, merged levels included); the sequencer's store writes one segment per
// 256-entry block and the merges, never a per-entry object, and answers resubmissions and twins
// older than the window with their original indices through them; a merge's put failing fails
// the round, and a restart replays it to identical bytes with every retry at its first index;
// SQLite rows are written per round, not per entry.
import assert from "node:assert/strict";
import fc from "fast-check";
import { ed25519GenerateSecret } from "../../log/crypto.ts";
import { type Log, openLog } from "../../log/mod.ts";
import { openDurableStorage } from "../../log/durable/mod.ts";
import {
  BLOCK,
  CONTENT_KIND,
  type IndexKind,
  type IndexRecord,
  LEAF_KIND,
  R2PublishedStorage,
  r2RangeRead,
  SegmentIndex,
  segmentKey,
  SegmentWriter,
} from "../../log/r2/mod.ts";
import type { R2BucketLike } from "../../log/r2/mod.ts";
import { memoryBucket, sqliteDurableStorage } from "../../fixtures/sqlite_durable.ts";
import { validEnvelope } from "../../fixtures/app.ts";
import { retagged } from "../_twins.ts";

const key = (n: number, salt: number) => {
  const k = new Uint8Array(32);
  const v = new DataView(k.buffer);
  for (let i = 0; i < 8; i++) v.setUint32(4 * i, Math.imul(n + 1, 0x9e3779b1) ^ (salt * 7919 + i));
  k[0] = (n * 37 + salt) & 255;
  return k;
};

Deno.test("index segments: every key found at its index, no other (merged levels too)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 0, max: 1000 }),
      fc.integer({ min: 0, max: 255 }),
      async (blocks, salt, withIds) => {
        const bucket = memoryBucket();
        const read = r2RangeRead(bucket);
        const w = new SegmentWriter(read, async (k, b) => void await bucket.put(k, b));
        const all: IndexRecord[] = [];
        for (let b = 0; b < blocks; b++) {
          const rs: IndexRecord[] = [];
          for (let i = b * BLOCK; i < (b + 1) * BLOCK; i++) {
            rs.push({ key: key(i, salt), kind: LEAF_KIND, index: i });
            if (i % 256 < withIds) rs.push({ key: key(i, salt + 1), kind: CONTENT_KIND, index: i });
          }
          const seg = w.block(b, rs);
          await bucket.put(seg.key, seg.bytes);
          all.push(...rs);
        }
        await w.merges(0, blocks, 0);
        if (blocks >= 16) assert.ok(bucket.objects.has(segmentKey(1, 0)));
        const idx = new SegmentIndex(read);
        const sample = all.filter((_, k) => k % 97 === 0);
        const got = await idx.lookup(sample, blocks, Infinity, 0);
        assert.deepEqual(got, sample.map((r) => r.index));
        // absent keys, and a key of the other kind
        const absent: { key: Uint8Array; kind: IndexKind }[] = [
          { key: key(10_000_000, salt), kind: LEAF_KIND },
          { key: key(3, salt), kind: CONTENT_KIND },
        ];
        const none = await idx.lookup(absent, blocks, Infinity, 0);
        assert.deepEqual(none, [undefined, undefined]);
        // segments wholly at or above `before` are the caller's window: not read
        const below = await idx.lookup([sample[sample.length - 1]], blocks, 0, 0);
        assert.deepEqual(below, [undefined]);
      },
    ),
    { numRuns: 12 },
  );
});

/** A bucket whose put of a key matching `failOn` fails once. */
function failingOnce(b: R2BucketLike, failOn: { key?: RegExp }): R2BucketLike {
  return {
    get: (k, o) => b.get(k, o),
    put: (k, v, o) => {
      if (failOn.key?.test(k)) {
        failOn.key = undefined;
        return Promise.reject(new Error(`injected put failure (${k})`));
      }
      return b.put(k, v, o);
    },
  };
}

Deno.test("R2 store: one index segment a block, exactly-once past the window through them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-r2index-" });
  const bucket = memoryBucket();
  const failOn: { key?: RegExp } = {};
  const secretKey = ed25519GenerateSecret();
  const open = async () => {
    const sql = sqliteDurableStorage(`${dir}/do.sqlite`);
    const store = new R2PublishedStorage(openDurableStorage(sql), failingOnce(bucket, failOn), {
      secretKey,
      window: 256,
      checkpointMs: 0,
    });
    const log = await openLog(store, { secretKey, batchMax: 128, batchAgeMs: 1 });
    await store.replay();
    return { log, sql, store };
  };
  let { log, sql, store } = await open();
  const plain = (i: number) => new TextEncoder().encode(`plain entry ${i}`);
  const envs = Array.from({ length: 40 }, (_, k) => validEnvelope(5_000 + k));
  const appendAll = async (l: Log, es: Uint8Array[]) => {
    const out: number[] = [];
    for (let k = 0; k < es.length; k += 128) {
      out.push(
        ...(await Promise.all(es.slice(k, k + 128).map((e) => l.append(e)))).map((r) => r.index),
      );
    }
    return out;
  };
  try {
    const envIdx = await appendAll(log, envs);
    const firstPlain = await appendAll(log, Array.from({ length: 3800 }, (_, k) => plain(k)));
    // the round that completes block 15 makes the level-1 merge: its put fails, nothing answered
    failOn.key = /^index\/1\/0$/;
    const tail = Array.from({ length: 300 }, (_, k) => plain(10_000 + k));
    const failed = await Promise.allSettled(tail.map((e) => log.append(e)));
    assert.ok(failed.some((r) => r.status === "rejected"), "the failed round is not answered");
    const ok = failed.flatMap((r) => (r.status === "fulfilled" ? [r.value.index] : []));
    // the object restarts: the staged round is replayed (identical segment bytes), retries land once
    await log.close().catch(() => {});
    sql.close();
    ({ log, sql, store } = await open());
    const tailIdx = await appendAll(log, tail);
    for (const i of ok) assert.ok(tailIdx.includes(i), "an answered entry keeps its index");
    const size = (await log.latestHead()).size;
    assert.equal(size, 40 + 3800 + 300);
    const keys = [...bucket.objects.keys()];
    assert.deepEqual(keys.filter((k) => /^(leaves|contents)\//.test(k)), [], "no per-entry object");
    const segs = keys.filter((k) => k.startsWith("index/") && k !== "index/start").sort();
    assert.equal(segs.length, Math.floor(size / BLOCK) + 1, segs.join(" "));
    assert.ok(bucket.objects.has(segmentKey(1, 0)));
    // past the window: the bytes again, a twin (other bytes, one signed content), a plain entry
    const gets0 = store.stats.r2Gets;
    assert.equal((await log.append(envs[3])).index, envIdx[3]);
    assert.equal((await log.append(retagged(envs[5]))).index, envIdx[5]);
    assert.equal((await log.append(plain(2000))).index, firstPlain[2000]);
    assert.ok(store.stats.r2Gets > gets0, "found through R2's segments");
    // a fresh entry: every live segment's head is cached, its filter says no: no read
    const gets1 = store.stats.r2Gets;
    assert.equal((await log.append(plain(99_999))).index, size);
    assert.ok(store.stats.r2Gets - gets1 <= 1, `${store.stats.r2Gets - gets1} reads for a miss`);
    // rounds of 128 past the window: SQLite rows and R2 puts per append, the window's prune
    // included (entries without stream search keys; a receipt adds a row per key: DECISIONS.md)
    const s0 = store.stats;
    await appendAll(log, Array.from({ length: 1024 }, (_, k) => plain(200_000 + k)));
    const s1 = store.stats;
    const rows = (s1.sqliteRowsWritten - s0.sqliteRowsWritten) / 1024;
    const puts = (s1.r2Puts - s0.r2Puts) / 1024;
    assert.ok(rows <= 0.5, `${rows} SQLite rows per append`);
    assert.ok(puts <= 0.1, `${puts} R2 puts per append (rounds of 128, checkpoints every round)`);
  } finally {
    await log.close().catch(() => {});
    sql.close();
    await Deno.remove(dir, { recursive: true });
  }
});
