import assert from "node:assert/strict";
import { driftAlert, loggedVerdict, verdictOf } from "./verdict_class.ts";
import { fromHex } from "./bytes.ts";
import { optionsFromConfig } from "./operator_config.ts";
import { verifyEnvelope } from "./report.ts";

const dir = new URL("../conformance/vectors/", import.meta.url);
const opts = optionsFromConfig(
  JSON.parse(await Deno.readTextFile(new URL("operator-config.json", dir))),
);

const steps = (over: Record<string, [string, string?]>) =>
  ["structural", "canonical", "signature", "tool_receipts", "honesty", "joules"].map((step) => ({
    step,
    status: over[step]?.[0] ?? "pass",
    code: over[step]?.[1],
  }));

Deno.test("verdict: steps 1-5 decide invalid; step 6 decides alert, joule-unverified or valid", () => {
  assert.equal(verdictOf(steps({})), "valid");
  assert.equal(verdictOf(steps({ joules: ["pass", "within-band"] })), "valid");
  assert.equal(verdictOf(steps({ joules: ["skipped", "not-applicable"] })), "valid");
  assert.equal(verdictOf(steps({ joules: ["skipped", "joule-unverified"] })), "joule-unverified");
  assert.equal(verdictOf(steps({ joules: ["fail", "out-of-band"] })), "alert");
  for (const s of ["structural", "canonical", "signature", "tool_receipts", "honesty"]) {
    // a failure at any of steps 1-5 is invalid, whatever step 6 says (JCR-1 §6)
    assert.equal(
      verdictOf(steps({ [s]: ["fail", "x"], joules: ["fail", "out-of-band"] })),
      "invalid",
    );
  }
  // JCR-1 §6 step 4 / §5: an unknown gateway fails step 4, so the receipt is invalid
  assert.equal(verdictOf(steps({ tool_receipts: ["fail", "unknown-gateway"] })), "invalid");
});

Deno.test("verdict: a DriftAlert names the band's inclusive bounds, exactly, and u64 beyond 2^53 as text", () => {
  const d = driftAlert({
    input_hash: "h",
    provenance: "HwShunt",
    joules_uj: 2_100_000n,
    reference_uj: 1_500_001n,
    band_percent: 10n,
  });
  // |c − r|·100 ≤ 10·r ⇔ 1,350,000.9 ≤ c ≤ 1,650,001.1: rounded inward
  assert.deepEqual([d.low_uj, d.high_uj], [1_350_001, 1_650_001]);
  const big = driftAlert({
    input_hash: "h",
    provenance: "Estimator",
    joules_uj: 2n ** 60n,
    reference_uj: 2n ** 56n,
    band_percent: 100n,
  });
  assert.equal(big.joules_uj, String(2n ** 60n));
  assert.deepEqual([big.low_uj, big.high_uj], [0, String(2n ** 57n)]);
});

Deno.test("verdict: a logged envelope's verdict is its report's, for every appendable vector", async () => {
  let n = 0;
  for (const f of ["jcr1.json", "siblings.json", "es256.json", "meter-reading.json"]) {
    for (const v of JSON.parse(await Deno.readTextFile(new URL(f, dir))).vectors) {
      if (!v.expected.valid) continue;
      const env = fromHex(v.cose_sign1_hex);
      const r = await verifyEnvelope(env, opts);
      assert.equal(loggedVerdict(env, opts), r.verdict, v.name);
      assert.equal(r.verdict, v.expected.verdict, v.name);
      n++;
    }
  }
  assert.ok(n >= 30, `${n}`);
  assert.equal(loggedVerdict(new Uint8Array([1, 2, 3]), opts), "invalid");
});
