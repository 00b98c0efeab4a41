// meter-reading/1 (docs/METER-READING.md; JCP §5, §5.1, §5.2; SPEC §1.3): a valid reading of every
// rung and grade, and negatives for every refusal code of the profile (the reading-* codes and the
// field codes), each mutating one valid base core (meter_reading_cores.ts). Every vector comes
// with a corrupted variant: its envelope with one signature bit flipped, refused bad-signature
// and, for a negative, still its own code (both verifiers judge the core whatever the signature).

import { didSigner, seal } from "./build.ts";
import { BASES, type Core } from "./meter_reading_cores.ts";
import { refused, valid, type Vector, vector } from "./vector.ts";

/** The meter agent of the meter-reading/1 vectors. */
export const METER_AGENT = didSigner("meter-agent");
const AGENT = METER_AGENT;

/** A valid NVML HwShunt core, its agent METER_AGENT (conformance/gen/divergences.ts). */
export function meterCore(): Core {
  return { ...BASES.nvml(), agent: AGENT.kid };
}

type Liveness = { probed_at: number; counters: { name: string; delta: number[] }[] };
type Plaus = { counters: Record<string, unknown>[] };
const live = (c: Core) => c.liveness as Liveness;
const plaus = (c: Core) => c.plausibility as Plaus;

/** Valid vectors: [name, base, description, tweak]. */
const POSITIVES: [string, string, string, (c: Core) => void][] = [
  [
    "nvml",
    "nvml",
    "a live NVML cumulative-energy reading of the GPU domain, HwShunt, Partial coverage",
    () => {},
  ],
  [
    "rapl",
    "rapl",
    "a live RAPL reading of two packages, one with a readable power limit, HwShunt, Whole",
    () => {},
  ],
  ["ina3221", "ina3221", "an INA3221 VDD_IN reading of the board, HwShunt", () => {}],
  [
    "model",
    "model",
    "time × a host-calibrated power, ModelBased, naming its calibration, after a restart gap",
    () => {},
  ],
  ["estimator", "estimator", "time × a default power, Estimator, for the host", () => {}],
  ["estimator-gpu", "estimator-gpu", "an Estimator figure of the GPU domain, Partial", () => {}],
  [
    "rapl-evidence-before",
    "rapl",
    "RAPL liveness probed 120 s before the span (the oldest admitted)",
    (c) => (live(c).probed_at = (c.start as number) - 120_000),
  ],
  [
    "rapl-window",
    "rapl",
    "a RAPL span of exactly its 10 ms window (SPEC §1.3 min_window_ns)",
    (c) => {
      c.end = (c.start as number) + 10;
      live(c).probed_at = c.start as number;
      let sum = 0;
      for (const p of plaus(c).counters) sum += p.energy_uj = (p.rate_mw as number) * 10;
      c.energy_uj = sum;
    },
  ],
];

/** Negative vectors: [name, code, base, description, mutation]. */
const NEGATIVES: [string, string, string, string, (c: Core) => void][] = [
  ["reading-bad-span", "reading-bad-span", "nvml", "end equals start", (c) => (c.end = c.start)],
  [
    "reading-bad-genesis",
    "reading-bad-genesis",
    "nvml",
    "seq 0 with a prev that is not 64 zeros",
    (c) => (c.prev = "ab".repeat(32)),
  ],
  [
    "reading-provenance-counter",
    "reading-provenance-counter",
    "nvml",
    "an NVML cumulative-energy figure graded ModelBased",
    (c) => (c.energy_provenance = "ModelBased"),
  ],
  [
    "reading-provenance-estimator",
    "reading-provenance-counter",
    "estimator",
    "a default-power figure graded ModelBased (JCP §5.1 rung 6: nothing calibrated it)",
    (c) => (c.energy_provenance = "ModelBased"),
  ],
  [
    "reading-domain-counter",
    "reading-domain-counter",
    "nvml",
    "an NVML figure claiming the board domain",
    (c) => (c.domain = "board"),
  ],
  [
    "reading-domain-psys",
    "reading-domain-counter",
    "rapl",
    "a RAPL figure summing the psys zone (JCP §5.1 rung 1: it already includes the packages)",
    (c) => {
      live(c).counters[1].name = "psys";
      plaus(c).counters[1].name = "psys";
    },
  ],
  [
    "reading-coverage",
    "reading-coverage",
    "nvml",
    "a GPU-domain reading without energy_coverage Partial",
    (c) => delete c.energy_coverage,
  ],
  [
    "reading-resolution",
    "reading-resolution",
    "nvml",
    "energy_uj finer than resolution_uj",
    (c) => (c.energy_uj = (c.energy_uj as number) + 1),
  ],
  [
    "reading-resolution-model",
    "reading-resolution",
    "model",
    "a ModelBased figure claiming 1 µJ resolution (JCR-1 §2.3: ~1000 µJ floor)",
    (c) => (c.resolution_uj = 1),
  ],
  [
    "reading-declined-order",
    "reading-declined-order",
    "nvml",
    "a declined rung below the counter that produced the figure",
    (c) => (c.declined = [{ rung: "estimator", reason: "absent" }]),
  ],
  [
    "reading-not-live",
    "reading-not-live",
    "nvml",
    "the counter advanced in only every other interval",
    (c) => {
      const k = live(c).counters[0];
      k.delta = k.delta.map((d, i) => (i % 2 ? 0 : d));
    },
  ],
  [
    "reading-not-live-rapl-socket",
    "reading-not-live",
    "rapl",
    "one RAPL socket frozen beside a live one (JCP §5: every one MUST be observed live)",
    (c) => (live(c).counters[1].delta = live(c).counters[1].delta.map(() => 0)),
  ],
  [
    "reading-not-live-no-evidence",
    "reading-not-live",
    "rapl",
    "a HwShunt RAPL reading without liveness evidence",
    (c) => delete c.liveness,
  ],
  [
    "reading-implausible",
    "reading-implausible",
    "nvml",
    "a rate far above the recorded mean draw",
    (c) => (plaus(c).counters[0].draw_mean_mw = 50_000),
  ],
  [
    "reading-implausible-rapl-limit",
    "reading-implausible",
    "rapl",
    "a RAPL package over its power limit plus allowance (65 W + 6.5 W)",
    (c) => (plaus(c).counters[0].limit_mw = 10_000),
  ],
  [
    "reading-implausible-status",
    "reading-implausible",
    "nvml",
    "a counter recorded unjudgeable yet graded HwShunt",
    (c) => (plaus(c).counters[0].status = "unjudgeable"),
  ],
  [
    "reading-rate-mismatch",
    "reading-rate-mismatch",
    "nvml",
    "energy_uj tripled: the recorded rate no longer matches",
    (c) => (c.energy_uj = (c.energy_uj as number) * 3),
  ],
  [
    "reading-stale-evidence",
    "reading-stale-evidence",
    "nvml",
    "liveness probed six hours before the span",
    (c) => (live(c).probed_at = (c.start as number) - 6 * 3_600_000),
  ],
  [
    "reading-stale-evidence-old",
    "reading-stale-evidence",
    "rapl",
    "liveness probed 120.001 s before the span: 1 ms past the bound",
    (c) => (live(c).probed_at = (c.start as number) - 120_001),
  ],
  [
    "reading-stale-evidence-after",
    "reading-stale-evidence",
    "rapl",
    "liveness probed after the span ended",
    (c) => (live(c).probed_at = (c.end as number) + 1),
  ],
  [
    "reading-span-below-window",
    "reading-span-below-window",
    "nvml",
    "an NVML span of 49 ms, under its ~50 ms window (SPEC §1.3)",
    (c) => {
      c.end = (c.start as number) + 49;
      live(c).probed_at = c.start as number;
    },
  ],
  [
    "reading-span-below-window-ina",
    "reading-span-below-window",
    "ina3221",
    "an INA3221 span of 99 ms, under its 100 ms window",
    (c) => {
      c.end = (c.start as number) + 99;
      c.energy_uj = 990_000;
    },
  ],
  [
    "reading-counters-incomplete",
    "reading-counters-incomplete",
    "rapl",
    "package-1 left out of a two-socket host's evidence (only package-0 and package-2 listed)",
    (c) => {
      live(c).counters[1].name = "package-2";
      plaus(c).counters[1].name = "package-2";
    },
  ],
  [
    "reading-counters-incomplete-span",
    "reading-counters-incomplete",
    "rapl",
    "the span evidence lists one package, the liveness evidence two",
    (c) => {
      plaus(c).counters.pop();
      c.energy_uj = plaus(c).counters[0].energy_uj;
    },
  ],
  [
    "reading-counters-incomplete-empty",
    "reading-counters-incomplete",
    "nvml",
    "liveness evidence listing no counter",
    (c) => (live(c).counters = []),
  ],
  [
    "reading-not-advanced",
    "reading-not-advanced",
    "rapl",
    "a package that did not advance over the span, graded HwShunt (JCP §5.1)",
    (c) => {
      const p = plaus(c).counters[1];
      c.energy_uj = (c.energy_uj as number) - (p.energy_uj as number);
      p.energy_uj = 0;
      p.rate_mw = 0;
    },
  ],
  [
    "reading-calibration",
    "reading-calibration",
    "model",
    "a model figure naming no calibration",
    (c) => delete c.calibration,
  ],
  [
    "reading-calibration-estimator",
    "reading-calibration",
    "estimator",
    "an Estimator figure naming a calibration (it then is a model figure)",
    (c) => (c.calibration = "c0".repeat(32)),
  ],
  [
    "reading-coverage-whole",
    "bad-field-value",
    "nvml",
    'energy_coverage "Whole" (JCP §5.2: only "Partial" is carried)',
    (c) => (c.energy_coverage = "Whole"),
  ],
  [
    "reading-gap-unknown",
    "bad-field-value",
    "model",
    "a gap reason outside the document's list",
    (c) => (c.gap = "because"),
  ],
  [
    "reading-missing-declined",
    "missing-field",
    "estimator",
    "no declined list",
    (c) => delete c.declined,
  ],
  [
    "reading-calibration-type",
    "bad-field-type",
    "model",
    "a calibration that is a number",
    (c) => (c.calibration = 7),
  ],
];

/** The envelope with one bit of its signature's last byte flipped. */
function corrupt(envelope: Uint8Array): Uint8Array {
  const out = envelope.slice();
  out[out.length - 1] ^= 0x01;
  return out;
}

/** The meter-reading/1 vectors (positive, negative, and each one's corrupted variant). */
export function meterReadingVectors(): Vector[] {
  const out: Vector[] = [];
  const add = (name: string, description: string, c: Core, codes: string[], covers?: string) => {
    const env = seal({ ...c, agent: AGENT.kid }, AGENT);
    const base = { schema: "meter-reading/1", signer: AGENT.kid };
    out.push(vector({
      ...base,
      name,
      description,
      ...(covers ? { covers } : {}),
      expected: codes.length ? refused(...codes) : valid(),
    }, env));
    // structural refusals come before the signature's, the honesty rules after it
    const field = ["missing-field", "bad-field-type", "bad-field-value"].includes(codes[0]);
    const bad = field ? [codes[0], "bad-signature"] : ["bad-signature", ...codes];
    out.push(vector({
      ...base,
      name: `${name}-corrupted`,
      description: `${description}; corrupted: one signature bit flipped`,
      expected: refused(...bad),
    }, corrupt(env)));
  };
  for (const [name, base, description, tweak] of POSITIVES) {
    const c = BASES[base]();
    tweak(c);
    add(`meter-reading-1-${name}`, `meter-reading/1: ${description}`, c, []);
  }
  for (const [name, code, base, description, mutate] of NEGATIVES) {
    const c = BASES[base]();
    mutate(c);
    add(`neg-${name}`, description, c, [code], code);
  }
  return out;
}
