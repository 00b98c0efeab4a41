// Crash safety with a real process (ARCHITECTURE Decision 7: nothing acknowledged is ever lost):
// a child appends through the sequencer into a SQLite file and is SIGKILLed at random points, 50
// times. After each kill the log must open (it proves its head), every acknowledged entry must be
// at its acknowledged index, fsck must be clean, every acknowledged head must be consistent with
// the new head, and a resubmission must resolve to the original index (exactly-once).
import assert from "node:assert/strict";
import {
  blake3Hasher,
  fsckLog,
  type TreeHead,
  verifyConsistency,
  verifyTreeHead,
} from "../../log/mod.ts";
import { openSqliteLog, openSqliteStorage } from "../../log/sqlite/mod.ts";
import { fromHex, toHex } from "../../verify/mod.ts";
import { checkViews, type ViewState } from "./_views.ts";
import { ENTRIES } from "../../log/c2sp/mod.ts";
import type { TreeView } from "../../log/mod.ts";

const KILLS = 50;
const child = new URL("./crash_child.ts", import.meta.url).pathname;

interface Ack {
  k: number;
  index: number;
  head: TreeHead;
}

async function runUntilKilled(dir: string, start: number, delayMs: number): Promise<Ack[]> {
  const p = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-check", child, dir, String(start)],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = p.stdout.getReader();
  let text = "";
  let ready = false;
  const dec = new TextDecoder();
  let killAt = Infinity;
  const deadline = Date.now() + 20_000;
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  while (Date.now() < deadline) {
    if (Date.now() >= killAt) break;
    pending ??= reader.read();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const chunk = await Promise.race([
      pending,
      new Promise<"tick">((r) => timer = setTimeout(() => r("tick"), 5)),
    ]);
    clearTimeout(timer);
    if (chunk === "tick") continue;
    pending = undefined;
    if (chunk.done) break;
    text += dec.decode(chunk.value, { stream: true });
    if (!ready && text.includes('"ready"')) {
      ready = true;
      killAt = Date.now() + delayMs;
    }
  }
  p.kill("SIGKILL");
  // Lines already written before the kill are acknowledged; read what is buffered.
  for (;;) {
    const chunk = await (pending ?? reader.read());
    pending = undefined;
    if (chunk.done) break;
    text += dec.decode(chunk.value, { stream: true });
  }
  const status = await p.status;
  const err = await new Response(p.stderr).text();
  assert.ok(ready, `child did not start: ${err}`);
  assert.equal(status.signal, "SIGKILL", `child exited on its own: ${err}`);
  const lines = text.split("\n");
  lines.pop(); // an unterminated last line was not fully written: not an acknowledgement
  return lines.map((l) => JSON.parse(l)).filter((o) => !o.ready);
}

Deno.test({
  name: `SQLite log: ${KILLS} SIGKILLs at random points lose nothing acknowledged`,
  sanitizeResources: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "jc-crash-" });
    const indexOf = new Map<number, number>(); // k -> acknowledged index
    const heads: TreeHead[] = [];
    let views: Record<TreeView, ViewState> | undefined;
    let maxK = -1;
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    try {
      for (let round = 0; round < KILLS; round++) {
        // Restart a little before the last acknowledged k, so some appends are resubmissions.
        const start = Math.max(0, maxK + 1 - Math.floor(rand() * 12));
        const acks = await runUntilKilled(dir, start, Math.floor(rand() * 120));
        for (const a of acks) {
          const before = indexOf.get(a.k);
          assert.ok(
            before === undefined || before === a.index,
            `entry-${a.k} moved from ${before} to ${a.index}`,
          );
          indexOf.set(a.k, a.index);
          maxK = Math.max(maxK, a.k);
          heads.push(a.head);
        }
        // Restart: the store must prove its head, hold every acknowledged entry, fsck clean.
        const log = await openSqliteLog({ dir });
        const head = await log.latestHead();
        const enc = new TextEncoder();
        for (const [k, index] of indexOf) {
          assert.deepEqual(
            await log.entry(index),
            enc.encode(`entry-${k}`),
            `round ${round}: entry-${k}`,
          );
        }
        heads.splice(0, Math.max(0, heads.length - 16)); // the newest acknowledged heads
        for (const hd of heads) {
          assert.ok(await verifyTreeHead(hd, log.signer()));
          assert.ok(hd.size <= head.size, `acknowledged head ${hd.size} > recovered ${head.size}`);
          const p = await log.consistencyProof(Math.max(hd.size, 1), head.size).catch(() => []);
          if (hd.size > 0) {
            assert.ok(
              verifyConsistency(
                blake3Hasher,
                hd.size,
                head.size,
                p,
                fromHex(hd.root),
                fromHex(head.root),
              ),
              `round ${round}: head ${hd.size} not consistent with ${head.size}`,
            );
          }
        }
        // Both views' checkpoints, tiles and bundles agree with each other, with the head, with
        // every acknowledged entry, and with the checkpoints seen before the kill.
        const acked = new Map(
          [...indexOf].map((
            [k, index],
          ) => [index, toHex(blake3Hasher.leaf(enc.encode(`entry-${k}`)))]),
        );
        views = await checkViews(
          {
            vkeys: log.vkeys(),
            checkpoint: (v) => log.checkpoint(v),
            tile: async (v, t) =>
              (t.level === ENTRIES
                ? await log.bundle(t.index, t.width)
                : await log.tile(v, t.level, t.index, t.width))!,
          },
          acked,
          views,
          head,
        );
        await log.close();
        const store = openSqliteStorage(`${dir}/log.sqlite`);
        const report = await fsckLog(store, log.publicKey());
        await store.close();
        assert.deepEqual(report.problems, [], `round ${round}`);
        assert.equal(report.entries, head.size);
      }
      assert.ok(indexOf.size > 50, `only ${indexOf.size} acknowledged entries over ${KILLS} kills`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
