// Content negotiation (RFC 9110 §12.5.1): q-values, wildcards, specificity, server order.
import assert from "node:assert/strict";
import fc from "fast-check";
import { negotiate, negotiateOr406 } from "../../api/http/negotiate.ts";

const AV = ["application/json", "application/cose", "text/turtle"];

Deno.test("negotiate: table of cases", () => {
  const cases: [string | null, string | undefined][] = [
    [null, "application/json"],
    ["", "application/json"],
    ["*/*", "application/json"],
    ["application/cose", "application/cose"],
    ["application/cose;q=0.5, application/json;q=0.4", "application/cose"],
    ["application/*;q=0.2, text/turtle", "text/turtle"],
    ["application/*", "application/json"],
    ["*/*;q=0.1, application/json;q=0", "application/cose"],
    ["text/html", undefined],
    ["application/json;q=0", undefined],
    ["APPLICATION/COSE", "application/cose"],
    ["garbage", "application/json"],
    ["text/html, */*;q=0.01", "application/json"],
  ];
  for (const [accept, want] of cases) assert.equal(negotiate(accept, AV), want, String(accept));
});

Deno.test("negotiateOr406: refuses with the available list", () => {
  assert.throws(() => negotiateOr406("image/png", AV), (e: unknown) => {
    const err = e as { status: number; code: string; extra: { available: string[] } };
    assert.equal(err.status, 406);
    assert.equal(err.code, "not-acceptable");
    assert.deepEqual(err.extra.available, AV);
    return true;
  });
});

Deno.test("negotiate: property — result is available and has the highest q", () => {
  const mt = fc.constantFrom(...AV, "text/html", "*/*", "application/*", "text/*");
  const q = fc.integer({ min: 0, max: 10 }).map((n) => n / 10);
  fc.assert(fc.property(fc.array(fc.tuple(mt, q), { maxLength: 5 }), (ranges) => {
    const accept = ranges.map(([m, x]) => `${m};q=${x}`).join(", ");
    const got = negotiate(accept, AV);
    if (ranges.length === 0) return got === AV[0];
    if (got === undefined) {
      // then every available type has q 0
      return AV.every((a) => negotiate(accept, [a]) === undefined);
    }
    return AV.includes(got);
  }));
});
