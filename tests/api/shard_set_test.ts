// api/services/shard_set.ts and api/services/shard_gate.ts in memory (docs/SHARDS.md "Lifecycle"): appends racing a
// rotation are each either committed in the old shard before it froze (inside its final size) or
// answered 409 naming the new active shard, never lost and never both; the directory opens and is
// re-signed at most once a second and never issued earlier; the size rule rotates after the batch
// that reaches it; the state a rotation writes; the dispatcher routes only /shards/<id>/.
import assert from "node:assert/strict";
import fc from "fast-check";
import { ApiError } from "../../api/http/errors.ts";
import { memoryShardFiles, type ShardFiles } from "../../api/deno/shard_files.ts";
import { type ShardRecord, ShardSet } from "../../api/services/shard_set.ts";
import { dispatchToShard, shardTarget } from "../../api/http/shard_dispatch.ts";
import { directorySuccession, openDirectory, operatorVkey } from "../../log/shards/mod.ts";
import { ed25519PublicKey } from "../../verify/mod.ts";

const OPERATOR = new Uint8Array(32).fill(5);
const VKEY = (name: string) => operatorVkey(name, ed25519PublicKey(OPERATOR));
const entry = (n: number) => new TextEncoder().encode(`entry ${n}`);

async function open(files: ShardFiles, o: Partial<Parameters<typeof ShardSet.open>[0]> = {}) {
  return await ShardSet.open({
    files,
    operatorKey: () => OPERATOR,
    logName: "t.example/log",
    ...o,
  });
}

Deno.test("shard set: appends racing a rotation are committed before the freeze or refused", async () => {
  let acked = 0, refused = 0;
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 60 }), fc.nat({ max: 5 }), async (n, delay) => {
      const set = await open(memoryShardFiles({ batchMax: 4, batchAgeMs: 1 }));
      try {
        const s0 = set.shards[0].gate.log;
        // appends launched over 0..7 ms, the rotation at `delay` ms: some before, some during,
        // some after it
        const results = Array.from(
          { length: n },
          (_, i) =>
            new Promise((r) => setTimeout(r, (i * 3) % 8)).then(() => s0.append(entry(i))).then(
              (r) => ({ ok: r.index }),
              (e) => ({ err: e }),
            ),
        );
        await new Promise((r) => setTimeout(r, delay));
        const d = await set.rotate("test");
        const final = d.shards[0].size;
        const done = await Promise.all(results);
        const ok = done.filter((x) => "ok" in x) as { ok: number }[];
        acked += ok.length;
        refused += n - ok.length;
        for (const x of done) {
          if ("err" in x) {
            assert.ok(x.err instanceof ApiError && x.err.code === "shard-frozen", String(x.err));
            assert.deepEqual(x.err.extra.active, { id: "s1", prefix: "/shards/s1" });
          }
        }
        // every acknowledged append is inside the final size, and the final size is exactly them
        assert.equal(ok.length, final);
        assert.deepEqual(ok.map((x) => x.ok).sort((a, b) => a - b), [...Array(final).keys()]);
        assert.equal((await s0.latestHead()).size, final);
        // the active log now appends to s1
        const r = await set.activeLog.append(entry(1000));
        assert.equal(r.index, 0);
        assert.equal((await set.shards[1].gate.log.latestHead()).size, 1);
      } finally {
        await set.close();
      }
    }),
    { numRuns: 15 },
  );
  assert.ok(acked > 0 && refused > 0, `both outcomes raced: ${acked} acked, ${refused} refused`);
});

Deno.test("shard set: the directory opens, is cached a second, never goes back; the state records it", async () => {
  let now = Date.parse("2026-06-01T00:00:00Z");
  const files = memoryShardFiles({ batchAgeMs: 1 });
  const set = await open(files, { now: () => now });
  try {
    const a = await set.directory();
    assert.equal(set.operatorVkey(), VKEY("t.example/log"));
    assert.deepEqual(await openDirectory(a.note, set.operatorVkey()), a.directory);
    await set.activeLog.append(entry(1));
    now += 500;
    assert.equal((await set.directory()).note, a.note, "re-signed at most once a second");
    now += 600;
    const b = await set.directory();
    assert.equal(b.directory.shards[0].size, 1);
    assert.deepEqual(directorySuccession(a.directory, b.directory), []);
    now += 1000;
    const c = await set.rotate("test");
    assert.deepEqual(directorySuccession(b.directory, c), []);
    const recs = files.load() as ShardRecord[];
    assert.deepEqual(recs.map((r) => [r.id, r.state, r.size]), [
      ["s0", "frozen", 1],
      ["s1", "active", undefined],
    ]);
    now -= 5000; // a clock stepping back never issues an earlier directory
    const d = await set.rotate("again");
    assert.ok(Date.parse(d.issued) >= Date.parse(c.issued));
    assert.deepEqual(directorySuccession(c, d), []);
  } finally {
    await set.close();
  }
});

Deno.test("shard set: the size rule rotates after the batch that reaches it", async () => {
  const set = await open(memoryShardFiles({ batchAgeMs: 1, batchMax: 1 }), { maxSize: 2 });
  try {
    let log = set.activeLog;
    for (let i = 0; i < 7; i++) await log.append(entry(i));
    // let a rotation started by the last append finish
    await new Promise((r) => setTimeout(r, 50));
    const { directory } = await set.directory();
    // frozen shards end at the size; the active one's size is as of the (cached) issue
    assert.deepEqual(directory.shards.slice(0, -1).map((s) => s.size), [2, 2, 2]);
    assert.equal(directory.shards.length, 4);
    assert.equal((await set.active().gate.log.latestHead()).size, 1);
    log = set.shards[0].gate.log;
    await assert.rejects(log.append(entry(99)), (e) => (e as ApiError).code === "shard-frozen");
  } finally {
    await set.close();
  }
});

Deno.test("shard dispatch: only /shards/<id>/… goes to a shard, with its Location prefixed", async () => {
  assert.equal(shardTarget("http://h:1/v1/log/entries"), undefined);
  assert.equal(shardTarget("http://h:1/shards"), undefined);
  assert.equal(shardTarget("http://h:1/shards/s1"), undefined);
  assert.deepEqual(shardTarget("http://h:1/shards/s1/v1/log/entries?x=1"), {
    id: "s1",
    path: "/v1/log/entries?x=1",
    at: 10,
  });
  const seen: string[] = [];
  const app = (req: Request) => {
    seen.push(req.url);
    return new Response("x", { status: 201, headers: { location: "/v1/log/entries/3" } });
  };
  const res = await dispatchToShard(
    new Request("http://h:1/shards/s2/v1/log/entries", { method: "POST", body: "abc" }),
    (id) => id === "s2" ? app : undefined,
  );
  assert.equal(res?.status, 201);
  assert.equal(res?.headers.get("location"), "/shards/s2/v1/log/entries/3");
  assert.deepEqual(seen, ["http://h:1/v1/log/entries"]);
  assert.equal(
    await dispatchToShard(new Request("http://h:1/shards/s7/v1/log/key"), () => undefined),
    undefined,
  );
  // the unprefixed path pays one comparison: far below a microsecond each
  const t0 = performance.now();
  for (let i = 0; i < 200_000; i++) shardTarget("http://127.0.0.1:8080/v1/log/entries");
  const perCallUs = (performance.now() - t0) * 1000 / 200_000;
  assert.ok(perCallUs < 5, `${perCallUs} µs per unprefixed request`);
});
