// Key-event chains at append (issue 25; docs/KEYS.md) on the SQLite store, below HTTP: events and
// receipts of one batch are judged in log order (a rotation retires its old key for the receipts
// after it in the same batch, not for those before), refusals get no index, a fork is logged and
// freezes the identity, and the state survives a reopen (it moved in the batches' commits).
import assert from "node:assert/strict";
import { type Log, LogInputError, openLog } from "../../log/mod.ts";
import { openSqliteStorage } from "../../log/sqlite/mod.ts";
import {
  blake3,
  type CborMap,
  coseSign1,
  didKeyFromPublicKey,
  ed25519PublicKey,
  encodeCbor,
  fromJson,
  readJcpObject,
  sealJcpObject,
} from "../../verify/mod.ts";
import { receiptCore } from "../../fixtures/app.ts";
import { DatabaseSync } from "node:sqlite";

const KEY = new Uint8Array(32).fill(3);
const sk = (k: number) => new Uint8Array(32).fill(40 + k);
const did = (k: number) => didKeyFromPublicKey(ed25519PublicKey(sk(k)));
const ID = did(0);

function event(seq: number, parent?: Uint8Array, salt = 0, signer = seq): Uint8Array {
  const core = new Map<string, unknown>([
    ["identity", ID],
    ["seq", seq],
    ["current", did(signer)],
    ["next_hash", blake3(ed25519PublicKey(sk(seq + 1)))],
    ["nonce", new Uint8Array(16).fill(salt)],
  ]);
  if (parent) core.set("parent", parent);
  return sealJcpObject(core as CborMap, sk(signer));
}

const receipt = (n: number, k: number) =>
  coseSign1(encodeCbor(fromJson(receiptCore(ID, n)) as CborMap), sk(k), did(k));

async function withLog(fn: (log: Log, reopen: () => Promise<Log>) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/log.sqlite`;
  // one batch per turn: appends made together are judged together, in order
  const open = () => openLog(openSqliteStorage(path), { secretKey: KEY, batchAgeMs: 20 });
  let log = await open();
  try {
    await fn(log, async () => {
      await log.close();
      return log = await open();
    });
  } finally {
    await log.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const codeOf = (r: PromiseSettledResult<unknown>) =>
  r.status === "fulfilled" ? "logged" : (r.reason as LogInputError).code;

Deno.test("keys: one batch is judged in log order; refusals get no index", async () => {
  await withLog(async (log, reopen) => {
    const e0 = event(0);
    const c0 = readJcpObject(e0)!.contentId;
    const e1 = event(1, c0);
    // all in one batch: k0's receipt before the rotation is logged, after it refused
    const out = await Promise.allSettled([
      log.append(receipt(1, 1)), // k1 before anything: no chain, kid ≠ steward → logged here
      // (the verifier refuses it at the route; the log alone only judges chains)
      log.append(e0),
      log.append(receipt(2, 0)),
      log.append(event(2, c0)), // gap
      log.append(event(1, blake3(new Uint8Array(1)))), // wrong parent
      log.append(event(1, c0, 0, 0)), // thief with k0: next-mismatch
      log.append(e1),
      log.append(receipt(3, 0)), // k0 after the rotation: refused
      log.append(receipt(4, 1)), // k1 after it: logged
    ]);
    assert.deepEqual(out.map(codeOf), [
      "logged",
      "logged",
      "logged",
      "key-event-seq-gap",
      "key-event-parent-mismatch",
      "key-event-next-mismatch",
      "logged",
      "key-rotated-out",
      "logged",
    ]);
    const idx = out.filter((r) => r.status === "fulfilled").map((r) =>
      (r as PromiseFulfilledResult<{ index: number }>).value.index
    );
    assert.deepEqual(idx, [0, 1, 2, 3, 4]); // consecutive: the refused got none
    const k = (out[8] as PromiseFulfilledResult<{ key_event?: unknown }>).value.key_event;
    assert.deepEqual(k, { identity: ID, seq: 1, index: 3 });
    // a fork: a second valid event at seq 1, then the identity is frozen
    const fork = await log.append(event(1, c0, 9));
    assert.deepEqual(fork.key_event, {
      identity: ID,
      seq: 1,
      index: 3,
      forked_at: fork.index,
      fork_of: 3,
    });
    const e2 = event(2, readJcpObject(e1)!.contentId);
    await assert.rejects(log.append(e2), (e: LogInputError) => e.code === "key-event-fork");
    const before = await log.streamReads!.identity(ID);
    const again = await reopen();
    assert.deepEqual(await again.streamReads!.identity(ID), before);
    assert.deepEqual(before!.events, [1, 3]);
    assert.deepEqual(before!.forks, [{ seq: 1, index: fork.index, first: 3 }]);
    assert.equal((await again.append(receipt(5, 1))).key_event?.forked_at, fork.index);
    await assert.rejects(
      again.append(receipt(6, 0)),
      (e: LogInputError) => e.code === "key-rotated-out",
    );
  });
});

Deno.test("keys: the state carried into a new shard's store judges there, each index's shard named", async () => {
  const dir = await Deno.makeTempDir();
  const opts = { secretKey: KEY, batchAgeMs: 5 };
  // s0 written by a build before the carry: its key tables lack the shard columns (migrated)
  const old = new DatabaseSync(`${dir}/s0.sqlite`);
  old.exec(
    "CREATE TABLE key_events (identity TEXT NOT NULL, seq INTEGER NOT NULL, cur TEXT NOT NULL," +
      " next BLOB NOT NULL, cid BLOB NOT NULL, idx INTEGER NOT NULL, PRIMARY KEY (identity, seq))" +
      " WITHOUT ROWID; CREATE TABLE key_heads (identity TEXT PRIMARY KEY, seq INTEGER NOT NULL," +
      " forked INTEGER); CREATE TABLE key_forks (identity TEXT NOT NULL, seq INTEGER NOT NULL," +
      " idx INTEGER NOT NULL, first INTEGER NOT NULL, PRIMARY KEY (identity, idx)) WITHOUT ROWID",
  );
  old.close();
  const s0 = openSqliteStorage(`${dir}/s0.sqlite`);
  const a = await openLog(s0, opts);
  const s1 = openSqliteStorage(`${dir}/s1.sqlite`);
  let b: Log | undefined;
  try {
    const e0 = event(0);
    const c0 = readJcpObject(e0)!.contentId;
    const e1 = event(1, c0);
    await a.append(receipt(1, 0)); // index 0: no chain yet
    await a.append(e0); // 1
    await a.append(e1); // 2
    const fork = await a.append(event(1, c0, 9)); // 3: a fork, the identity frozen
    const carried = await s0.carriedKeys("s0");
    assert.equal(carried.from, "s0");
    assert.deepEqual(carried.events.map((e) => [e.event.index, e.event.shard]), [[1, "s0"], [
      2,
      "s0",
    ]]);
    b = await openLog(s1, opts);
    const mark = await s1.carryKeys(carried);
    assert.deepEqual(JSON.parse(mark), { from: "s0", identities: 1, events: 2 });
    // in s1: k0 was rotated out in s0; k1 is current, judged under s0's event 2
    await assert.rejects(
      b.append(receipt(2, 0)),
      (e: LogInputError) => e.code === "key-rotated-out",
    );
    const r = await b.append(receipt(3, 1));
    assert.deepEqual(r.key_event, {
      identity: ID,
      seq: 1,
      index: 2,
      shard: "s0",
      forked_at: fork.index,
      forked_shard: "s0",
    });
    // the frozen identity stays frozen: its next event is refused
    const e2 = event(2, readJcpObject(e1)!.contentId);
    await assert.rejects(b.append(e2), (e: LogInputError) => e.code === "key-event-fork");
    const rec = await b.streamReads!.identity(ID);
    assert.deepEqual(rec!.events, [1, 2]);
    assert.deepEqual(rec!.eventShards, ["s0", "s0"]);
    assert.deepEqual(rec!.forks, [{ seq: 1, index: 3, first: 2, shard: "s0", first_shard: "s0" }]);
    // a store holding an entry takes no carry
    await assert.rejects(s1.carryKeys(carried), (e: Error) => /holds entries/.test(e.message));
  } finally {
    await a.close();
    await b?.close();
    await Deno.remove(dir, { recursive: true });
  }
});
