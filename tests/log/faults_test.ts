// Fault injection on the memory backend (after sunlight's testlog_test.go): commits fail and
// persist, or fail and do not persist, at random. After every fault no half-written batch is
// visible, a log reopened over the store proves its head, every acknowledged entry is at its
// acknowledged index, every acknowledged head is consistent with the latest, a retried append
// resolves to its original index, and fsck is clean.
import assert from "node:assert/strict";
import {
  blake3Hasher,
  type CommitFault,
  createMemoryStore,
  fsckLog,
  type Log,
  LogStorageError,
  openMemoryLog,
  type TreeHead,
  verifyConsistency,
} from "../../log/mod.ts";
import { fromHex } from "../../verify/mod.ts";

const secretKey = new Uint8Array(32).fill(11);
const enc = (s: string) => new TextEncoder().encode(s);

async function checkAll(log: Log, acked: Map<string, number>, heads: TreeHead[]) {
  const head = await log.latestHead();
  for (const [e, index] of acked) assert.deepEqual(await log.entry(index), enc(e), e);
  for (const hd of heads) {
    if (hd.size === 0 || hd.size > head.size) {
      assert.ok(hd.size <= head.size);
      continue;
    }
    const p = await log.consistencyProof(hd.size, head.size);
    assert.ok(
      verifyConsistency(blake3Hasher, hd.size, head.size, p, fromHex(hd.root), fromHex(head.root)),
    );
  }
}

Deno.test("memory backend: random injected faults never lose or split a batch", async () => {
  const store = createMemoryStore();
  let seed = 99;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let faults = 0;
  store.faultPlan = () => {
    const r = rand();
    if (r < 0.15) return (faults++, "fail-and-persist");
    if (r < 0.3) return (faults++, "fail-and-not-persist");
    return undefined;
  };
  let log = await openMemoryLog({ store, secretKey, batchMax: 4, batchAgeMs: 1 });
  const acked = new Map<string, number>();
  const heads: TreeHead[] = [];
  const failed: string[] = [];
  for (let round = 0; round < 60; round++) {
    const batch = Array.from({ length: 1 + Math.floor(rand() * 9) }, (_, i) => `r${round}-${i}`);
    // Earlier failures are retried alongside: each must land exactly once.
    const retry = failed.splice(0, failed.length);
    const all = [...batch, ...retry];
    const before = (await store.latestHead())!.size;
    const results = await Promise.allSettled(all.map((e) => log.append(enc(e))));
    results.forEach((r, i) => {
      if (r.status === "fulfilled") {
        const prev = acked.get(all[i]);
        assert.ok(prev === undefined || prev === r.value.index, `${all[i]} moved`);
        acked.set(all[i], r.value.index);
        heads.push(r.value.tree_head);
      } else {
        assert.ok(r.reason instanceof LogStorageError, String(r.reason));
        failed.push(all[i]);
      }
    });
    // No half-written batch: the stored head covers exactly the stored entries, whole batches.
    const after = (await store.latestHead())!;
    assert.ok(after.size >= before);
    assert.equal(await store.entry(after.size), undefined);
    if (after.size > 0) assert.ok(await store.entry(after.size - 1));
    if (round % 10 === 9) {
      await log.close(); // restart over the same store
      log = await openMemoryLog({ store, secretKey, batchMax: 4, batchAgeMs: 1 });
    }
    heads.splice(0, Math.max(0, heads.length - 20)); // the newest acknowledged heads
    await checkAll(log, acked, heads);
  }
  store.faultPlan = undefined;
  for (const e of failed) acked.set(e, (await log.append(enc(e))).index);
  await checkAll(log, acked, heads);
  const report = await fsckLog(store, log.publicKey());
  assert.deepEqual(report.problems, []);
  assert.equal(report.entries, new Set(acked.values()).size);
  assert.ok(faults >= 20, `only ${faults} faults injected`);
  await log.close();
});

Deno.test("fail-and-persist: the failed append's retry resolves to the index it was stored at", async () => {
  const store = createMemoryStore();
  const log = await openMemoryLog({ store, secretKey, batchAgeMs: 1 });
  await log.append(enc("a"));
  for (const fault of ["fail-and-persist", "fail-and-not-persist"] as CommitFault[]) {
    store.injectFault(fault);
    await assert.rejects(log.append(enc(fault)), LogStorageError);
    const r = await log.append(enc(fault));
    assert.equal(r.created, fault === "fail-and-not-persist");
    assert.equal(r.index, fault === "fail-and-persist" ? 1 : 2);
  }
  assert.equal((await log.latestHead()).size, 3);
  assert.deepEqual((await fsckLog(store, log.publicKey())).problems, []);
  await log.close();
});

Deno.test("a store whose nodes disagree with its head is refused on open, and fsck says why", async () => {
  const store = createMemoryStore();
  const log = await openMemoryLog({ store, secretKey, batchAgeMs: 1 });
  await Promise.all(Array.from({ length: 40 }, (_, i) => log.append(enc(`x${i}`))));
  await log.close();
  // Corrupt the stored right-edge tile behind the store's back.
  const tile = (await store.tile(0, 2))!;
  tile[5] ^= 1;
  const original = store.tile.bind(store);
  store.tile = (l, i) => (l === 0 && i === 2 ? Promise.resolve(tile.slice()) : original(l, i));
  await assert.rejects(
    openMemoryLog({ store, secretKey }),
    /Cannot open log: the stored tree nodes give root/,
  );
  const report = await fsckLog(store, log.publicKey());
  assert.equal(report.ok, false);
  assert.ok(report.problems.some((p) => p.startsWith("tile 0/2:")), report.problems.join("\n"));
  // A corrupted entry is found too.
  store.tile = original;
  const entry = store.entry.bind(store);
  store.entry = (i) => (i === 3 ? Promise.resolve(enc("forged")) : entry(i));
  const entries = store.entries.bind(store);
  store.entries = async (s, n) =>
    (await entries(s, n)).map((e, k) => (s + k === 3 ? enc("forged") : e));
  const r2 = await fsckLog(store, log.publicKey());
  assert.ok(r2.problems.some((p) => p.startsWith("tile 0/0:")), r2.problems.join("\n"));
  assert.ok(r2.problems.some((p) => p.startsWith("entry 3:")), r2.problems.join("\n"));
});
