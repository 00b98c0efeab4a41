// JCP §5 (Liveness, Plausibility), §5.1 (the metering ladder), §5.2 (Coverage); JouleClaw SPEC
// §1.3: the `meter-reading/1` honesty step — what one signed reading must show by itself, in the
// order docs/METER-READING.md "Verification" lists (the first broken rule is the step's code).
// Checks that need the agent's previous readings (overlap, calibration) are the service's:
// meter_reading_chain.ts.

import type { CborMap, CborValue } from "../cbor.ts";
import { isMap, isUint } from "./fields.ts";
import {
  counterSetStatus,
  GENESIS_PREV,
  judgeLiveness,
  LIVENESS,
  MIN_WINDOW_MS,
  plausibilityBounds,
  type Provenance,
  rateMw,
  READING_TIME,
  type Rung,
  RUNGS,
} from "./meter_rules.ts";
import { PASS, type StepOutcome } from "./types.ts";

const num = (v: CborValue | undefined): number => (isUint(v) ? Number(v) : NaN);
const maps = (v: CborValue | undefined): CborMap[] => (Array.isArray(v) ? v.filter(isMap) : []);

const ANY_DOMAIN = ["cpu-packages", "gpu", "board", "host"];
const HW_RUNG: Record<Rung, { provenance: Provenance; domains: string[]; minResolution: number }> =
  {
    rapl: { provenance: "HwShunt", domains: ["cpu-packages"], minResolution: 1 },
    nvml: { provenance: "HwShunt", domains: ["gpu"], minResolution: 1000 },
    ina3221: { provenance: "HwShunt", domains: ["board"], minResolution: 1000 },
    // JCR-1 §2.3 resolution floor: ModelBased/Estimator "realistic floor is ~1000 µJ".
    model: { provenance: "ModelBased", domains: ANY_DOMAIN, minResolution: 1000 },
    estimator: { provenance: "Estimator", domains: ANY_DOMAIN, minResolution: 1000 },
  };

function finding(code: string, detail: string): StepOutcome {
  return { status: "fail", code, detail };
}

/** The names of an evidence list's counters (text only; anything else never matches). */
function namesOf(cs: CborMap[]): string[] {
  return cs.map((c) => {
    const n = c.get("name");
    return typeof n === "string" ? n : "\u0000";
  });
}

/** Re-checks a rapl / nvml HwShunt reading's liveness evidence (JCP §5 Liveness). */
function recheckLiveness(
  core: CborMap,
  rung: "rapl" | "nvml",
  start: number,
  end: number,
): StepOutcome | undefined {
  const l = core.get("liveness");
  if (!isMap(l)) {
    return finding("reading-not-live", "a HwShunt counter reading carries no liveness evidence");
  }
  if (num(l.get("tick_us")) !== LIVENESS.tickUs) {
    return finding(
      "reading-not-live",
      `liveness.tick_us must be ${LIVENESS.tickUs} (JCP §5: the 25 ms tick)`,
    );
  }
  // JCP §5 "A reading earns the grade only while its counter is live": evidence from within the
  // span, or a bounded time before it (READING_TIME.evidenceMaxAgeMs), never from after it.
  const at = num(l.get("probed_at"));
  if (at > end || at + READING_TIME.evidenceMaxAgeMs < start) {
    return finding(
      "reading-stale-evidence",
      `liveness.probed_at ${at} is not within the span [${start}, ${end}] or at most ` +
        `${READING_TIME.evidenceMaxAgeMs} ms before it`,
    );
  }
  const counters = maps(l.get("counters"));
  // JCP §5: "Where the figure sums several counters of the domain ... every one of them MUST be
  // observed live"; §5.1 rung 1: every socket's package-<n> and no other zone.
  const set = counterSetStatus(rung, namesOf(counters));
  if (set === "foreign") {
    return finding(
      "reading-domain-counter",
      `liveness lists a counter that is no ${rung} counter of the ${core.get("domain")} domain`,
    );
  }
  if (set === "incomplete") {
    return finding(
      "reading-counters-incomplete",
      `liveness does not list every ${rung} counter of the domain once (indices 0..k-1)`,
    );
  }
  for (const c of counters) {
    const us = (c.get("interval_us") as CborValue[]).map(num);
    const d = (c.get("delta") as CborValue[]).map(num);
    if (us.length !== d.length) {
      return finding(
        "reading-not-live",
        `counter ${c.get("name")}: interval_us and delta differ in length`,
      );
    }
    const j = judgeLiveness(us.map((u, i) => ({ us: u, delta: d[i] })));
    if (!j.live) {
      return finding(
        "reading-not-live",
        `counter ${c.get("name")} is not live (${j.reason}: ${j.advancing} advancing of ` +
          `${j.counted} counted, ${j.counted_us} µs, worst window ${j.worst_window})`,
      );
    }
  }
  return undefined;
}

/** Re-checks a HwShunt reading's plausibility evidence (JCP §5 Plausibility, §5.1 advance). */
function recheckPlausibility(
  core: CborMap,
  energy: number,
  spanUs: number,
): StepOutcome | undefined {
  const p = core.get("plausibility");
  if (!isMap(p)) return undefined;
  const counters = maps(p.get("counters"));
  let sum = 0;
  for (const c of counters) {
    const name = String(c.get("name"));
    const e = num(c.get("energy_uj"));
    sum += e;
    const counter = core.get("counter");
    // JCP §5.1: "A span over which [the counter] did not advance is metered by a lower rung."
    if (e === 0 && (counter === "rapl" || counter === "nvml")) {
      return finding(
        "reading-not-advanced",
        `counter ${name} did not advance over the span, yet the reading is HwShunt`,
      );
    }
    const rate = rateMw(e, spanUs);
    if (num(c.get("rate_mw")) !== rate) {
      return finding(
        "reading-rate-mismatch",
        `counter ${name}: rate_mw is not energy_uj over the span (${rate})`,
      );
    }
    const status = c.get("status");
    if (status !== "not-refuted" && status !== "no-bound") {
      // JCP §5: neither an implausible nor an unjudgeable counter produces a hardware-graded figure.
      return finding(
        "reading-implausible",
        `counter ${name} is ${status} yet the reading is HwShunt`,
      );
    }
    const lim = c.get("limit_mw");
    const mean = c.get("draw_mean_mw");
    const b = plausibilityBounds(
      isUint(lim) ? Number(lim) : undefined,
      isUint(mean) ? Number(mean) : undefined,
    );
    const ceilings = [["limit", b.limit_ceiling_mw], ["draw-ceiling", b.draw_ceiling_mw]] as const;
    for (const [bound, ceil] of ceilings) {
      if (ceil !== undefined && rate > ceil) {
        return finding(
          "reading-implausible",
          `counter ${name}: rate ${rate} mW exceeds the ${bound} bound ${ceil} mW`,
        );
      }
    }
    if (b.floor_mw !== undefined && rate < b.floor_mw) {
      return finding(
        "reading-implausible",
        `counter ${name}: rate ${rate} mW is under the draw floor ${b.floor_mw} mW`,
      );
    }
  }
  if (counters.length && sum !== energy) {
    return finding(
      "reading-rate-mismatch",
      `the counters' energy_uj sum to ${sum}, not energy_uj ${energy}`,
    );
  }
  return undefined;
}

/** A rapl / nvml HwShunt reading's per-counter span evidence lists its liveness counters. */
function recheckSpanCounters(core: CborMap, counter: "rapl" | "nvml"): StepOutcome | undefined {
  const p = core.get("plausibility");
  if (!isMap(p)) {
    return counter === "nvml"
      ? finding("reading-implausible", "a HwShunt NVML reading carries no plausibility evidence")
      : finding(
        "reading-counters-incomplete",
        "a HwShunt RAPL reading carries no per-counter span evidence (plausibility)",
      );
  }
  const live = namesOf(maps((core.get("liveness") as CborMap).get("counters")));
  const span = namesOf(maps(p.get("counters")));
  if (live.length !== span.length || live.some((n, i) => n !== span[i])) {
    return finding(
      "reading-counters-incomplete",
      "plausibility.counters does not list the liveness counters, in their order",
    );
  }
  return undefined;
}

/** The `meter-reading/1` honesty rules (docs/METER-READING.md "Verification"), first broken wins. */
export function meterReadingHonesty(core: CborMap): StepOutcome {
  const start = num(core.get("start"));
  const end = num(core.get("end"));
  if (!(end > start)) {
    return finding("reading-bad-span", `end (${end}) must be after start (${start})`);
  }
  if (num(core.get("seq")) === 0 && core.get("prev") !== GENESIS_PREV) {
    return finding("reading-bad-genesis", "the reading at seq 0 must carry prev = 64 zeros");
  }
  const counter = core.get("counter") as Rung;
  const rung = HW_RUNG[counter];
  const prov = core.get("energy_provenance") as Provenance;
  const domain = core.get("domain") as string;
  // JCP §5.1: "A figure MUST NOT claim better provenance than how it was obtained".
  if (prov !== rung.provenance) {
    return finding(
      "reading-provenance-counter",
      `a ${counter} figure is ${rung.provenance}, not ${prov}`,
    );
  }
  if (!rung.domains.includes(domain)) {
    return finding(
      "reading-domain-counter",
      `a ${counter} counter does not read the ${domain} domain`,
    );
  }
  // JCP §5.2 / §5.1 rung 2: a GPU figure reads the GPU and not the CPU's share: Partial.
  if (domain === "gpu" && core.get("energy_coverage") !== "Partial") {
    return finding(
      "reading-coverage",
      "a gpu-domain figure must carry energy_coverage Partial (JCP §5.2)",
    );
  }
  const res = num(core.get("resolution_uj"));
  const energy = num(core.get("energy_uj"));
  // JCR-1 §2.3: joules_uj MUST NOT be reported at finer resolution than the counter's resolution_uj.
  if (!(res >= rung.minResolution) || energy % res !== 0) {
    return finding(
      "reading-resolution",
      `energy_uj ${energy} must be a multiple of resolution_uj ${res} (at least ${rung.minResolution} for ${counter})`,
    );
  }
  const rungAt = RUNGS.indexOf(counter);
  for (const d of maps(core.get("declined"))) {
    if (RUNGS.indexOf(d.get("rung") as Rung) >= rungAt) {
      return finding(
        "reading-declined-order",
        `declined rung ${d.get("rung")} is not above ${counter}`,
      );
    }
  }
  // JCP §5.1 rung 5: "an active power calibrated on the host": a model figure names the HwShunt
  // reading that measured it (the service checks it is this agent's, logged); no other figure does.
  if ((counter === "model") !== core.has("calibration")) {
    return finding(
      "reading-calibration",
      counter === "model"
        ? "a model figure must name its calibration (the HwShunt reading's content id)"
        : `a ${counter} figure names no calibration`,
    );
  }
  if (prov !== "HwShunt") return PASS;
  // SPEC §1.3: callers "can refuse to claim microjoule accuracy on platforms that cannot deliver
  // it" — a HwShunt span no shorter than the counter's min_window_ns.
  const hw = counter as "rapl" | "nvml" | "ina3221";
  if (end - start < MIN_WINDOW_MS[hw]) {
    return finding(
      "reading-span-below-window",
      `a ${counter} HwShunt span of ${end - start} ms is shorter than its window ${
        MIN_WINDOW_MS[hw]
      } ms (SPEC §1.3 min_window_ns)`,
    );
  }
  if (hw === "rapl" || hw === "nvml") {
    const bad = recheckLiveness(core, hw, start, end) ?? recheckSpanCounters(core, hw);
    if (bad) return bad;
  }
  return recheckPlausibility(core, energy, (end - start) * 1000) ?? PASS;
}
