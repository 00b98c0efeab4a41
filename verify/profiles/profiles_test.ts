// Unit and property tests of the profile helpers that vectors exercise only at a few points.
import assert from "node:assert/strict";
import fc from "fast-check";
import { assertMintable, dispatch, sumFigures, withinDriftBand } from "./mod.ts";
import { isRfc3339Utc } from "./fields.ts";
import { VerifyInputError } from "../errors.ts";

Deno.test("drift band (JCR-1 §7.1): exact boundaries, inclusive", () => {
  assert.equal(withinDriftBand(110n, 100n, "HwShunt"), true);
  assert.equal(withinDriftBand(111n, 100n, "HwShunt"), false);
  assert.equal(withinDriftBand(90n, 100n, "HwShunt"), true);
  assert.equal(withinDriftBand(89n, 100n, "HwShunt"), false);
  assert.equal(withinDriftBand(135n, 100n, "ModelBased"), true);
  assert.equal(withinDriftBand(136n, 100n, "ModelBased"), false);
  assert.equal(withinDriftBand(0n, 100n, "Estimator"), true);
  assert.equal(withinDriftBand(200n, 100n, "Estimator"), true);
  assert.equal(withinDriftBand(201n, 100n, "Estimator"), false);
  assert.equal(withinDriftBand(0n, 0n, "HwShunt"), true);
  assert.equal(withinDriftBand(1n, 0n, "Estimator"), false);
  // u64 extremes do not overflow (bigint arithmetic)
  const max = (1n << 64n) - 1n;
  assert.equal(withinDriftBand(max, max, "HwShunt"), true);
  assert.equal(withinDriftBand(max, max / 2n, "HwShunt"), false);
});

Deno.test("drift band: property — agrees with a rational computation in Number for small values", () => {
  const band = { HwShunt: 0.1, ModelBased: 0.35, Estimator: 1 } as const;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 1_000_000 }),
      fc.integer({ min: 1, max: 1_000_000 }),
      fc.constantFrom("HwShunt", "ModelBased", "Estimator") as fc.Arbitrary<keyof typeof band>,
      (c, r, p) => {
        const pct = Math.round(band[p] * 100);
        const want = Math.abs(c - r) * 100 <= pct * r; // exact in doubles below 2^53
        assert.equal(withinDriftBand(BigInt(c), BigInt(r), p), want);
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("RFC 3339 UTC (JCR-1 §2): calendar and zone", () => {
  for (
    const ok of [
      "2026-05-31T18:04:22Z",
      "2024-02-29T00:00:00Z",
      "2000-02-29T23:59:60Z",
      "2026-01-01T00:00:00.123456789Z",
    ]
  ) {
    assert.ok(isRfc3339Utc(ok), ok);
  }
  for (
    const bad of [
      "2023-02-29T00:00:00Z",
      "2100-02-29T00:00:00Z",
      "2026-04-31T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-00-01T00:00:00Z",
      "2026-05-31T24:00:00Z",
      "2026-05-31T18:60:00Z",
      "2026-05-31T18:04:22+00:00",
      "2026-05-31T18:04:22z",
      "2026-05-31 18:04:22Z",
      "2026-05-31T18:04:22.Z",
      "2026-05-31T18:04:22.1234567890Z",
      "",
    ]
  ) assert.ok(!isRfc3339Utc(bad), bad);
});

Deno.test("dispatch: tag fields, numeric majors and prefixed schemas", () => {
  const m = (o: Record<string, unknown>) => new Map(Object.entries(o)) as never;
  const code = (o: Record<string, unknown>) => {
    const d = dispatch(m(o));
    return d.kind === "profile" ? `profile:${d.schema}` : d.code;
  };
  assert.equal(code({ jc_receipt: "1" }), "profile:1");
  assert.equal(code({ jc_receipt: "policy/1" }), "profile:policy/1");
  assert.equal(code({ jc_receipt: "verdict-receipt/1" }), "profile:verdict-receipt/1");
  assert.equal(code({ jcp_receipt: "jcp/2" }), "profile:jcp/2");
  assert.equal(code({ jcp_receipt: "jcp/1" }), "profile:jcp/1");
  assert.equal(code({ jc_receipt: "2" }), "unknown-major");
  assert.equal(code({ jc_receipt: "10" }), "unknown-major");
  assert.equal(code({ jc_receipt: "policy/2" }), "unsupported-schema");
  assert.equal(code({ jc_receipt: "jcp/2" }), "unsupported-schema"); // right name, wrong tag field
  assert.equal(code({ jcp_receipt: "1" }), "unsupported-schema");
  assert.equal(code({ jcp_receipt: "jcp/3" }), "unsupported-schema");
  assert.equal(code({}), "missing-field");
  assert.equal(code({ jc_receipt: "1", jcp_receipt: "jcp/2" }), "bad-field-value");
  assert.equal(code({ jc_receipt: 1 }), "bad-field-type");
});

Deno.test("assertMintable: jcp/1 is verified but never produced (JCP §8)", () => {
  assertMintable({ jcp_receipt: "jcp/2" });
  assertMintable({ jc_receipt: "1" });
  assertMintable({ jc_receipt: "sandbox/1" });
  assert.throws(
    () => assertMintable({ jcp_receipt: "jcp/1" }),
    (e: unknown) =>
      e instanceof VerifyInputError && e.code === "legacy-profile" &&
      /^Cannot seal receipt: /.test(e.message),
  );
});

Deno.test("JCP §5.2 ledger (sumFigures): any Partial makes the total Partial and drops the per-unit figure", () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ uj: fc.bigInt({ min: 0n, max: 1n << 64n }), partial: fc.boolean() })),
      fc.bigInt({ min: 0n, max: 1000n }),
      (figs, units) => {
        const r = sumFigures(figs, units);
        assert.equal(r.total_uj, figs.reduce((a, f) => a + f.uj, 0n));
        assert.equal(r.partial, figs.some((f) => f.partial));
        if (r.partial || units === 0n) assert.equal(r.uj_per_unit, undefined);
        else assert.equal(r.uj_per_unit, r.total_uj / units);
      },
    ),
  );
});
