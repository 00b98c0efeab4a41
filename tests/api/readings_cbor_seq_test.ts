// POST /v1/readings with an application/cbor-seq body (API.md "Meter readings"; RFC 8742): the
// same results as the JSON form, malformed sequences refused with 400 and nothing appended.
import assert from "node:assert/strict";
import { concatBytes, fromHex } from "../../verify/mod.ts";
import { testApp } from "./_fixtures.ts";

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
  assert.deepEqual(await res.json(), { results: [{ seq: 0, index: 0 }] });
  // The same envelope again, twice in one sequence (tagged once): already logged, same index.
  const again = await app.request("/v1/readings", {
    method: "POST",
    headers: SEQ,
    body: new Uint8Array(concatBytes(reading, new Uint8Array([0xd2]), reading)),
  });
  const body = await again.json();
  assert.equal(again.status, 200);
  assert.equal(body.results[0].index, 0);
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
