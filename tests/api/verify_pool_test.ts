// api/services/verify_pool.ts: the Worker pool answers every conformance vector with the report of the
// in-thread verifier (value for value and as serialized JSON), under the vectors' operator
// config; errors and closing are answered, not hung; the service answers the same with and
// without a pool.
import assert from "node:assert/strict";
import { verifyEnvelope } from "../../verify/mod.ts";
import type { VerificationReport } from "../../verify/mod.ts";
import { fromHex } from "../../verify/mod.ts";
import { resolveConfig } from "../../api/services/config.ts";
import { verifierOptions } from "../../api/http/verifier_options.ts";
import { VerifierPool } from "../../api/services/verify_pool.ts";
import { verifyWorkerCount } from "../../api/deno/main.ts";
import { entryFacts } from "../../log/mod.ts";

const VECTORS = new URL("../../conformance/vectors/", import.meta.url);

async function vectorEnvelopes(): Promise<{ name: string; bytes: Uint8Array }[]> {
  const out: { name: string; bytes: Uint8Array }[] = [];
  for await (const e of Deno.readDir(VECTORS)) {
    if (!e.isFile || !e.name.endsWith(".json") || e.name === "operator-config.json") continue;
    const doc = JSON.parse(await Deno.readTextFile(new URL(e.name, VECTORS)));
    for (const v of doc.vectors ?? []) {
      out.push({ name: `${e.name}:${v.name}`, bytes: fromHex(v.cose_sign1_hex) });
    }
  }
  return out;
}

const json = (r: VerificationReport) =>
  JSON.stringify(r, (_k, v) => typeof v === "bigint" ? `${v}n` : v);

Deno.test("VerifierPool.verifyForAppend: the same report, and entryFacts of the same bytes when it verifies (issue 29)", async () => {
  const config = resolveConfig({}, {
    operator_config: "conformance/vectors/operator-config.json",
  });
  config.operatorConfig = JSON.parse(
    await Deno.readTextFile(new URL("operator-config.json", VECTORS)),
  );
  const options = verifierOptions(config);
  const vectors = await vectorEnvelopes();
  const pool = await VerifierPool.start(config, 1);
  try {
    // mixed in one turn with plain verifies: only the appends' envelopes carry facts
    const [forAppend, plain] = await Promise.all([
      Promise.all(vectors.map((v) => pool.verifyForAppend(v.bytes))),
      Promise.all(vectors.map((v) => pool.verify(v.bytes))),
    ]);
    let withFacts = 0;
    for (let i = 0; i < vectors.length; i++) {
      const local = await verifyEnvelope(vectors[i].bytes, options);
      assert.deepEqual(forAppend[i].report, local, vectors[i].name);
      assert.deepEqual(plain[i], local, vectors[i].name);
      if (local.valid) {
        assert.deepEqual(forAppend[i].facts, entryFacts(vectors[i].bytes), vectors[i].name);
        withFacts++;
      } else assert.equal(forAppend[i].facts, undefined, vectors[i].name);
    }
    assert.ok(withFacts >= 10, `with facts: ${withFacts}`);
  } finally {
    pool.close();
  }
});

Deno.test("VerifierPool: every conformance vector's report equals the in-thread verifier's", async () => {
  const config = resolveConfig({}, {
    operator_config: "conformance/vectors/operator-config.json",
  });
  config.operatorConfig = JSON.parse(
    await Deno.readTextFile(new URL("operator-config.json", VECTORS)),
  );
  const options = verifierOptions(config);
  const vectors = await vectorEnvelopes();
  assert.ok(vectors.length >= 20, `vectors: ${vectors.length}`);
  const pool = await VerifierPool.start(config, 2);
  try {
    // All at once, so both workers answer and answers arrive out of order.
    const pooled = await Promise.all(vectors.map((v) => pool.verify(v.bytes)));
    assert.equal(pool.inFlight, 0);
    let valid = 0;
    for (let i = 0; i < vectors.length; i++) {
      const local = await verifyEnvelope(vectors[i].bytes, options);
      assert.deepEqual(pooled[i], local, vectors[i].name);
      assert.equal(json(pooled[i]), json(local), vectors[i].name);
      if (local.valid) valid++;
    }
    // The operator config reached the workers: vectors needing its keys verify there too.
    assert.ok(valid >= 10 && valid < vectors.length, `valid: ${valid}/${vectors.length}`);
    // The caller keeps its bytes (the pool sends a copy).
    assert.ok(vectors.every((v) => v.bytes.byteLength > 0));
  } finally {
    pool.close();
  }
});

Deno.test("VerifierPool: garbage gets the in-thread report; closed pool refuses clearly", async () => {
  const config = resolveConfig({});
  const pool = await VerifierPool.start(config, 1);
  try {
    for (const bytes of [new Uint8Array([0xff]), new Uint8Array(300).fill(7), new Uint8Array()]) {
      assert.deepEqual(await pool.verify(bytes), await verifyEnvelope(bytes, {}));
    }
  } finally {
    pool.close();
  }
  await assert.rejects(
    pool.verify(new Uint8Array([1])),
    /Cannot verify: the verifier pool is closed/,
  );
  await assert.rejects(VerifierPool.start(config, 0), /size must be >= 1/);
});

Deno.test("VerifierPool: a bad operator config fails the start, naming why", async () => {
  const config = resolveConfig({});
  config.gatewayKeys = { "gw-1": "zz" };
  await assert.rejects(VerifierPool.start(config, 1), /Cannot start a verifier worker: /);
});

Deno.test("config: verify_workers / JC_VERIFY_WORKERS", () => {
  assert.equal(resolveConfig({}).verifyWorkers, "auto");
  assert.equal(resolveConfig({ JC_VERIFY_WORKERS: "auto" }).verifyWorkers, "auto");
  assert.equal(resolveConfig({ JC_VERIFY_WORKERS: "0" }).verifyWorkers, 0);
  assert.equal(resolveConfig({}, { verify_workers: 3 }).verifyWorkers, 3);
  assert.throws(() => resolveConfig({ JC_VERIFY_WORKERS: "-1" }), /verify_workers must be/);
  assert.throws(() => resolveConfig({}, { verify_workers: 65 }), /verify_workers must be/);
  const auto = verifyWorkerCount(resolveConfig({ JC_VERIFY_WORKERS: "auto" }));
  assert.ok(auto >= 1 && auto <= 4);
  assert.equal(verifyWorkerCount(resolveConfig({ JC_VERIFY_WORKERS: "2" })), 2);
});

Deno.test("VerifierPool: a terminated worker and a crashed one are replaced; every request still succeeds", async () => {
  const config = resolveConfig({}, {});
  const ok = (await vectorEnvelopes())[0];
  const replaced: string[] = [];
  const pool = await VerifierPool.start(config, 2, {
    stallMs: 3000, // generous: a loaded machine must not make a busy worker look dead
    onReplaced: (why) => replaced.push(why.message),
  });
  try {
    const expected = json(await verifyEnvelope(ok.bytes, verifierOptions(config)));
    // Requests in flight on both workers; then worker 0 is terminated from outside (no error
    // event reaches the pool): its requests must be sent again and answered.
    const first = Array.from({ length: 200 }, () => pool.verify(ok.bytes));
    pool.terminateWorker(0);
    const a = await Promise.all(first);
    assert.ok(a.every((r) => json(r) === expected));
    assert.ok(pool.replaced >= 1, replaced.join("; "));
    assert.match(replaced[0], /answered nothing for 3000 ms/);
    const afterTerminate = pool.replaced;
    // A worker whose thread fails (an uncaught error inside it) is replaced at once.
    const second = Array.from({ length: 200 }, () => pool.verify(ok.bytes));
    pool.crashWorker(1);
    const b = await Promise.all(second);
    assert.ok(b.every((r) => json(r) === expected));
    assert.ok(pool.replaced > afterTerminate, replaced.join("; "));
    assert.ok(replaced.some((m) => /it failed/.test(m)), replaced.join("; "));
    // The pool is whole again: both workers answer.
    const c = await Promise.all(Array.from({ length: 50 }, () => pool.verify(ok.bytes)));
    assert.equal(c.length, 50);
    assert.equal(pool.inFlight, 0);
  } finally {
    pool.close();
  }
});
