// The sequenced log over the memory store: acknowledgements carry a head that verifies and a proof
// that closes against it; exactly-once (also within a batch); pushback; input errors with codes;
// a head signed by another key or with a bad root is refused (SPEC §22.2).
import assert from "node:assert/strict";
import {
  blake3Hasher,
  checkTreeHead,
  createMemoryStore,
  fsckLog,
  LogInputError,
  openMemoryLog,
  PushbackError,
  signTreeHead,
  treeHeadBytes,
  verifyConsistency,
  verifyInclusion,
  verifyTreeHead,
} from "./mod.ts";
import { fromHex } from "./crypto.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const secret = new Uint8Array(32).fill(7);

Deno.test("appends are acknowledged with a verifying head and inclusion proof", async () => {
  const store = createMemoryStore();
  const log = await openMemoryLog({ store, secretKey: secret, batchMax: 7, batchAgeMs: 1 });
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) => log.append(enc(`e${i}`))),
  );
  const indices = results.map((r) => r.index).sort((a, b) => a - b);
  assert.deepEqual(indices, Array.from({ length: 100 }, (_, i) => i));
  for (const r of results) {
    assert.ok(await verifyTreeHead(r.tree_head, log.signer()));
    assert.ok(r.created);
    assert.ok(verifyInclusion(
      blake3Hasher,
      r.index,
      r.tree_head.size,
      fromHex(r.leaf_hash),
      r.inclusion_proof.map(fromHex),
      fromHex(r.tree_head.root),
    ));
  }
  const head = await log.latestHead();
  assert.equal(head.size, 100);
  // Every stored head is consistent with the latest.
  for (const r of results) {
    const at = await log.headAt(r.tree_head.size);
    assert.deepEqual(at, r.tree_head);
    const p = await log.consistencyProof(r.tree_head.size, 100);
    assert.ok(
      verifyConsistency(
        blake3Hasher,
        r.tree_head.size,
        100,
        p,
        fromHex(r.tree_head.root),
        fromHex(head.root),
      ),
    );
  }
  for (let i = 0; i < 100; i += 13) {
    assert.deepEqual(
      await log.entry(i),
      enc(`e${results.find((r) => r.index === i) ? results.findIndex((r) => r.index === i) : -1}`),
    );
    const p = await log.inclusionProof(i, 100);
    const lh = blake3Hasher.leaf((await log.entry(i))!);
    assert.equal(await log.indexOfLeaf(lh), i);
    assert.ok(verifyInclusion(blake3Hasher, i, 100, lh, p, fromHex(head.root)));
  }
  assert.equal(await log.indexOfLeaf(new Uint8Array(32)), undefined);
  await log.close();
  const report = await fsckLog(store, log.publicKey());
  assert.deepEqual(report.problems, []);
  assert.equal(report.entries, 100);
});

Deno.test("identical bytes resolve to the original index, also within one batch", async () => {
  const log = await openMemoryLog({ secretKey: secret, batchMax: 100, batchAgeMs: 5 });
  const [a, b, c] = await Promise.all([
    log.append(enc("x")),
    log.append(enc("y")),
    log.append(enc("x")),
  ]);
  assert.equal(a.index, c.index);
  assert.ok(a.created && b.created && !c.created);
  const d = await log.append(enc("x"));
  assert.equal(d.index, a.index);
  assert.equal(d.created, false);
  assert.equal((await log.latestHead()).size, 2);
  await log.close();
});

Deno.test("bad input gets a stable code and changes nothing", async () => {
  const log = await openMemoryLog({ secretKey: secret });
  const codeOf = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      assert.ok(e instanceof LogInputError, String(e));
      return e.code;
    }
    return "no error";
  };
  assert.equal(await codeOf(log.append(new Uint8Array(0))), "entry-empty");
  assert.equal(await codeOf(log.append(new Uint8Array(65_536))), "entry-too-large");
  assert.equal(await codeOf(log.inclusionProof(0, 1)), "bad-size");
  assert.equal(await codeOf(log.consistencyProof(0, 0)), "bad-second");
  assert.equal(await codeOf(log.entry(-1)), "bad-index");
  assert.equal(await codeOf(log.indexOfLeaf(new Uint8Array(3))), "bad-leaf-hash");
  assert.equal((await log.append(new Uint8Array(65_535))).index, 0);
  assert.equal(await codeOf(log.inclusionProof(1, 1)), "bad-index");
  assert.equal(await codeOf(log.consistencyProof(0, 1)), "bad-first");
  assert.equal((await log.latestHead()).size, 1);
  await log.close();
});

Deno.test("a full queue pushes back with a retry delay", async () => {
  const log = await openMemoryLog({
    secretKey: secret,
    pendingMax: 3,
    batchMax: 100,
    batchAgeMs: 20,
  });
  const ok = [log.append(enc("1")), log.append(enc("2")), log.append(enc("3"))];
  await assert.rejects(
    log.append(enc("4")),
    (e) => e instanceof PushbackError && e.retryAfterMs > 0,
  );
  assert.equal((await Promise.all(ok)).length, 3);
  assert.equal((await log.append(enc("4"))).index, 3);
  await log.close();
});

Deno.test("tree heads: exact bytes, refused root, other key, altered field", async () => {
  const root = blake3Hasher.empty();
  const b = treeHeadBytes(258, root, 1_700_000_000_123);
  assert.equal(b.length, 49);
  assert.equal(b[0], 2);
  assert.deepEqual([...b.subarray(1, 9)], [0, 0, 0, 0, 0, 0, 1, 2]);
  assert.deepEqual(b.subarray(9, 41), root);
  assert.equal(new DataView(b.buffer).getBigUint64(41), 1_700_000_000_123n);
  const head = signTreeHead(258, root, 1_700_000_000_123, secret);
  assert.ok(await verifyTreeHead(head, head.signer));
  const other = signTreeHead(258, root, 1_700_000_000_123, new Uint8Array(32).fill(9));
  assert.equal((await checkTreeHead(other, head.signer)).ok, false);
  assert.deepEqual(await checkTreeHead({ ...other, signer: head.signer }), {
    ok: false,
    code: "head-bad-signature",
    detail: "Cannot verify tree head: signature does not verify",
  });
  for (
    const bad of [
      "",
      "00",
      head.root.slice(2),
      head.root + "00",
      head.root.toUpperCase(),
      "zz" + head.root.slice(2),
    ]
  ) {
    const c = await checkTreeHead({ ...head, root: bad });
    assert.equal(c.ok ? "ok" : c.code, "head-bad-root", JSON.stringify(bad));
  }
  assert.equal(await verifyTreeHead({ ...head, size: 259 }), false);
  assert.equal(await verifyTreeHead({ ...head, timestamp: head.timestamp + 1 }), false);
  assert.equal(await verifyTreeHead({ ...head, root: "00".repeat(32) }), false);
  assert.throws(() => treeHeadBytes(1, new Uint8Array(31), 0), /32 bytes/);
});
