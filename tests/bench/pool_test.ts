// The appending bench suites (http, witness) take their envelopes from bench/suites/_pool.ts: a
// pool sized from a calibration and signed ahead while the run goes on. Driven here against an
// artificially fast service (a stub on 127.0.0.1 that answers every append at once, faster than
// any real log), a pool far smaller than the run needs never runs out: the run ends on its clock,
// not with "Cannot bench: out of envelopes" (issue 28: `bench witness` crashed so in CI).
import assert from "node:assert/strict";
import { SigningPool } from "../../bench/suites/_pool.ts";
import { appendRequest, Conn, post } from "../../bench/suites/http.ts";

Deno.test("bench pool: an instant service uses far more than the pool held, none run out", async () => {
  const answer = JSON.stringify({ index: 0, leaf_hash: "", tree_head: {}, inclusion_proof: [] });
  const ac = new AbortController();
  let served = 0;
  const stub = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    async (req) => {
      await req.arrayBuffer();
      served++;
      return new Response(answer, { status: 201, headers: { "content-type": "application/json" } });
    },
  );
  const pool = await SigningPool.create(
    16,
    (envelope) => ({ envelope, req: appendRequest(envelope) }),
  );
  assert.equal(pool.presigned, 16);
  const conns = await Promise.all(Array.from({ length: 16 }, () => Conn.open(stub.addr.port)));
  try {
    // Until five pools' worth were appended (a count, not a clock: a loaded CI machine signs
    // slowly, and the pool must then hold the run up, never run out); 30 s at most.
    const t0 = performance.now();
    await Promise.all(conns.map(async (c) => {
      while (pool.used <= 16 * 5 && performance.now() - t0 < 30_000) {
        await post(c, await pool.take());
      }
    }));
  } finally {
    conns.forEach((c) => c.close());
    ac.abort();
    await stub.finished;
  }
  console.log(`stub appends: ${served} from a pool of 16, ${pool.signedDuringRun} signed ahead`);
  assert.equal(pool.used, served);
  assert.ok(pool.used > 16 * 4, `only ${pool.used} appends`);
  assert.ok(pool.signedDuringRun >= pool.used - 16, JSON.stringify(pool));
});
