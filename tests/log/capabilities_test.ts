// A store's optional extensions (log/storage.ts `StorageCapabilities`; issue 22 "Narrow storage"):
// a log reads them once, when it opens, and a store offering none serves a log from the required
// core alone (appends, exactly-once, proofs, tiles), refusing only what needs an extension.
import assert from "node:assert/strict";
import { createMemoryStore, type LogStorage, LogStorageError, openLog } from "../../log/mod.ts";
import { toHex } from "../../log/crypto.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const secretKey = new Uint8Array(32).fill(9);

Deno.test("capabilities: a log asks its store once, when it opens", async () => {
  const inner = createMemoryStore();
  let asked = 0;
  const store: LogStorage = {
    ...inner,
    capabilities: () => (asked++, inner.capabilities()),
  };
  const log = await openLog(store, { secretKey, batchAgeMs: 1 });
  assert.equal(asked, 1);
  const rs = await Promise.all(Array.from({ length: 40 }, (_, i) => log.append(enc(`e${i}`))));
  assert.equal((await log.append(enc("e3"))).index, rs[3].index);
  await log.entry(7);
  await log.tile("blake3", 0, 0, 32);
  await log.agentHead!("did:key:zNone");
  await log.check();
  await log.close();
  assert.equal(asked, 1, "no part of the log asked again");
});

Deno.test("capabilities: a store with none serves a log from the core alone", async () => {
  const store: LogStorage = { ...createMemoryStore(), capabilities: () => ({}) };
  const log = await openLog(store, { secretKey, batchAgeMs: 1 });
  const rs = await Promise.all(Array.from({ length: 300 }, (_, i) => log.append(enc(`c${i}`))));
  assert.deepEqual(rs.map((r) => r.index), Array.from({ length: 300 }, (_, i) => i));
  // exactly-once through `leafCandidates` (no batched lookup offered)
  const again = await log.append(enc("c17"));
  assert.equal(again.index, 17);
  assert.equal(again.created, false);
  // proofs from the stored tiles, as the sequencer answered them
  const r = rs[250];
  const p = await log.inclusionProof(250, r.tree_head.size);
  assert.deepEqual(p.map(toHex), r.inclusion_proof);
  // a full published tile assembled from the range read (no tile groups offered)
  assert.equal((await log.tile("blake3", 0, 0, 256))?.length, 256 * 32);
  // chain heads need the extension: refused with its code, the log keeps serving
  await assert.rejects(
    log.agentHead!("did:key:zA"),
    (e: LogStorageError) => e.code === "storage-no-agent-heads",
  );
  await log.check();
  await log.close();
});
