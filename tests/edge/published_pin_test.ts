// The edge's pin in Deno (log/r2/published_pin.ts, r2_storage.ts's round marker; issue 27): the
// sequencer's store over node:sqlite files and an in-memory R2 with conditional puts. The checks
// against what R2 published (empty, behind, another root, ahead and consistent, ahead and not),
// a genuinely new log, and a second store publishing a round from a size R2 already holds a round
// from (a second writer the open check cannot see): refused with the code before any head.
import assert from "node:assert/strict";
import { ed25519GenerateSecret } from "../../log/crypto.ts";
import {
  type Log,
  LogStorageError,
  openLog,
  STORE_BEHIND_SIGNED_HEAD,
  STORE_FORKS_SIGNED_HEAD,
} from "../../log/mod.ts";
import { openDurableStorage } from "../../log/durable/mod.ts";
import { R2PublishedStorage } from "../../log/r2/r2_storage.ts";
import { headKey } from "../../log/r2/r2.ts";
import { checkAgainstPin, proveExtends, readPublishedPin } from "../../log/r2/published_pin.ts";
import { memoryBucket, sqliteDurableStorage } from "../../fixtures/sqlite_durable.ts";

type Bucket = ReturnType<typeof memoryBucket>;
const entry = (tag: string, i: number) => new TextEncoder().encode(`${tag} entry ${i}`);

interface Opened {
  log: Log;
  store: R2PublishedStorage;
  close(): Promise<void>;
}

async function open(path: string, bucket: Bucket, secretKey: Uint8Array): Promise<Opened> {
  const sql = sqliteDurableStorage(path);
  const store = new R2PublishedStorage(openDurableStorage(sql), bucket, {
    secretKey,
    window: 256,
    checkpointMs: 0,
  });
  const log = await openLog(store, { secretKey, batchMax: 64, batchAgeMs: 1 });
  return {
    log,
    store,
    close: async () => {
      await log.close().catch(() => {});
      sql.close();
    },
  };
}

const code = (e: unknown) => (e as LogStorageError).code;

Deno.test("edge pin: the store's head against R2's checkpoints, latest head and round markers", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-edge-pin-unit-" });
  const secretKey = ed25519GenerateSecret();
  const bucket = memoryBucket();
  try {
    // A genuinely new log: an empty store, nothing published.
    assert.deepEqual(checkAgainstPin(undefined, await readPublishedPin(bucket, 0), undefined), []);
    const a = await open(`${dir}/a.sqlite`, bucket, secretKey);
    // Only the empty head published: an empty store may sign it again (its root is fixed).
    assert.deepEqual(checkAgainstPin(undefined, await readPublishedPin(bucket, 0), undefined), []);
    await Promise.all([0, 1, 2].map((i) => a.log.append(entry("a", i))));
    const at3 = (await a.store.latestHead())!;
    assert.equal(at3.size, 3);
    const name = a.log.logName();
    // The store itself: at R2's head.
    assert.deepEqual(checkAgainstPin(at3, await readPublishedPin(bucket, 3), name), []);
    // Empty (lost): behind, by the round marker from 0 and by the checkpoints.
    assert.throws(
      () => checkAgainstPin(undefined, { claims: [], roundFromHere: "x" }, undefined),
      (e) => code(e) === STORE_BEHIND_SIGNED_HEAD,
    );
    const pin0 = await readPublishedPin(bucket, 0);
    assert.ok(pin0.roundFromHere, "the round from 0 left its marker");
    assert.throws(
      () => checkAgainstPin(undefined, { claims: pin0.claims }, undefined),
      (e) => code(e) === STORE_BEHIND_SIGNED_HEAD,
    );
    // Another root at R2's size: diverges.
    const other = { ...at3, root: new Uint8Array(32).fill(7) };
    assert.throws(
      () => checkAgainstPin(other, { claims: pin0.claims }, name),
      (e) => code(e) === STORE_FORKS_SIGNED_HEAD,
    );
    // Ahead of R2 (a crash before publishing): consistent, proven from the log's tiles.
    await a.log.append(entry("a", 3));
    const at4 = (await a.store.latestHead())!;
    const below = checkAgainstPin(at4, { claims: pin0.claims }, name);
    assert.ok(below.length >= 1 && below.every((c) => c.size === 3));
    await proveExtends(at4, below, (first) => a.log.consistencyProof(first, at4.size));

    // Another history, ahead of R2's size 3 under the same key: it does not extend R2's head.
    const elsewhere = memoryBucket();
    const b = await open(`${dir}/b.sqlite`, elsewhere, secretKey);
    await Promise.all([0, 1, 2, 3, 4].map((i) => b.log.append(entry("b", i))));
    const b5 = (await b.store.latestHead())!;
    const bBelow = checkAgainstPin(b5, { claims: pin0.claims }, name);
    await assert.rejects(
      proveExtends(b5, bBelow, (first) => b.log.consistencyProof(first, b5.size)),
      (e) => code(e) === STORE_FORKS_SIGNED_HEAD,
    );
    await b.close();
    await a.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("edge pin: a second store publishing a round from a size R2 holds one from: refused, no head", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-edge-pin-round-" });
  const secretKey = ed25519GenerateSecret();
  const bucket = memoryBucket();
  try {
    const a = await open(`${dir}/a.sqlite`, bucket, secretKey);
    await Promise.all([0, 1, 2].map((i) => a.log.append(entry("a", i))));
    const head3 = bucket.objects.get(headKey(3));
    assert.ok(head3);
    // A second writer the open check never saw (a fresh store over the same bucket and key).
    const b = await open(`${dir}/b.sqlite`, bucket, secretKey);
    for (const i of [0, 1]) {
      await assert.rejects(
        b.log.append(entry("b", i)),
        (e) => code(e) === STORE_BEHIND_SIGNED_HEAD,
        "refused with the code, every time",
      );
    }
    await assert.rejects(b.log.check(), (e) => code(e) === STORE_BEHIND_SIGNED_HEAD);
    assert.equal(bucket.objects.get(headKey(1)), undefined, "no second head at size 1");
    assert.deepEqual(bucket.objects.get(headKey(3)), head3, "R2's head at 3 unchanged");
    await b.close();
    await a.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
