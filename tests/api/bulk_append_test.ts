// Bulk appends (issue 29; API.md "Log"): POST /v1/log/entries with application/cbor-seq answers
// one result per envelope, in order, each logged one proved against the answer's one signed
// tree head; refused and malformed items never hold back the others; a body over its limits is
// 413 before any envelope is verified.
import assert from "node:assert/strict";
import { blake3Hasher, verifyInclusion, verifyTreeHead } from "../../log/mod.ts";
import { concatBytes, entryLeafHash, fromHex, toHex } from "../../verify/mod.ts";

/** The items one after another (an application/cbor-seq body). */
const seq = (...xs: Uint8Array[]) => new Uint8Array(concatBytes(...xs));
import { badSignatureEnvelope, testApp, validEnvelope } from "../../fixtures/app.ts";

const SEQ = { "content-type": "application/cbor-seq" };
const reading = fromHex(
  JSON.parse(
    await Deno.readTextFile(
      new URL("../../conformance/vectors/meter-reading.json", import.meta.url),
    ),
  ).vectors.find((v: { expected: { valid: boolean } }) => v.expected.valid).cose_sign1_hex,
);

interface BulkAnswer {
  tree_head: { size: number; root: string; signature: string; signer: string } | null;
  results: Record<string, unknown>[];
}

/** Checks the head's signature and every logged result's proof against it. */
async function checkProved(a: BulkAnswer, envelopes: (Uint8Array | null)[]) {
  assert.ok(a.tree_head);
  assert.ok(await verifyTreeHead(a.tree_head as never));
  a.results.forEach((r, k) => {
    if (r.index === undefined) return;
    assert.equal(r.leaf_hash, toHex(entryLeafHash(envelopes[k]!)), `leaf of ${k}`);
    assert.ok(
      verifyInclusion(
        blake3Hasher,
        r.index as number,
        a.tree_head!.size,
        fromHex(r.leaf_hash as string),
        (r.inclusion_proof as string[]).map(fromHex),
        fromHex(a.tree_head!.root),
      ),
      `proof of item ${k}`,
    );
  });
}

Deno.test("bulk: one result per envelope, in order, refusals beside the logged", async () => {
  const { app, log, deps } = await testApp();
  const items = [
    validEnvelope(1),
    badSignatureEnvelope(2),
    validEnvelope(3),
    reading,
    new Uint8Array([0xa0]), // a CBOR map: well-formed, not a COSE_Sign1
    validEnvelope(1), // the first again, in the same body
    validEnvelope(4),
  ];
  const res = await app.request("/v1/log/entries", {
    method: "POST",
    headers: SEQ,
    body: seq(...items),
  });
  assert.equal(res.status, 200);
  const a = await res.json() as BulkAnswer;
  assert.equal(a.results.length, items.length);
  const [r0, r1, r2, r3, r4, r5, r6] = a.results;
  assert.equal(r0.status, 201);
  assert.equal(r0.created, true);
  assert.equal(r1.status, 422);
  assert.equal(r1.code, "bad-signature");
  assert.ok(Array.isArray(r1.codes));
  assert.equal(r1.report, undefined);
  assert.equal(r2.status, 201);
  assert.equal(r3.status, 422);
  assert.equal(r3.code, "readings-route-only");
  assert.equal(r4.status, 422);
  assert.equal(typeof r4.detail, "string");
  assert.equal(r5.index, r0.index); // exactly once: the same entry
  assert.equal(r6.status, 201);
  // log order follows the body's order
  assert.deepEqual([r0.index, r2.index, r6.index], [0, 1, 2]);
  await checkProved(a, items);
  assert.equal((await log.latestHead()).size, 3);
  assert.equal(deps.metrics.counter("jc_appends_total", { result: "created" }), 3);

  // The same body again: every envelope is answered with its entry, nothing new.
  const again = await (await app.request("/v1/log/entries", {
    method: "POST",
    headers: SEQ,
    body: seq(...items),
  })).json() as BulkAnswer;
  assert.deepEqual(again.results.map((r) => r.index), a.results.map((r) => r.index));
  assert.ok(again.results.every((r) => r.status !== 201));
  await checkProved(again, items);
  assert.equal((await log.latestHead()).size, 3);
});

Deno.test("bulk: an item the decoder cannot delimit ends the body, the ones before are logged", async () => {
  const { app, log } = await testApp();
  const a = validEnvelope(1), b = validEnvelope(2);
  const res = await app.request("/v1/log/entries", {
    method: "POST",
    headers: SEQ,
    body: seq(a, b, validEnvelope(3).subarray(0, 20)),
  });
  assert.equal(res.status, 200);
  const body = await res.json() as BulkAnswer;
  assert.equal(body.results.length, 3);
  assert.deepEqual(body.results.slice(0, 2).map((r) => r.status), [201, 201]);
  assert.equal(body.results[2].status, 400);
  assert.equal(body.results[2].code, "truncated");
  await checkProved(body, [a, b, null]);
  assert.equal((await log.latestHead()).size, 2);
});

Deno.test("bulk: nothing logged answers a null head; an oversized item is its own refusal", async () => {
  const { app } = await testApp();
  // a byte string of 70,000 bytes: one well-delimited item over the entry limit
  const big = new Uint8Array(70_005);
  big.set([0x5a, 0x00, 0x01, 0x11, 0x70]);
  const res = await app.request("/v1/log/entries", {
    method: "POST",
    headers: SEQ,
    body: seq(badSignatureEnvelope(1), big),
  });
  assert.equal(res.status, 200);
  const body = await res.json() as BulkAnswer;
  assert.equal(body.tree_head, null);
  assert.deepEqual(body.results.map((r) => [r.status, r.code]), [
    [422, "bad-signature"],
    [413, "body-too-large"],
  ]);
});

Deno.test("bulk: over its limits is 413 before any envelope is verified", async () => {
  const { app, log, deps } = await testApp({
    JC_BULK_MAX_ENVELOPES: "3",
    JC_BULK_BODY_LIMIT: "4096",
  });
  const verified = () => deps.metrics.counter("jc_verifications_total", { code: "ok" });
  const four = seq(...[1, 2, 3, 4].map((n) => validEnvelope(n)));
  const r1 = await app.request("/v1/log/entries", { method: "POST", headers: SEQ, body: four });
  assert.equal(r1.status, 413);
  assert.equal((await r1.json()).code, "too-many-envelopes");
  const many = seq(
    ...Array.from({ length: 3 }, (_, n) => validEnvelope(n)),
    new Uint8Array(4096),
  );
  const r2 = await app.request("/v1/log/entries", {
    method: "POST",
    headers: { ...SEQ, "content-length": String(many.length) },
    body: many,
  });
  assert.equal(r2.status, 413);
  assert.equal((await r2.json()).code, "body-too-large");
  const r3 = await app.request("/v1/log/entries", {
    method: "POST",
    headers: SEQ,
    body: new Uint8Array(),
  });
  assert.equal(r3.status, 400);
  assert.equal(verified(), 0);
  assert.equal((await log.latestHead()).size, 0);
  // within the limits: appended
  const three = seq(...[1, 2, 3].map((n) => validEnvelope(n)));
  const r4 = await app.request("/v1/log/entries", { method: "POST", headers: SEQ, body: three });
  assert.equal(r4.status, 200);
  assert.equal(verified(), 3);
});
