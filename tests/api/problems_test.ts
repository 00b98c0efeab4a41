// Every problem+json has a meaningful title (never a bare "Error"), and a parameter error names
// the parameter (issue 17: `null is not a non-negative decimal integer` said nothing of which).
import assert from "node:assert/strict";
import { HTTP_CODES, titleOf } from "../../api/http/errors.ts";
import { REASON_CODES } from "../../verify/mod.ts";
import { testApp, validEnvelope } from "../../fixtures/app.ts";

Deno.test("problems: a title for every code, never a bare Error", () => {
  const codes = [
    ...Object.keys(HTTP_CODES),
    ...Object.keys(REASON_CODES),
    "sparql-bad-query",
    "bad-json",
    "some-future-code",
  ];
  for (const code of codes) {
    for (const status of [400, 404, 422, 500, 503]) {
      const t = titleOf(code, status);
      assert.ok(t.length > 3 && t !== "Error", `${code} ${status}: ${t}`);
    }
  }
  assert.equal(titleOf("some-future-code", 400), "Some future code");
  assert.match(titleOf("truncated", 400), /^Malformed input: the input ends/);
});

Deno.test("problems: a missing or malformed parameter is named", async () => {
  const { app } = await testApp();
  await app.request("/v1/log/entries", {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: validEnvelope(1),
  });
  const cases: [string, string, RegExp][] = [
    ["/v1/log/proof/consistency", "first", /missing query parameter "first"/],
    ["/v1/log/proof/consistency?first=1", "second", /missing query parameter "second"/],
    ["/v1/log/proof/inclusion?index=x", "index", /"x" is not a non-negative decimal integer/],
    ["/v1/log/proof/inclusion?leaf_hash=AB", "leaf_hash", /not 64 lowercase hex/],
    ["/v1/log/entries/01", "index", /"01" is not a non-negative decimal integer/],
  ];
  for (const [url, param, detail] of cases) {
    const res = await app.request(url);
    assert.equal(res.status, 400, url);
    assert.match(res.headers.get("content-type")!, /application\/problem\+json/);
    const p = await res.json();
    assert.equal(p.code, "bad-parameter", url);
    assert.equal(p.title, "Bad parameter");
    assert.equal(p.parameter, param, url);
    assert.match(p.detail, new RegExp(`^Cannot read ${param}: `), url);
    assert.match(p.detail, detail, url);
    assert.doesNotMatch(p.detail, /null/, url);
  }
  // malformed CBOR: the reason code's meaning, not "Error"
  const bad = await app.request("/v1/log/entries", {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: new Uint8Array([0x84, 0x40]),
  });
  const p = await bad.json();
  assert.notEqual(p.title, "Error");
  assert.ok(p.title.length > 5, JSON.stringify(p));
});
