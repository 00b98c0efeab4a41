// Child process of crash_test.ts: appends `entry-<k>` for k = start, start+1, ... through the
// SQLite log's sequencer, a few at a time, and prints one JSON line per acknowledgement (written
// synchronously, so a line the parent reads was acknowledged before the kill). Runs until killed.
import { openSqliteLog } from "../../log/sqlite/mod.ts";

const [dir, startArg] = Deno.args;
// leafIndexLag 16: the leaf index is flushed every few batches, so kills also land in flushes.
const log = await openSqliteLog({
  dir,
  batchMax: 8,
  batchAgeMs: 1,
  pendingMax: 64,
  leafIndexLag: 16,
});
const out = (s: string) => {
  const b = new TextEncoder().encode(s + "\n");
  for (let off = 0; off < b.length;) off += Deno.stdout.writeSync(b.subarray(off));
};
out(JSON.stringify({ ready: true }));
for (let k = Number(startArg);; k += 4) {
  const ks = [k, k + 1, k + 2, k + 3];
  const rs = await Promise.all(ks.map((j) => log.append(new TextEncoder().encode(`entry-${j}`))));
  rs.forEach((r, i) =>
    out(JSON.stringify({ k: ks[i], index: r.index, created: r.created, head: r.tree_head }))
  );
}
