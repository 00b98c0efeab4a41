// net/readLimited, the one body reader (issue 27): it keeps no view of a larger buffer (a body
// sent one byte per segment would otherwise pin a read buffer per byte), stops at a signal (the
// request's deadline) and below a least rate, cancelling the stream each time.
import assert from "node:assert/strict";
import { BudgetExceeded, RateTooLow, readLimited } from "../../net/mod.ts";

/** A stream of `n` one-byte views, each into its own 64 KiB buffer, `gapMs` apart. */
function trickle(n: number, gapMs = 0) {
  let i = 0;
  let cancelled: unknown = undefined;
  const stream = new ReadableStream<Uint8Array>({
    async pull(c) {
      if (i === n) return c.close();
      if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      c.enqueue(new Uint8Array(new ArrayBuffer(65_536), 100, 1).fill(0x30 + (i++ % 10)));
    },
    cancel(reason) {
      cancelled = reason ?? "cancelled";
    },
  });
  return { stream, cancelled: () => cancelled };
}

Deno.test("readLimited: a body of small views is copied into a buffer of its own", async () => {
  const t = trickle(300);
  const out = await readLimited(t.stream, 1000);
  assert.equal(out.byteLength, 300);
  assert.equal(out.buffer.byteLength, 300, "no larger buffer behind the result");
  assert.equal(new TextDecoder().decode(out.subarray(0, 12)), "012345678901");
});

Deno.test("readLimited: a chunk that owns its whole buffer is kept as it is", async () => {
  const whole = new Uint8Array(40).fill(1);
  const out = await readLimited(new Blob([whole]).stream(), 100);
  assert.deepEqual(out, whole);
  assert.equal(out.buffer.byteLength, 40);
});

Deno.test("readLimited: past the budget, BudgetExceeded and the stream cancelled", async () => {
  const t = trickle(500);
  await assert.rejects(readLimited(t.stream, 100), BudgetExceeded);
  assert.ok(t.cancelled() !== undefined);
});

Deno.test("readLimited: below the least rate, RateTooLow and the stream cancelled", async () => {
  const t = trickle(1000, 5); // ≤ 200 bytes/s
  const t0 = performance.now();
  const e = await readLimited(t.stream, 10_000, { minRate: 1000, graceMs: 100 }).then(
    () => undefined,
    (e) => e,
  );
  assert.ok(e instanceof RateTooLow, String(e));
  assert.ok(performance.now() - t0 < 1000, "cut soon after the grace");
  assert.ok(t.cancelled() !== undefined);
});

Deno.test("readLimited: an aborted signal stops the read with its reason, stream cancelled", async () => {
  const t = trickle(1000, 5);
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(new Error("deadline")), 60);
  await assert.rejects(readLimited(t.stream, 10_000, { signal: ctl.signal }), /deadline/);
  assert.ok(t.cancelled() !== undefined);
  // already aborted: nothing is read
  const u = trickle(10);
  await assert.rejects(readLimited(u.stream, 100, { signal: ctl.signal }), /deadline/);
  assert.ok(u.cancelled() !== undefined);
});
