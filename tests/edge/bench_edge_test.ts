// `deno task bench edge` in its short mode (JC_BENCH_SHORT=1), as CI runs it: every figure is
// produced, every counted append verifies, batchers cut the sequencer's calls per append, the
// sequencer's SQLite stays flat while the log grows tenfold, and repeated tile reads are Cache API
// hits. Figures themselves are the machine's (bench/suites/edge.ts), not asserted.
import assert from "node:assert/strict";

Deno.test({
  name: "bench edge (short mode): figures present, appends verified, storage bounded",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // The suite reads JC_BENCH_SHORT when it is first imported (bench/suites/_short.ts). The
    // environment is the process's, shared by the test files `deno task test` runs side by side
    // (tests/run.ts): set for the import only, then put back.
    const was = Deno.env.get("JC_BENCH_SHORT");
    Deno.env.set("JC_BENCH_SHORT", "1");
    const suite = await import("../../bench/suites/edge.ts").then((m) => m.default).finally(() =>
      was === undefined ? Deno.env.delete("JC_BENCH_SHORT") : Deno.env.set("JC_BENCH_SHORT", was)
    );
    // deno-lint-ignore no-explicit-any
    const r: any = await suite();
    assert.equal(r.short_mode, true);
    assert.match(r.runtime, /NOT Cloudflare/);
    const single = r.appends.single_object_no_batchers.concurrency_64;
    const batched = r.appends.batchers_8.concurrency_64;
    for (const run of [single, batched]) {
      assert.ok(run.appends > 0);
      assert.equal(run.verified, run.appends, "every acknowledged append verifies");
      assert.ok(run.ack_ms.p99 >= run.ack_ms.p50);
    }
    // issue 29's write figures, counted by the sequencer's store: every run has them
    for (const run of [single, batched]) {
      assert.ok(run.r2_puts_per_append > 0, JSON.stringify(run));
      assert.ok(run.do_sqlite_rows_per_append > 0, JSON.stringify(run));
      assert.ok(run.usd_per_million_appends > 0.34, JSON.stringify(run));
    }
    assert.equal(single.durable_object_calls_per_append, 1);
    assert.ok(batched.sequencer_calls_per_append < 1, "batches reach the sequencer, not appends");
    const s = r.sequencer_storage;
    const small = s.entries_10000.sqlite_bytes;
    const big = s.entries_100000.sqlite_bytes;
    assert.ok(big < small * 1.5, `SQLite ${small} → ${big} bytes over 10x the entries`);
    assert.ok(s.entries_100000.r2_bytes > 5 * s.entries_10000.r2_bytes, "R2 holds the growth");
    const t = r.tile_reads_through_worker;
    assert.equal(t.cold_r2.hits, 0);
    assert.equal(t.warm_cache_api.hits, t.tiles, "repeated tile reads come from the Cache API");
  },
});
