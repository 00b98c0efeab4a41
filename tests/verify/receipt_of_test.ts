// receiptOf (verify/report.ts): the `receipt` of a report computed from the envelope alone is the
// report's own, for every conformance vector (valid and not), garbage, and arbitrary bytes — the
// verifier pool (api/services/verify_pool.ts) sends reports without it and computes it where it is read.
import assert from "node:assert/strict";
import fc from "fast-check";
import { fromHex, receiptOf, verifyEnvelope } from "../../verify/mod.ts";

const VECTORS = new URL("../../conformance/vectors/", import.meta.url);

Deno.test("receiptOf: equals verifyEnvelope's receipt for every conformance vector", async () => {
  let n = 0;
  for await (const e of Deno.readDir(VECTORS)) {
    if (!e.name.endsWith(".json") || e.name === "operator-config.json") continue;
    const file = JSON.parse(await Deno.readTextFile(new URL(e.name, VECTORS)));
    for (const v of file.vectors ?? []) {
      if (typeof v.cose_sign1_hex !== "string") continue;
      const bytes = fromHex(v.cose_sign1_hex);
      assert.deepEqual(receiptOf(bytes), (await verifyEnvelope(bytes)).receipt, v.name);
      n++;
    }
  }
  assert.ok(n >= 50, `vectors: ${n}`);
});

Deno.test("receiptOf: equals verifyEnvelope's receipt on garbage and arbitrary bytes (property)", async () => {
  for (const bytes of [new Uint8Array([0xff]), new Uint8Array(300).fill(7), new Uint8Array()]) {
    assert.deepEqual(receiptOf(bytes), (await verifyEnvelope(bytes)).receipt);
  }
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), async (bytes) => {
      assert.deepEqual(receiptOf(bytes), (await verifyEnvelope(bytes)).receipt);
    }),
    { numRuns: 300 },
  );
});
