// meter-reading/1 rules (verify/profiles/meter_reading.ts): wraparound property tests, the exact
// JCP §5 liveness thresholds, two-sided plausibility, and the verifier re-checking signed readings
// the meter produced (a valid one passes; each tampering fails with its own code).
import assert from "node:assert/strict";
import fc from "fast-check";
import { meterReading, verifyEnvelope } from "../../verify/mod.ts";
import { ScriptedClock } from "../../meter-agent/src/clock.ts";
import { Meter } from "../../meter-agent/src/meter.ts";
import { discoverNvml } from "../../meter-agent/src/sources/nvml.ts";
import {
  GENESIS,
  identityFromSecret,
  readingCore,
  signReading,
} from "../../meter-agent/src/reading.ts";
import { fakeNvml, steadyMj } from "../../meter-agent/tests/fakes.ts";

const { wrapDelta, judgeLiveness, judgePlausibility } = meterReading;

Deno.test("wrapDelta: accumulating wrapped reads of any true advance sequence gives the true total", () => {
  fc.assert(fc.property(
    fc.integer({ min: 1000, max: 2 ** 40 }),
    fc.integer({ min: 0, max: 2 ** 40 }),
    fc.array(fc.nat(), { maxLength: 50 }),
    (max, start0, steps) => {
      const modulus = max + 1;
      let truth = start0 % modulus;
      let prevRaw = truth;
      let sum = 0;
      for (const s of steps) {
        const step = s % max; // one wrap at most between reads
        truth += step;
        const raw = truth % modulus;
        const d = wrapDelta(prevRaw, raw, max);
        assert.ok(d >= 0 && d <= max);
        sum += d;
        prevRaw = raw;
      }
      // corrected at max_energy_range_uj: each wrap loses exactly one count (max, not max+1)
      const wraps = Math.floor(truth / modulus) - Math.floor((start0 % modulus) / modulus);
      assert.equal(sum, truth - (start0 % modulus) - wraps);
    },
  ));
});

Deno.test("wrapDelta: no range → a decrease is a reset (no advance); out-of-range reads throw", () => {
  assert.equal(wrapDelta(100, 40), 0);
  assert.equal(wrapDelta(40, 100), 60);
  assert.throws(() => wrapDelta(5, 101, 100), RangeError);
  assert.throws(() => wrapDelta(-1, 1, 100), RangeError);
  fc.assert(fc.property(fc.nat(), fc.nat(), (a, b) => wrapDelta(a, b) === (b >= a ? b - a : 0)));
});

const iv = (n: number, us: number, adv: (i: number) => boolean) =>
  Array.from({ length: n }, (_, i) => ({ us, delta: adv(i) ? 7 : 0 }));

Deno.test("liveness: the exact JCP §5 thresholds (5 advancing, 4 of every 5, 300 ms, 75 ms per interval)", () => {
  assert.equal(judgeLiveness(iv(12, 25_000, () => true)).live, true); // 300 ms exactly
  assert.equal(judgeLiveness(iv(11, 25_000, () => true)).reason, "too-short"); // 275 ms
  assert.equal(judgeLiveness(iv(4, 75_000, () => true)).reason, "too-few-advancing"); // 300 ms, 4 intervals
  assert.equal(judgeLiveness(iv(5, 75_000, () => true)).live, true); // 75 ms counts
  assert.equal(judgeLiveness(iv(20, 75_001, () => true)).counted, 0); // longer counts as nothing
  assert.equal(judgeLiveness(iv(20, 25_000, (i) => i % 5 !== 4)).live, true); // 4 of every 5
  const lumpy = judgeLiveness(iv(20, 25_000, (i) => i % 5 < 3)); // 3 of every 5
  assert.deepEqual([lumpy.live, lumpy.reason, lumpy.worst_window], [false, "lumpy", 3]);
  assert.equal(judgeLiveness(iv(20, 25_000, (i) => i % 10 !== 4 && i % 10 !== 5)).reason, "lumpy"); // two adjacent misses
  // a long interval is neither counted, nor an advance, nor time
  const mixed = [
    ...iv(6, 25_000, () => true),
    { us: 200_000, delta: 99 },
    ...iv(6, 25_000, () => true),
  ];
  assert.deepEqual([judgeLiveness(mixed).counted, judgeLiveness(mixed).counted_us], [12, 300_000]);
});

Deno.test("plausibility: two-sided, the spike discarded alone, unjudgeable distinct, never near idle", () => {
  const rtx = [14_800, 14_800, 590_000, 14_800];
  const over = judgePlausibility(59_200, 65_000, rtx); // 4× the draw
  assert.deepEqual([over.status, over.bound, over.draw_discarded, over.draw_mean_mw], [
    "implausible",
    "draw-ceiling",
    1,
    14_800,
  ]);
  // had the spike stayed in the mean, the bound it derives would have excused the counter
  assert.equal(judgePlausibility(59_200, undefined, rtx).status, "not-refuted");
  assert.equal(judgePlausibility(444_000, 65_000, [590_000]).bound, "limit"); // the static limit is never discarded
  assert.equal(judgePlausibility(15_000, 65_000, [590_000, 600_000]).status, "unjudgeable");
  assert.equal(judgePlausibility(6_000, 65_000, [40_000]).bound, "draw-floor");
  assert.equal(judgePlausibility(0, 65_000, [4_000]).status, "not-refuted"); // near idle: no floor
  assert.equal(judgePlausibility(10, undefined, undefined).status, "no-bound");
  fc.assert(
    fc.property(
      fc.nat({ max: 700_000 }),
      fc.array(fc.nat({ max: 700_000 }), { minLength: 1 }),
      (r, ds) => {
        const j = judgePlausibility(r, 700_000, ds);
        assert.ok(j.status !== "no-bound");
        if (j.status === "implausible") assert.ok(j.bound);
      },
    ),
  );
});

async function signedNvmlReading(): Promise<{ core: Record<string, unknown>; secret: Uint8Array }> {
  const clock = new ScriptedClock();
  const meter = new Meter({
    nvml: discoverNvml(
      fakeNvml(clock, [{ energyMj: steadyMj(250), draws: [250_000], limitMw: 700_000 }]),
    ),
  }, clock);
  const span = await meter.span(2000);
  const secret = new Uint8Array(32).fill(7);
  const core = readingCore(span, identityFromSecret(secret), "test-host", GENESIS);
  return { core, secret };
}

Deno.test("verifier: a meter-produced HwShunt NVML reading verifies; tampered copies fail with their codes", async () => {
  const { core, secret } = await signedNvmlReading();
  const id = identityFromSecret(secret);
  const ok = await verifyEnvelope(signReading(core, id));
  assert.equal(ok.valid, true, JSON.stringify(ok.steps));
  assert.equal(ok.schema, "meter-reading/1");
  const fail = async (mut: (c: Record<string, unknown>) => void) => {
    const c = structuredClone(core);
    mut(c);
    const r = await verifyEnvelope(signReading(c, id));
    assert.equal(r.valid, false);
    return r.steps.find((s) => s.status === "fail")!.code;
  };
  assert.equal(await fail((c) => delete c.energy_coverage), "reading-coverage");
  assert.equal(await fail((c) => (c.energy_coverage = "Whole")), "bad-field-value");
  assert.equal(
    await fail((c) => (c.energy_uj = (c.energy_uj as number) + 1)),
    "reading-resolution",
  );
  assert.equal(
    await fail((c) => (c.energy_uj = (c.energy_uj as number) * 3)),
    "reading-rate-mismatch",
  );
  assert.equal(
    await fail((c) => (c.energy_provenance = "ModelBased")),
    "reading-provenance-counter",
  );
  assert.equal(await fail((c) => (c.prev = "ab".repeat(32))), "reading-bad-genesis");
  assert.equal(await fail((c) => (c.end = c.start)), "reading-bad-span");
  assert.equal(
    await fail((c) => {
      const l = c.liveness as { counters: { delta: number[] }[] };
      l.counters[0].delta = l.counters[0].delta.map((d, i) => (i % 2 ? 0 : d));
    }),
    "reading-not-live",
  );
  assert.equal(await fail((c) => delete c.liveness), "reading-not-live");
  assert.equal(
    await fail((c) => {
      // a rate 3× over the recorded draw: the verifier recomputes the bound from the mean draw
      const p = c.plausibility as { counters: Record<string, number>[] };
      p.counters[0].draw_mean_mw = 50_000;
    }),
    "reading-implausible",
  );
});
