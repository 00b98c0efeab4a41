// The Worker's reader of R2 (edge/worker/r2_log.ts) under the one read rule (issue 27,
// log/read_faults.ts): a log published to an in-memory R2 by the sequencer's own store
// (R2PublishedStorage over node:sqlite), then objects deleted from the bucket or its reads made to
// fail. Inside the published size every such read is `storage-read` (the API's 503
// `storage-unavailable`), never absence; beyond it, absence as before; health is degraded while
// the read still fails and clears once it answers again.
import assert from "node:assert/strict";
import { ed25519GenerateSecret, ed25519PublicKey } from "../../log/crypto.ts";
import { defaultLogName, LogStorageError, openLog } from "../../log/mod.ts";
import { openDurableStorage } from "../../log/durable/mod.ts";
import { ENTRIES } from "../../log/c2sp/mod.ts";
import { R2PublishedStorage } from "../../log/r2/r2_storage.ts";
import { R2Log } from "../../edge/worker/r2_log.ts";
import { tileKey } from "../../log/r2/r2.ts";
import { problemResponse } from "../../api/http/errors.ts";
import { memoryBucket, sqliteDurableStorage } from "../../fixtures/sqlite_durable.ts";

const N = 600;
const entry = (i: number) => new TextEncoder().encode(`entry ${i} ${"x".repeat(i % 50)}`);

async function storageRead(p: Promise<unknown>, what: string): Promise<void> {
  const e = await p.then(() => assert.fail(`${what}: answered`), (e) => e);
  assert.ok(e instanceof LogStorageError, `${what}: ${e}`);
  const r = problemResponse(e);
  assert.equal(r.status, 503, what);
  assert.equal((await r.json()).code, "storage-unavailable", what);
}

Deno.test("R2 reader: an object missing or unreadable inside the published size is storage-read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-r2faults-" });
  const bucket = memoryBucket();
  const secretKey = ed25519GenerateSecret();
  const sql = sqliteDurableStorage(`${dir}/do.sqlite`);
  const store = new R2PublishedStorage(openDurableStorage(sql), bucket, {
    secretKey,
    window: 256,
    checkpointMs: 0,
  });
  const log = await openLog(store, { secretKey, batchMax: 64, batchAgeMs: 1 });
  try {
    await store.replay();
    await Promise.all(Array.from({ length: N }, (_, i) => log.append(entry(i))));
    let failing = false;
    const faulty = {
      ...bucket,
      get: (key: string) => failing ? Promise.reject(new Error("R2 down")) : bucket.get(key),
    };
    const r2 = new R2Log({
      bucket: faulty,
      append: () => Promise.reject(new Error("no appends here")),
      bootstrap: () => Promise.reject(new Error("published already")),
      publicKey: ed25519PublicKey(secretKey),
      logName: defaultLogName(ed25519PublicKey(secretKey)),
      cacheBytes: 0, // every read goes to R2
      latestMs: 0,
    });
    assert.equal((await r2.latestHead()).size, N);
    const bundle1 = tileKey("blake3", { level: ENTRIES, index: 1, width: 256 });
    const tile0 = tileKey("sha256", { level: 0, index: 0, width: 256 });
    const kept = new Map([[bundle1, bucket.objects.get(bundle1)!], [
      tile0,
      bucket.objects.get(tile0)!,
    ]]);
    for (const k of kept.keys()) bucket.objects.delete(k);
    await storageRead(r2.entry(300), "entry 300 (its bundle is gone)");
    await storageRead(r2.bundle(1, 256), "bundle 1");
    await storageRead(r2.tile("sha256", 0, 0, 256), "sha256 tile 0/000");
    // beyond the published size: absent
    assert.equal(await r2.entry(N), undefined);
    assert.equal(await r2.tile("blake3", 0, 3, 1), undefined);
    assert.equal(await r2.bundle(2, 89), undefined);
    // the rest is served
    assert.ok(await r2.entry(10));
    assert.ok(await r2.tile("blake3", 0, 0, 256));
    await assert.rejects(r2.check(), (e: LogStorageError) => e.code === "storage-read");
    assert.equal(r2.readFaults(), 3);
    // R2 failing: the same (the head is re-read first, so health names the store)
    failing = true;
    await storageRead(r2.entry(11), "entry 11, R2 down");
    failing = false;
    // the objects back (a re-upload): health clears once each failing read answers (after 1 s)
    for (const [k, v] of kept) bucket.objects.set(k, v);
    await new Promise((r) => setTimeout(r, 1100));
    await r2.check();
    assert.ok(await r2.entry(300));
  } finally {
    await log.close();
    sql.close();
    await Deno.remove(dir, { recursive: true });
  }
});
