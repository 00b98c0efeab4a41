// JCP §5 (Liveness, Plausibility), §5.1 (the metering ladder), §11 (time is the enforcement
// point's); JouleClaw SPEC §1.3 (honest energy provenance, worst counter, resolution,
// `min_window_ns`): the pure rules of `meter-reading/1` and every threshold it is judged by
// (docs/METER-READING.md "Thresholds").
//
// The rules here are pure and shared: the meter agent (meter-agent/) grades its counters with
// `judgeLiveness` / `judgePlausibility` / `wrapDelta`, and the verifier re-checks a signed reading
// with the same functions, from the raw evidence the reading carries (every probe interval's length
// and advance; each counter's limit and mean draw). Nothing is trusted that can be recomputed.
// The Python verifier (conformance/python/jcverify/meter_reading.py) implements them again from
// the text, and tests/verify/meter_reading_agreement_test.ts holds the two to the same answers.

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

/**
 * The time thresholds, decided where the text gives no number (docs/DECISIONS.md "meter-reading/1
 * thresholds").
 */
export const READING_TIME = {
  /**
   * JCP §11 "Time is the enforcement point's ... The endpoint MUST decide at its own clock": a span
   * may end at most this far past the receiving service's clock (`reading-future`); the freshness
   * window's order, wide enough for two NTP-disciplined hosts, far below the minutes a span lasts.
   */
  futureSkewMs: 60_000,
  /**
   * JCP §5 "A reading earns the grade only while its counter is live": the liveness evidence is
   * taken within the span, or at most this long before its start (`reading-stale-evidence`). Twice
   * the agent's default re-probe period (60 s), which the agent never exceeds.
   */
  evidenceMaxAgeMs: 120_000,
} as const;

/**
 * SPEC §1.3 `min_window_ns()`, the shortest span a HwShunt figure may cover, ms
 * (`reading-span-below-window`): RAPL "~10 ms window", NVML "~50 ms"; INA3221's floor is given as a
 * power resolution only, so its window is the agent's power sampling period (100 ms: two samples
 * to integrate between, docs/DECISIONS.md).
 */
export const MIN_WINDOW_MS: Readonly<Record<"rapl" | "nvml" | "ina3221", number>> = {
  rapl: 10,
  nvml: 50,
  ina3221: 100,
};

/**
 * Counter names of a rung whose figure sums one counter per device (JCP §5 "every one of them MUST
 * be observed live"; §5.1 rung 1 "the top-level zones whose name is `package-<n>`, every socket's"):
 * RAPL `package-<n>`, NVML `gpu<n>` or `gpu<n>:<device name>`. The figure is complete when the
 * listed indices are exactly 0..k-1, each once.
 */
export const COUNTER_NAME: Readonly<Record<"rapl" | "nvml", RegExp>> = {
  rapl: /^package-(0|[1-9][0-9]{0,3})$/,
  nvml: /^gpu(0|[1-9][0-9]{0,3})(:.*)?$/s,
};

/**
 * Whether counter names list every device of the domain once, indices 0..k-1: "ok", or why not
 * ("foreign": a name that is no counter of the rung; "incomplete": a missing or repeated index).
 */
export function counterSetStatus(
  rung: "rapl" | "nvml",
  names: readonly string[],
): "ok" | "foreign" | "incomplete" {
  const idx: number[] = [];
  for (const n of names) {
    const m = COUNTER_NAME[rung].exec(n);
    if (!m) return "foreign";
    idx.push(Number(m[1]));
  }
  if (idx.length === 0) return "incomplete";
  const seen = new Set(idx);
  if (seen.size !== idx.length) return "incomplete";
  for (let i = 0; i < idx.length; i++) if (!seen.has(i)) return "incomplete";
  return "ok";
}
