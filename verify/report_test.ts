// verifyEnvelope never throws on hostile bytes, always answers the six steps, and refuses them.
import assert from "node:assert/strict";
import fc from "fast-check";
import { STEP_NAMES, verifyEnvelope } from "./report.ts";
import { fromHex } from "./bytes.ts";
import { isReasonCode } from "./codes.ts";

const vectors: { cose_sign1_hex: string; expected: { valid: boolean } }[] = JSON.parse(
  await Deno.readTextFile(new URL("../conformance/vectors/jcr1.json", import.meta.url)),
).vectors;
const envs = vectors.map((v) => fromHex(v.cose_sign1_hex));

function wellFormed(r: Awaited<ReturnType<typeof verifyEnvelope>>) {
  assert.deepEqual(r.steps.map((s) => s.step), [...STEP_NAMES]);
  for (const s of r.steps) {
    if (s.status !== "pass") {
      assert.ok(s.code && isReasonCode(s.code), `step ${s.step} code ${s.code}`);
    }
    if (s.code) assert.ok(isReasonCode(s.code), s.code);
  }
  assert.match(r.leaf_hash, /^[0-9a-f]{64}$/);
  // valid ⇔ verdict ≠ invalid ⇔ no failure in steps 1-5 (a failing step 6 is an alert)
  assert.equal(r.valid, r.verdict !== "invalid");
  assert.equal(r.valid, r.steps.slice(0, 5).every((s) => s.status !== "fail"));
  assert.equal(r.drift_alert !== undefined, r.verdict === "alert");
  JSON.stringify(r); // serialisable (no bigint, no Map)
}

Deno.test("report: random bytes are refused with a report, never an exception", async () => {
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (b) => {
      const r = await verifyEnvelope(b);
      wellFormed(r);
      assert.equal(r.valid, false);
    }),
    { numRuns: 300 },
  );
});

Deno.test("report: splices of valid envelopes (insert, delete, overwrite) never throw", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.nat(envs.length - 1),
      fc.nat(),
      fc.uint8Array({ minLength: 0, maxLength: 4 }),
      fc.nat(3),
      async (vi, at, bytes, del) => {
        const e = envs[vi];
        const i = at % (e.length + 1);
        const out = new Uint8Array([
          ...e.subarray(0, i),
          ...bytes,
          ...e.subarray(Math.min(e.length, i + del)),
        ]);
        const r = await verifyEnvelope(out);
        wellFormed(r);
        if (out.length !== e.length || out.some((x, k) => x !== e[k])) assert.equal(r.valid, false);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("report: a valid receipt's report shape (API.md)", async () => {
  const r = await verifyEnvelope(envs[1]);
  wellFormed(r);
  assert.equal(r.valid, true);
  assert.equal(r.schema, "1");
  assert.match(r.steward!, /^did:key:z/);
  assert.equal((r.receipt as Record<string, unknown>).jc_receipt, "1");
  assert.equal(r.verdict, "joule-unverified"); // no reference vectors given
  assert.deepEqual(Object.keys(r), [
    "valid",
    "verdict",
    "schema",
    "leaf_hash",
    "steward",
    "steps",
    "receipt",
  ]);
});
