// The base cores of the meter-reading/1 vectors (docs/METER-READING.md), one per rung and grade:
// the NVML core is a frozen fixture produced once by the meter agent's own pipeline
// (meter_reading_core.json, as tests/meter/rules_test.ts does); the others are written out here
// from the document, each valid, each the starting point of the negatives that mutate it.

import fixture from "./meter_reading_core.json" with { type: "json" };

/** A core as JSON (integers as numbers). */
export type Core = Record<string, unknown>;

const T0 = 1_700_000_000_000;
const SPAN = 2000; // ms
const ticks = (n: number, v: number) => Array.from({ length: n }, () => v);

/** Liveness evidence of counters that advanced in every one of 13 intervals at the 25 ms tick. */
function liveness(names: string[], delta: number, probedAt = T0 + 300) {
  return {
    tick_us: 25_000,
    probed_at: probedAt,
    counters: names.map((name) => ({
      name,
      interval_us: [0, ...ticks(12, 25_000)],
      delta: [0, ...ticks(12, delta)],
    })),
  };
}

/** RAPL, two sockets at 20 W and 30 W; package-0 has a readable limit (65 W), package-1 none. */
function rapl(): Core {
  const e0 = 20_000 * SPAN, e1 = 30_000 * SPAN; // mW × ms = µJ
  return {
    jc_receipt: "meter-reading/1",
    seq: 0,
    prev: "0".repeat(64),
    host: "conformance-host",
    counter: "rapl",
    domain: "cpu-packages",
    start: T0,
    end: T0 + SPAN,
    energy_uj: e0 + e1,
    energy_provenance: "HwShunt",
    resolution_uj: 1,
    liveness: liveness(["package-0", "package-1"], 500_000),
    plausibility: {
      status: "not-refuted",
      counters: [
        {
          name: "package-0",
          energy_uj: e0,
          rate_mw: e0 / SPAN,
          limit_mw: 65_000,
          draw_samples: 0,
          draw_discarded: 0,
          ceiling_mw: 71_500,
          status: "not-refuted",
        },
        {
          name: "package-1",
          energy_uj: e1,
          rate_mw: e1 / SPAN,
          draw_samples: 0,
          draw_discarded: 0,
          status: "no-bound",
        },
      ],
    },
    declined: [],
  };
}

/** INA3221 (the board's VDD_IN rail), 10 W over the span. */
function ina3221(): Core {
  return {
    jc_receipt: "meter-reading/1",
    seq: 0,
    prev: "0".repeat(64),
    host: "conformance-host",
    counter: "ina3221",
    domain: "board",
    start: T0,
    end: T0 + SPAN,
    energy_uj: 10_000 * SPAN,
    energy_provenance: "HwShunt",
    resolution_uj: 1000,
    declined: [{ rung: "rapl", reason: "rung-absent" }, { rung: "nvml", reason: "rung-absent" }],
  };
}

/** Time × the power of an earlier HwShunt reading (ModelBased), naming it. */
function model(): Core {
  return {
    jc_receipt: "meter-reading/1",
    seq: 5,
    prev: "5a".repeat(32),
    host: "conformance-host",
    counter: "model",
    domain: "cpu-packages",
    start: T0,
    end: T0 + SPAN,
    energy_uj: 50_000 * SPAN,
    energy_provenance: "ModelBased",
    resolution_uj: 1000,
    declined: [{ rung: "rapl", reason: "span-not-advanced", detail: "package-0" }],
    calibration: "c0".repeat(32),
    gap: "restart",
  };
}

/** Time × a default power (Estimator), nothing readable. */
function estimator(domain = "host"): Core {
  const c: Core = {
    jc_receipt: "meter-reading/1",
    seq: 0,
    prev: "0".repeat(64),
    host: "conformance-host",
    counter: "estimator",
    domain,
    start: T0,
    end: T0 + SPAN,
    energy_uj: 100_000 * SPAN,
    energy_provenance: "Estimator",
    resolution_uj: 1000,
    declined: [
      { rung: "rapl", reason: "rung-absent" },
      { rung: "model", reason: "no-calibration" },
    ],
  };
  if (domain === "gpu") c.energy_coverage = "Partial";
  return c;
}

/** The base cores by name (a fresh copy each call). */
export const BASES: Record<string, () => Core> = {
  nvml: () => structuredClone(fixture) as Core,
  rapl,
  ina3221,
  model,
  estimator: () => estimator(),
  "estimator-gpu": () => estimator("gpu"),
};
