// Streams over real HTTP against the real service (issue 24), with streams built by an
// independent implementation: conformance/python/jcstreams, written from JCP §8.1's text (its own
// CBOR, BLAKE3 checked against b3sum, COSE_Sign1, did:key). A gap later filled, a fork (with its
// evidence bundle), a wrong prev, a reused receipt id, 10^4 links sent concurrently (out of
// order: their gaps clear), the lookups and the search; bad input is 400 with a code and writes
// nothing. JC_STREAMS_N changes the long stream's length (default 10^4).
import assert from "node:assert/strict";
import { runClient, startService } from "../../fixtures/service.ts";
import { exerciseStreams } from "./_streams_scenarios.ts";
import { pyStream } from "./_streams_http.ts";
import { fromHex } from "../../verify/mod.ts";

const N = Number(Deno.env.get("JC_STREAMS_N") ?? 10_000);

Deno.test({
  name: "e2e streams: a Python-built gap, fork, wrong prev, reused id and 10^4 links over HTTP",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-streams-" });
    const svc = await startService({ DATA_DIR: dir, JC_BATCH_AGE_MS: "2" });
    const u = svc.url;
    try {
      await exerciseStreams(u, N);
      // the client: a steward's streams, the fork alarm (exit 3 once, then quiet), get by id
      const fork = await pyStream("fork", 12); // the steward exerciseStreams forked
      const state = `${dir}/forks.json`;
      const first = await runClient(["streams", fork.steward, "--url", u, "--state", state]);
      assert.equal(first.code, 3, first.stderr);
      assert.match(first.stderr, /ALARM: .* 1 new stream fork/);
      assert.equal(JSON.parse(first.stdout).new_forks[0].code, "stream-fork");
      const again = await runClient(["streams", fork.steward, "--url", u, "--state", state]);
      assert.equal(again.code, 0, again.stderr);
      const plain = await runClient(["streams", fork.steward, "--url", u]);
      assert.equal(JSON.parse(plain.stdout).streams[0].length, 4);
      const file = `${dir}/got.cose`;
      const got = await runClient(["get", fork.content_ids[2], "--out", file, "--url", u]);
      assert.equal(got.code, 0, got.stderr);
      assert.deepEqual(await Deno.readFile(file), fromHex(fork.send[2]));
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
