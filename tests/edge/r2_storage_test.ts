// The sequencer's store (log/r2/r2_storage.ts) in Deno, fast: its SQLite over node:sqlite (the
// engine Durable Objects run, through their API's shape) and an in-memory R2 with conditional puts.
// A round failing after each of its steps (staged, uploaded, head, checkpoint, published), then a
// restart (a new store over the same SQLite file and bucket): the staged round is replayed,
// nothing acknowledged is lost, retries get their original indices, and the bucket passes an
// independent check of both views (checkpoints under the vkeys, every tile to the root, every
// bundle entry to its leaf). The SQLite window is pruned to a bound.
import assert from "node:assert/strict";
import { ed25519GenerateSecret, ed25519PublicKey } from "../../log/crypto.ts";
import { bytesEqual } from "../../verify/bytes.ts";
import {
  blake3Hasher,
  defaultLogName,
  type Log,
  openLog,
  sha256Hasher,
  TREE_VIEWS,
} from "../../log/mod.ts";
import {
  encodeVkey,
  openCheckpoint,
  SIG_ED25519,
  TileHashReader,
  tileWidthAt,
} from "../../log/c2sp/mod.ts";
import { openDurableStorage } from "../../log/durable/mod.ts";
import { R2PublishedStorage, type RoundStep } from "../../log/r2/r2_storage.ts";
import { checkpointKey, tileKey } from "../../log/r2/r2.ts";
import { memoryBucket, sqliteDurableStorage } from "../../fixtures/sqlite_durable.ts";

type Bucket = ReturnType<typeof memoryBucket>;

async function checkBucket(bucket: Bucket, secret: Uint8Array, acked: Map<number, Uint8Array>) {
  const name = defaultLogName(ed25519PublicKey(secret));
  let size = -1;
  for (const view of TREE_VIEWS) {
    const note = new TextDecoder().decode(bucket.objects.get(checkpointKey(view))!);
    const vkey = encodeVkey(`${name}/${view}`, SIG_ED25519, ed25519PublicKey(secret));
    const { checkpoint } = await openCheckpoint(note, vkey);
    const r = new TileHashReader(
      view === "blake3" ? blake3Hasher : sha256Hasher,
      checkpoint,
      (t) => {
        const b = bucket.objects.get(tileKey(view, t));
        return b ? Promise.resolve(b) : Promise.reject(new Error(`no ${tileKey(view, t)}`));
      },
    );
    const entries: Uint8Array[] = [];
    for (let n = 0; tileWidthAt(checkpoint.size, 0, n) > 0; n++) {
      entries.push(...await r.entries(n));
    }
    for (const [i, b] of acked) assert.deepEqual(entries[i], b, `${view}: entry ${i}`);
    if (size >= 0) assert.equal(checkpoint.size, size, "both views at one size");
    size = checkpoint.size;
  }
  return size;
}

const entry = (i: number) => new TextEncoder().encode(`entry ${i} ${"x".repeat(i % 50)}`);

for (const step of ["staged", "uploaded", "head", "checkpoint", "published"] as RoundStep[]) {
  Deno.test(`R2 store: a round failing after "${step}", then a restart: replayed, none lost`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "jc-r2store-" });
    const bucket = memoryBucket();
    const secretKey = ed25519GenerateSecret();
    let failAt: RoundStep | undefined;
    const open = async () => {
      const sql = sqliteDurableStorage(`${dir}/do.sqlite`);
      const store = new R2PublishedStorage(openDurableStorage(sql), bucket, {
        secretKey,
        window: 256,
        checkpointMs: 0,
        onStep: (s) => {
          if (s === failAt) {
            failAt = undefined;
            throw new Error(`injected failure after ${s}`);
          }
        },
      });
      const log = await openLog(store, { secretKey, batchMax: 64, batchAgeMs: 1 });
      await store.replay();
      return { log, sql, store };
    };
    let { log, sql, store } = await open();
    const acked = new Map<number, Uint8Array>();
    const append = async (l: Log, from: number, n: number) => {
      const rs = await Promise.all(
        Array.from({ length: n }, (_, k) => l.append(entry(from + k))),
      );
      rs.forEach((r, k) => acked.set(r.index, entry(from + k)));
      return rs;
    };
    try {
      await append(log, 0, 600);
      const small = store.databaseBytes();
      failAt = step;
      const failed = await Promise.allSettled(
        Array.from({ length: 10 }, (_, k) => log.append(entry(600 + k))),
      );
      assert.ok(failed.every((r) => r.status === "rejected"), "no append of the round answered");
      // The object restarts: a new store over the same SQLite file and bucket.
      await log.close().catch(() => {});
      sql.close();
      ({ log, sql, store } = await open());
      const again = await append(log, 600, 10);
      assert.deepEqual(again.map((r) => r.index).sort((a, b) => a - b), [
        600,
        601,
        602,
        603,
        604,
        605,
        606,
        607,
        608,
        609,
      ]);
      await store.flushCheckpoint();
      assert.equal(await checkBucket(bucket, secretKey, acked), 610);
      // Past the window: entry 0 keeps index 0 (found through R2's leaf object).
      const first = [...acked].find(([, b]) => bytesEqual(b, entry(0)))![0];
      assert.equal((await log.append(entry(0))).index, first);
      await append(log, 1000, 600);
      assert.ok(store.databaseBytes() < small + 200_000, "the SQLite window stays bounded");
      await store.flushCheckpoint();
      assert.equal(await checkBucket(bucket, secretKey, acked), 1210);
    } finally {
      await log.close().catch(() => {});
      sql.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
