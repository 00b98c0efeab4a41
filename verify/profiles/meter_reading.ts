// JCP §5 (Liveness, Plausibility), §5.1 (the metering ladder), §5.2 (Coverage); JouleClaw SPEC
// §1.3 (honest energy provenance, worst counter, resolution) and §7 (prefixed schemas): the
// `meter-reading/1` profile, defined field by field in docs/METER-READING.md.
//
// The rules here are pure and shared: the meter agent (meter-agent/) grades its counters with
// `judgeLiveness` / `judgePlausibility` / `wrapDelta`, and the verifier re-checks a signed reading
// with the same functions, from the raw evidence the reading carries (every probe interval's length
// and advance; each counter's limit and mean draw). Nothing is trusted that can be recomputed.

import type { CborMap, CborValue } from "../cbor.ts";
import { checkFields, F, type Finding, isMap, isUint, opt, req } from "./fields.ts";
import { NOT_APPLICABLE, PASS, type Profile, type StepOutcome } from "./types.ts";

/** The schema tag (SPEC §7: a prefixed namespace). */
export const METER_READING_SCHEMA = "meter-reading/1";

/** `prev` of the reading at seq 0. */
export const GENESIS_PREV = "0".repeat(64);

/** JCP §5 Liveness, the exact numbers. */
export const LIVENESS = {
  /** The probe's tick: 25 ms. */
  tickUs: 25_000,
  /** Only an interval no longer than three ticks (75 ms) counts. */
  maxTicksPerInterval: 3,
  /** Advancing in at least 5 counted intervals... */
  minAdvancing: 5,
  /** ...in at least 4 of every 5... */
  window: 5,
  windowMin: 4,
  /** ...over at least 300 ms of counted intervals. */
  minCountedUs: 300_000,
} as const;

/** JCP §5 Plausibility: the draw's ±5 W accuracy, the quarter floor; our ceiling (README, D-M3). */
export const PLAUSIBILITY = {
  drawAccuracyMw: 5_000,
  floorDivisor: 4,
  ceilingFactor: 2,
  limitAllowanceMinMw: 5_000,
  limitAllowanceDivisor: 10,
} as const;

/** The rungs of the ladder, best first (JCP §5.1; INA3221 from SPEC §1.3). */
export const RUNGS = ["rapl", "nvml", "ina3221", "model", "estimator"] as const;
/** A rung of the ladder. */
export type Rung = typeof RUNGS[number];
/** Provenance, best first (JCR-1 §2.3 worst-counter order). */
export const PROVENANCES = ["HwShunt", "ModelBased", "Estimator"] as const;
/** A provenance tag. */
export type Provenance = typeof PROVENANCES[number];

/**
 * Advance of a cumulative counter between two reads. A counter that reads lower than before has
 * wrapped: it is corrected at its own `max_energy_range_uj` (JCP §5.1 rung 1). Without a range (a
 * counter that does not wrap, e.g. NVML's u64 mJ) a decrease is a reset and counts as no advance.
 *
 * @example wrapDelta(4_294_000_000, 1_000, 4_294_967_295) // 968_295
 * @throws RangeError when a value is negative, not an integer or above `maxRange`
 */
export function wrapDelta(prev: number, cur: number, maxRange?: number): number {
  for (const v of [prev, cur]) {
    if (!Number.isSafeInteger(v) || v < 0 || (maxRange !== undefined && v > maxRange)) {
      throw new RangeError(
        `Cannot take a counter's advance: ${v} is outside [0, ${maxRange ?? "2^53"}]`,
      );
    }
  }
  if (cur >= prev) return cur - prev;
  return maxRange === undefined ? 0 : maxRange - prev + cur;
}

/** One probe interval: from one sample in hand to the next (µs), and the counter's advance. */
export interface Interval {
  us: number;
  delta: number;
}

/** What `judgeLiveness` found, with the figures a reader needs to re-grade it. */
export interface LivenessJudgement {
  live: boolean;
  /** Why not live: too-few-advancing | too-short | lumpy. */
  reason?: string;
  intervals: number;
  counted: number;
  advancing: number;
  counted_us: number;
  /** Fewest advancing intervals in any 5 consecutive counted ones (-1 with fewer than 5). */
  worst_window: number;
}

/**
 * JCP §5 Liveness for one counter, from its probe intervals at the 25 ms tick: live iff it advanced
 * in at least 5 counted intervals, in at least 4 of every 5 consecutive counted intervals, over at
 * least 300 ms of counted intervals. An interval longer than three ticks counts as nothing.
 */
export function judgeLiveness(intervals: readonly Interval[]): LivenessJudgement {
  // JCP §5: "only one no longer than three of the probe's ticks, 75 ms at its 25 ms tick, counts".
  const limit = LIVENESS.tickUs * LIVENESS.maxTicksPerInterval;
  const counted = intervals.filter((i) => i.us <= limit);
  const adv = counted.map((i) => (i.delta > 0 ? 1 : 0));
  const advancing = adv.reduce<number>((a, b) => a + b, 0);
  const countedUs = counted.reduce((a, i) => a + i.us, 0);
  let worst = -1;
  for (let s = 0; s + LIVENESS.window <= adv.length; s++) {
    let n = 0;
    for (let k = s; k < s + LIVENESS.window; k++) n += adv[k];
    worst = worst < 0 ? n : Math.min(worst, n);
  }
  const out: LivenessJudgement = {
    live: false,
    intervals: intervals.length,
    counted: counted.length,
    advancing,
    counted_us: countedUs,
    worst_window: worst,
  };
  // JCP §5: advancing "in at least 5 sample intervals, in at least 4 of every 5, over at least 300 ms".
  if (advancing < LIVENESS.minAdvancing) out.reason = "too-few-advancing";
  else if (countedUs < LIVENESS.minCountedUs) out.reason = "too-short";
  else if (worst < LIVENESS.windowMin) out.reason = "lumpy";
  else out.live = true;
  return out;
}

/** `floor(energy_uj / span)` in mW, exact for any size (µJ per ms is mW). */
export function rateMw(energyUj: number, spanUs: number): number {
  if (spanUs <= 0) throw new RangeError("Cannot take a rate: the span is not positive");
  return Number((BigInt(Math.round(energyUj)) * 1000n) / BigInt(Math.round(spanUs)));
}

/** The bounds a limit and a mean draw give (JCP §5 Plausibility; our allowance and ceiling). */
export function plausibilityBounds(limitMw?: number, drawMeanMw?: number): {
  limit_ceiling_mw?: number;
  draw_ceiling_mw?: number;
  floor_mw?: number;
} {
  const out: { limit_ceiling_mw?: number; draw_ceiling_mw?: number; floor_mw?: number } = {};
  if (limitMw !== undefined) {
    const allowance = Math.max(
      PLAUSIBILITY.limitAllowanceMinMw,
      Math.ceil(limitMw / PLAUSIBILITY.limitAllowanceDivisor),
    );
    out.limit_ceiling_mw = limitMw + allowance;
  }
  if (drawMeanMw !== undefined) {
    out.draw_ceiling_mw = PLAUSIBILITY.ceilingFactor * (drawMeanMw + PLAUSIBILITY.drawAccuracyMw);
    // JCP §5: "refute a rate under a quarter of the board's mean draw, after the draw's ±5 W accuracy
    // is taken off it" — and never near idle, where that leaves nothing (floor 0 never fires).
    const f = Math.floor((drawMeanMw - PLAUSIBILITY.drawAccuracyMw) / PLAUSIBILITY.floorDivisor);
    if (f > 0) out.floor_mw = f;
  }
  return out;
}

/** Plausibility outcome of one counter. `not-refuted` is not a finding that the counter is right. */
export type PlausibilityStatus = "not-refuted" | "implausible" | "unjudgeable" | "no-bound";

/** What `judgePlausibility` found: the rate, the bounds, and which bound broke. */
export interface PlausibilityJudgement {
  status: PlausibilityStatus;
  rate_mw: number;
  limit_mw?: number;
  draw_samples: number;
  draw_discarded: number;
  draw_mean_mw?: number;
  ceiling_mw?: number;
  floor_mw?: number;
  bound?: "limit" | "draw-ceiling" | "draw-floor";
}

/**
 * JCP §5 Plausibility, two-sided. `limitMw` is the enforced power limit (a static bound, never
 * discarded); `drawsMw` the board's draw samples over the same span (undefined: no draw readable).
 * A draw sample above the limit (plus allowance) is impossible and discarded, that sample alone;
 * only when none remains is the counter `unjudgeable` (never reported as `implausible`).
 */
export function judgePlausibility(
  rate: number,
  limitMw: number | undefined,
  drawsMw: readonly number[] | undefined,
): PlausibilityJudgement {
  const lim = plausibilityBounds(limitMw).limit_ceiling_mw;
  // JCP §5: "a bound reading that is itself impossible is not a reading ... MUST be discarded — and
  // only that reading".
  const kept = (drawsMw ?? []).filter((d) => lim === undefined || d <= lim);
  const out: PlausibilityJudgement = {
    status: "not-refuted",
    rate_mw: rate,
    draw_samples: drawsMw?.length ?? 0,
    draw_discarded: (drawsMw?.length ?? 0) - kept.length,
  };
  if (limitMw !== undefined) out.limit_mw = limitMw;
  if (kept.length > 0) out.draw_mean_mw = Math.floor(kept.reduce((a, b) => a + b, 0) / kept.length);
  const b = plausibilityBounds(limitMw, out.draw_mean_mw);
  const ceilings = [b.limit_ceiling_mw, b.draw_ceiling_mw].filter((x): x is number =>
    x !== undefined
  );
  if (ceilings.length) out.ceiling_mw = Math.min(...ceilings);
  if (b.floor_mw !== undefined) out.floor_mw = b.floor_mw;
  // JCP §5: the static limit "is never discarded, so a broken draw sample cannot excuse a counter
  // that overran that limit outright".
  if (b.limit_ceiling_mw !== undefined && rate > b.limit_ceiling_mw) {
    return { ...out, status: "implausible", bound: "limit" };
  }
  if (drawsMw === undefined) {
    return { ...out, status: limitMw === undefined ? "no-bound" : "not-refuted" };
  }
  // JCP §5: "Only where no usable reading remains is the counter unjudgeable rather than implausible".
  if (kept.length === 0) return { ...out, status: "unjudgeable" };
  if (b.draw_ceiling_mw !== undefined && rate > b.draw_ceiling_mw) {
    return { ...out, status: "implausible", bound: "draw-ceiling" };
  }
  if (b.floor_mw !== undefined && rate < b.floor_mw) {
    return { ...out, status: "implausible", bound: "draw-floor" };
  }
  return out;
}

/** JCR-1 §2.3 worst-counter rule: the least honest provenance of those combined. */
export function worstProvenance(ps: readonly Provenance[]): Provenance {
  return ps.reduce<Provenance>(
    (w, p) => (PROVENANCES.indexOf(p) > PROVENANCES.indexOf(w) ? p : w),
    "HwShunt",
  );
}

// ---------------------------------------------------------------- the profile (verifier side)

const COUNTER_EVIDENCE = F.map({
  name: req(F.text),
  interval_us: req(F.arrayOf(F.uint)),
  delta: req(F.arrayOf(F.uint)),
});
const PLAUSIBLE_EVIDENCE = F.map({
  name: req(F.text),
  energy_uj: req(F.uint),
  rate_mw: req(F.uint),
  limit_mw: opt(F.uint),
  draw_samples: req(F.uint),
  draw_discarded: req(F.uint),
  draw_mean_mw: opt(F.uint),
  ceiling_mw: opt(F.uint),
  floor_mw: opt(F.uint),
  status: req(F.oneOf("not-refuted", "implausible", "unjudgeable", "no-bound")),
  bound: opt(F.oneOf("limit", "draw-ceiling", "draw-floor")),
});

/** The signed core's field table (docs/METER-READING.md). */
export const METER_READING_FIELDS = {
  jc_receipt: req(F.oneOf(METER_READING_SCHEMA)),
  agent: req(F.didKey),
  seq: req(F.uint),
  prev: req(F.hex64),
  host: req(F.text),
  counter: req(F.oneOf(...RUNGS)),
  domain: req(F.oneOf("cpu-packages", "gpu", "board", "host")),
  start: req(F.uint),
  end: req(F.uint),
  energy_uj: req(F.uint),
  energy_provenance: req(F.oneOf(...PROVENANCES)),
  // JCP §5.2: carried only when Partial; any other value, "Whole" included, is refused.
  energy_coverage: opt(F.oneOf("Partial")),
  resolution_uj: req(F.uint),
  liveness: opt(F.map({
    tick_us: req(F.uint),
    probed_at: req(F.uint),
    counters: req(F.arrayOf(COUNTER_EVIDENCE)),
  })),
  plausibility: opt(F.map({ status: req(F.text), counters: req(F.arrayOf(PLAUSIBLE_EVIDENCE)) })),
  declined: req(
    F.arrayOf(F.map({ rung: req(F.oneOf(...RUNGS)), reason: req(F.text), detail: opt(F.text) })),
  ),
};

const num = (v: CborValue | undefined): number => (isUint(v) ? Number(v) : NaN);
const maps = (v: CborValue | undefined): CborMap[] => (Array.isArray(v) ? v.filter(isMap) : []);

const HW_RUNG: Record<Rung, { provenance: Provenance; domains: string[]; minResolution: number }> =
  {
    rapl: { provenance: "HwShunt", domains: ["cpu-packages"], minResolution: 1 },
    nvml: { provenance: "HwShunt", domains: ["gpu"], minResolution: 1000 },
    ina3221: { provenance: "HwShunt", domains: ["board"], minResolution: 1000 },
    // JCR-1 §2.3 resolution floor: ModelBased/Estimator "realistic floor is ~1000 µJ".
    model: {
      provenance: "ModelBased",
      domains: ["cpu-packages", "gpu", "board", "host"],
      minResolution: 1000,
    },
    estimator: {
      provenance: "Estimator",
      domains: ["cpu-packages", "gpu", "board", "host"],
      minResolution: 1000,
    },
  };

function finding(code: string, detail: string): StepOutcome {
  return { status: "fail", code, detail };
}

/** Re-checks a hardware-graded reading's liveness evidence (JCP §5 Liveness). */
function recheckLiveness(core: CborMap, end: number): StepOutcome | undefined {
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
  if (num(l.get("probed_at")) > end) {
    return finding("reading-not-live", "liveness.probed_at is after the span");
  }
  const counters = maps(l.get("counters"));
  if (counters.length === 0) return finding("reading-not-live", "liveness.counters is empty");
  for (const c of counters) {
    const us = (c.get("interval_us") as CborValue[]).map(num);
    const d = (c.get("delta") as CborValue[]).map(num);
    if (us.length !== d.length) {
      return finding(
        "reading-not-live",
        `counter ${c.get("name")}: interval_us and delta differ in length`,
      );
    }
    // JCP §5: every counter of the domain MUST be observed live.
    const j = judgeLiveness(us.map((u, i) => ({ us: u, delta: d[i] })));
    if (!j.live) {
      return finding(
        "reading-not-live",
        `counter ${
          c.get("name")
        } is not live (${j.reason}: ${j.advancing} advancing of ${j.counted} counted, ` +
          `${j.counted_us} µs, worst window ${j.worst_window})`,
      );
    }
  }
  return undefined;
}

/** Re-checks a hardware-graded reading's plausibility evidence (JCP §5 Plausibility). */
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
    for (
      const [bound, ceil] of [["limit", b.limit_ceiling_mw], [
        "draw-ceiling",
        b.draw_ceiling_mw,
      ]] as const
    ) {
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

/** The `meter-reading/1` honesty rules (docs/METER-READING.md §Verification). */
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
  if (prov === "HwShunt" && (counter === "rapl" || counter === "nvml")) {
    const l = recheckLiveness(core, end);
    if (l) return l;
  }
  if (prov === "HwShunt") {
    const p = recheckPlausibility(core, energy, (end - start) * 1000);
    if (p) return p;
    if (counter === "nvml" && !isMap(core.get("plausibility"))) {
      return finding(
        "reading-implausible",
        "a HwShunt NVML reading carries no plausibility evidence",
      );
    }
  }
  return PASS;
}

/** The `meter-reading/1` profile for the verifier's registry. */
export const meterReadingProfile: Profile = {
  schema: METER_READING_SCHEMA,
  tagField: "jc_receipt",
  produced: true,
  fields: METER_READING_FIELDS,
  // docs/METER-READING.md: the agent signs its reading; the kid is its agent (as /v1/readings says).
  signer: { field: "agent", code: "reading-agent-kid" },
  structure(core: CborMap): Finding | undefined {
    return checkFields(core, METER_READING_FIELDS);
  },
  toolReceipts: () => NOT_APPLICABLE,
  honesty: (core: CborMap) => meterReadingHonesty(core),
  joules: () => NOT_APPLICABLE,
};
