// The sequencer over a store with staged commits (log/storage.ts `StagedCommit`, the SQLite
// backend's WAL fdatasync off the event loop): while batch k becomes durable, batch k+1 is
// sequenced and committed; nothing is answered, and no head served, before its batch is durable;
// a durability failure fails that batch and every batch committed after it.
import assert from "node:assert/strict";
import { type Batch, createMemoryStore, type LogStorage, openLog } from "../../log/mod.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const secretKey = new Uint8Array(32).fill(6);

/** The memory store with commits whose durability the test releases (or fails) by hand. */
function staged() {
  const inner = createMemoryStore();
  const gates: { batch: Batch; ok: () => void; fail: (e: Error) => void }[] = [];
  const stagedCommit = {
    async commitBatchStaged(batch: Batch) {
      await inner.commitBatch(batch);
      const { promise, resolve, reject } = Promise.withResolvers<void>();
      gates.push({ batch, ok: resolve, fail: reject });
      return { durable: promise };
    },
  };
  const store: LogStorage = {
    ...inner,
    capabilities: () => ({ ...inner.capabilities(), stagedCommit }),
  };
  return { store, gates };
}

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

Deno.test("staged commits: batch k+1 is committed while k becomes durable; answers wait for durability", async () => {
  const { store, gates } = staged();
  const log = await openLog(store, { secretKey, batchMax: 2, batchAgeMs: 1 });
  let answered = 0;
  const ps = ["a", "b", "c", "d", "e", "f"].map((x) =>
    log.append(enc(x)).then((r) => (answered++, r))
  );
  await tick();
  // Two batches committed (k and k+1), the third waits: one batch in flight behind the other.
  assert.equal(gates.length, 2, "k+1 committed while k is not yet durable");
  assert.equal(answered, 0, "nothing answered before durable");
  assert.equal((await log.latestHead()).size, 0, "no head served before durable");
  assert.equal(await log.entry(0), undefined, "no entry served before durable");
  gates[0].ok();
  await tick();
  assert.equal(answered, 2);
  assert.equal((await log.latestHead()).size, 2);
  assert.equal(gates.length, 3, "the next batch goes once one is durable");
  gates[1].ok();
  await tick();
  gates[2].ok();
  const rs = await Promise.all(ps);
  assert.deepEqual(rs.map((r) => r.index), [0, 1, 2, 3, 4, 5]);
  assert.equal((await log.latestHead()).size, 6);
  // every answer's head covers its entry and is the head of a durable batch
  for (const r of rs) assert.ok(r.tree_head.size > r.index);
  await log.close();
});

Deno.test("staged commits: a failed durability fails its batch and the batch after it", async () => {
  const { store, gates } = staged();
  const log = await openLog(store, { secretKey, batchMax: 1, batchAgeMs: 1 });
  const a = log.append(enc("a")).then(() => "ok", (e) => e.code);
  const b = log.append(enc("b")).then(() => "ok", (e) => e.code);
  await tick();
  assert.equal(gates.length, 2);
  gates[0].fail(new Error("EIO"));
  gates[1].fail(new Error("EIO")); // the store poisons every later sync, as the SQLite one does
  assert.deepEqual([await a, await b], ["storage-commit", "storage-commit"]);
  assert.equal((await log.latestHead()).size, 0, "the failed batches' heads were never served");
  const c = log.append(enc("c"));
  await tick();
  gates.at(-1)!.ok();
  const r = await c;
  // the re-proven store still holds a and b (fail-and-persist): c follows them
  assert.equal(r.index, 2);
  await log.check();
  await log.close();
});
