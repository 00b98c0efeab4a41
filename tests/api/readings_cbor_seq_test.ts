// POST /v1/readings with an application/cbor-seq body (API.md "Meter readings"; RFC 8742): the
// same results as the JSON form, malformed sequences refused with 400 and nothing appended.
import assert from "node:assert/strict";
import { concatBytes, fromHex } from "../../verify/mod.ts";
import { testApp } from "../../fixtures/app.ts";

const file = JSON.parse(
  await Deno.readTextFile(new URL("../../conformance/vectors/meter-reading.json", import.meta.url)),
);
const vector = file.vectors.find((v: { expected: { valid: boolean } }) => v.expected.valid);
const reading = new Uint8Array(fromHex(vector.cose_sign1_hex));
const agent: string = vector.signer;
const SEQ = { "content-type": "application/cbor-seq" };

Deno.test("readings: an application/cbor-seq batch is accepted like the JSON form", async () => {
  const { app, log } = await testApp({ JC_AGENTS: `${agent}=conformance` });
  const res = await app.request("/v1/readings", { method: "POST", headers: SEQ, body: reading });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { results: [{ seq: 0, index: 0, verdict: "valid" }] });
  // The same envelope again, twice in one sequence (tagged once): already logged, same index.
  const again = await app.request("/v1/readings", {
    method: "POST",
    headers: SEQ,
    body: new Uint8Array(concatBytes(reading, new Uint8Array([0xd2]), reading)),
  });
  const body = await again.json();
  assert.equal(again.status, 200);
  // issue 23: a resubmitted reading is classed as the logged one (a reading has no step 6)
  assert.deepEqual(body.results[0], { seq: 0, index: 0, verdict: "valid" });
  assert.equal((await log.latestHead()).size, 1);
});

Deno.test("readings: malformed sequences and other media types are refused, nothing appended", async () => {
  const { app, log } = await testApp({ JC_AGENTS: `${agent}=conformance` });
  for (
    const body of [
      new Uint8Array(),
      reading.subarray(0, reading.length - 3),
      concatBytes(reading, new Uint8Array([0x9f, 0xff])),
    ]
  ) {
    const res = await app.request("/v1/readings", {
      method: "POST",
      headers: SEQ,
      body: new Uint8Array(body),
    });
    assert.equal(res.status, 400, `length ${body.length}`);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    await res.body?.cancel();
  }
  const wrong = await app.request("/v1/readings", {
    method: "POST",
    headers: { "content-type": "application/cbor" },
    body: reading,
  });
  assert.equal(wrong.status, 415);
  await wrong.body?.cancel();
  assert.equal((await log.latestHead()).size, 0);
});

Deno.test('readings: appends and verifications count in /metrics, labelled source="readings"', async () => {
  const { app } = await testApp({ JC_AGENTS: `${agent}=conformance` });
  const post = (body: Uint8Array) =>
    app.request("/v1/readings", { method: "POST", headers: SEQ, body: body.slice() });
  assert.equal((await post(reading)).status, 200);
  assert.equal((await post(reading)).status, 200); // already logged: a duplicate
  const forged = reading.slice();
  forged[forged.length - 1] ^= 1; // its signature no longer verifies
  const refused = await (await post(forged)).json();
  assert.equal(refused.results[0].code, "bad-signature");
  assert.equal(refused.results[0].verdict, "invalid", "refused by the verifier: JCR-1 §6 step 3");
  // a receipt through /v1/log/entries: its series are unchanged (no source label)
  const receipt = await Deno.readFile(new URL("../../examples/receipt.cose", import.meta.url));
  const r = await app.request("/v1/log/entries", {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: receipt,
  });
  assert.equal(r.status, 201, await r.text());
  const text = await (await app.request("/metrics")).text();
  assert.match(text, /^jc_appends_total\{result="created",source="readings"\} 1$/m);
  assert.match(text, /^jc_appends_total\{result="duplicate",source="readings"\} 1$/m);
  assert.match(text, /^jc_verifications_total\{code="ok",source="readings"\} 1$/m);
  assert.match(text, /^jc_verifications_total\{code="bad-signature",source="readings"\} 1$/m);
  assert.match(text, /^jc_appends_total\{result="created"\} 1$/m);
  assert.match(text, /^jc_verifications_total\{code="ok"\} 1$/m);
});
