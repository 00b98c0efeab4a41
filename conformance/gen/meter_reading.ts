// meter-reading/1 (docs/METER-READING.md; JCP §5, §5.1, §5.2): one valid HwShunt NVML reading and a
// negative for each reading-* refusal code of the profile. The core is a frozen fixture produced
// once by the meter agent's own pipeline (meter-agent/src/reading.ts over its fake NVML source, as
// tests/meter/rules_test.ts does), so the vectors pin the profile's rules rather than follow them;
// the agent field is set to this set's fixed test signer.

import fixture from "./meter_reading_core.json" with { type: "json" };
import { didSigner, seal } from "./build.ts";
import { refused, valid, type Vector, vector } from "./vector.ts";

type Core = Record<string, unknown>;
/** The meter agent of the meter-reading/1 vectors. */
export const METER_AGENT = didSigner("meter-agent");
const AGENT = METER_AGENT;

/** The fixture core, signed by METER_AGENT. */
export function meterCore(): Core {
  return { ...structuredClone(fixture), agent: AGENT.kid };
}

const MUTATIONS: [string, string, string, (c: Core) => void][] = [
  ["reading-bad-span", "reading-bad-span", "end equals start", (c) => (c.end = c.start)],
  [
    "reading-bad-genesis",
    "reading-bad-genesis",
    "seq 0 with a prev that is not 64 zeros",
    (c) => (c.prev = "ab".repeat(32)),
  ],
  [
    "reading-provenance-counter",
    "reading-provenance-counter",
    "an NVML cumulative-energy figure graded ModelBased",
    (c) => (c.energy_provenance = "ModelBased"),
  ],
  [
    "reading-domain-counter",
    "reading-domain-counter",
    "an NVML figure claiming the board domain",
    (c) => (c.domain = "board"),
  ],
  [
    "reading-coverage",
    "reading-coverage",
    "a GPU-domain reading without energy_coverage Partial",
    (c) => delete c.energy_coverage,
  ],
  [
    "reading-resolution",
    "reading-resolution",
    "energy_uj finer than resolution_uj",
    (c) => (c.energy_uj = (c.energy_uj as number) + 1),
  ],
  [
    "reading-declined-order",
    "reading-declined-order",
    "a declined rung below the counter that produced the figure",
    (c) => (c.declined = [{ rung: "estimator", reason: "absent" }]),
  ],
  [
    "reading-not-live",
    "reading-not-live",
    "the counter advanced in only every other interval",
    (c) => {
      const l = c.liveness as { counters: { delta: number[] }[] };
      l.counters[0].delta = l.counters[0].delta.map((d, i) => (i % 2 ? 0 : d));
    },
  ],
  ["reading-implausible", "reading-implausible", "a rate far above the recorded mean draw", (c) => {
    const p = c.plausibility as { counters: Record<string, number>[] };
    p.counters[0].draw_mean_mw = 50_000;
  }],
  [
    "reading-rate-mismatch",
    "reading-rate-mismatch",
    "energy_uj tripled: the recorded rate no longer matches",
    (c) => (c.energy_uj = (c.energy_uj as number) * 3),
  ],
];

/** The meter-reading/1 vectors (positive and negative). */
export function meterReadingVectors(): Vector[] {
  const out = [vector({
    name: "meter-reading-1-nvml",
    description:
      "meter-reading/1: a live NVML cumulative-energy reading of the GPU domain, HwShunt, Partial coverage",
    schema: "meter-reading/1",
    signer: AGENT.kid,
    expected: valid(),
  }, seal(meterCore(), AGENT))];
  for (const [name, code, description, mutate] of MUTATIONS) {
    const c = meterCore();
    mutate(c);
    out.push(
      vector({
        name: `neg-${name}`,
        description,
        covers: code,
        schema: "meter-reading/1",
        signer: AGENT.kid,
        expected: refused(code),
      }, seal(c, AGENT)),
    );
  }
  return out;
}
