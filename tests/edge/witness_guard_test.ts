// The edge witness's guard in Deno (log/r2/witness_guard.ts; issue 27): its state behind the log
// open's refusal, and its mark in an in-memory R2 (conditional puts as R2 does them); a lost object
// storage is a new, empty state. The workerd runs, with the Durable Object's real SQLite files
// wiped and rolled back, are tests/edge/pin_edge_test.ts.
import assert from "node:assert/strict";
import { LogStorageError, STORE_BEHIND_SIGNED_HEAD } from "../../log/mod.ts";
import { memoryWitnessState, type WitnessStateStore } from "../../log/c2sp/witness_state.ts";
import {
  guardedWitnessState,
  WITNESS_STATE_BEHIND,
  witnessMarkKey,
} from "../../log/r2/witness_guard.ts";
import type { R2BucketLike } from "../../log/r2/r2.ts";
import { ed25519PublicKey } from "../../verify/mod.ts";
import { memoryBucket } from "../../fixtures/sqlite_durable.ts";

const KEY = new Uint8Array(32).fill(0x43);
const ORIGIN = "guard.test/log";
const rec = (size: number, fill = size) => ({
  size,
  root: new Uint8Array(32).fill(fill),
  note: new TextEncoder().encode(`note ${size}`),
});

/** The guarded state of one object instance over `raw` (its storage), `bucket` and the key. */
function guarded(
  raw: WitnessStateStore,
  bucket: R2BucketLike,
  log: () => Promise<unknown> = () => Promise.resolve(),
  key = KEY,
): WitnessStateStore {
  return guardedWitnessState(() => raw, log, { bucket: () => bucket, witnessKey: () => key });
}

async function refused(p: Promise<unknown>, code: string): Promise<string> {
  const e = await p.then(() => undefined, (e) => e as Error & { code?: string });
  assert.ok(e, `expected a refusal with ${code}`);
  assert.equal(e.code, code, e.message);
  return e.message;
}

const cas = (s: WitnessStateStore, size: number, prev?: number) =>
  s.compareAndSwap(ORIGIN, prev === undefined ? undefined : rec(prev), rec(size));

Deno.test("witness guard: the log's pinned-head refusal is the witness's; nothing touched", async () => {
  const bucket = memoryBucket();
  const raw = memoryWitnessState();
  let failing: Error | undefined = new LogStorageError(STORE_BEHIND_SIGNED_HEAD, "behind");
  const state = guarded(raw, bucket, () => failing ? Promise.reject(failing) : Promise.resolve());
  for (const call of [state.get(ORIGIN), cas(state, 10), state.heads()]) {
    const m = await refused(call, WITNESS_STATE_BEHIND);
    assert.match(m, /store-behind-signed-head/);
  }
  assert.deepEqual(await raw.heads(), [], "nothing swapped");
  assert.equal(bucket.objects.size, 0, "no mark put");
  // Another failure of the open propagates as it is (the state is never used unchecked).
  failing = new LogStorageError("r2-unavailable", "R2 down");
  await refused(state.get(ORIGIN), "r2-unavailable");
  failing = undefined;
  assert.equal(await state.get(ORIGIN), undefined);
  assert.equal(await cas(state, 10), true);
});

Deno.test("witness guard: the first cosignature puts the mark; a state without cosignatures under it is refused", async () => {
  const bucket = memoryBucket();
  const markKey = witnessMarkKey(ed25519PublicKey(KEY));
  const storage = memoryWitnessState();
  const a = guarded(storage, bucket);
  assert.equal(await a.get(ORIGIN), undefined);
  assert.equal(bucket.objects.has(markKey), false, "nothing cosigned, no mark");
  assert.equal(await cas(a, 10), true);
  assert.equal(bucket.objects.has(markKey), true, "the mark before the answer");
  assert.equal(await cas(a, 25, 10), true);
  // The same storage in a new instance (the object restarted): it holds its cosignatures.
  assert.equal((await guarded(storage, bucket).get(ORIGIN))?.size, 25);
  // The object's storage lost (a new, empty state), the key and R2 kept: refused at every call.
  const lost = guarded(memoryWitnessState(), bucket);
  assert.match(await refused(lost.get(ORIGIN), WITNESS_STATE_BEHIND), /witness-cosigned\//);
  await refused(cas(lost, 25), WITNESS_STATE_BEHIND);
  await refused(lost.get(ORIGIN), WITNESS_STATE_BEHIND);
  // The key retired (a new witness key: a new identity, no mark yet): cosigns from size 0.
  const fresh = guarded(memoryWitnessState(), bucket, undefined, new Uint8Array(32).fill(0x44));
  assert.equal(await cas(fresh, 25), true);
});

Deno.test("witness guard: a mark whose put failed is put by the next call; that cosignature unanswered", async () => {
  const inner = memoryBucket();
  let down = true;
  const bucket: R2BucketLike = {
    get: (k) => inner.get(k),
    put: (k, v, o) => down ? Promise.reject(new Error("R2 put failed")) : inner.put(k, v, o),
  };
  const storage = memoryWitnessState();
  await refused(cas(guarded(storage, bucket), 10), "r2-unavailable"); // swapped, not answered
  down = false;
  // The next instance (or call) finds a cosignature without its mark and puts it.
  assert.equal((await guarded(storage, bucket).get(ORIGIN))?.size, 10);
  assert.equal(inner.objects.has(witnessMarkKey(ed25519PublicKey(KEY))), true);
  // From then on a lost storage is refused.
  await refused(guarded(memoryWitnessState(), bucket).get(ORIGIN), WITNESS_STATE_BEHIND);
});
