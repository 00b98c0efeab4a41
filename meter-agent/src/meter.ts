// JCP §5.1 the metering ladder, best first: RAPL, NVML, INA3221 (hardware, HwShunt while live and
// not refuted), then time × host-calibrated power (ModelBased), then time × default power
// (Estimator, always available). `probeAll` judges every hardware rung (JCP §5 Liveness and
// Plausibility) and selects the best admissible one; `span` meters one contiguous span with it and
// grades the figure, falling to a lower rung — and recording why — when the counter did not read
// the span (JCP §5.1: "A span over which no package counter advanced is metered by a lower rung").

import { meterReading } from "../../verify/mod.ts";
import type { Clock } from "./clock.ts";
import { probe, type ProbeEvidence, type ProbeOptions, Tracker } from "./probe.ts";
import type {
  CounterSet,
  Decline,
  Domain,
  Found,
  PowerSet,
  Provenance,
  Rung,
} from "./sources/types.ts";

const { judgeLiveness, judgePlausibility, rateMw, LIVENESS, MIN_WINDOW_MS, READING_TIME } =
  meterReading;
type LivenessJudgement = meterReading.LivenessJudgement;
type PlausibilityJudgement = meterReading.PlausibilityJudgement;

/**
 * A host-calibrated power for a domain (JCP §5.1 rung 5): the rate of the agent's latest logged
 * HwShunt reading of the domain, named by its content id (the chain head's, reading.ts).
 */
export type Calibration = meterReading.ChainCalibration;

/** Meter options; every default is documented in meter-agent/README.md. */
export interface MeterOptions {
  /** Hardware rungs to consider (default: all). */
  rungs?: Rung[];
  /** Estimator power when nothing calibrated it (default 100 W). */
  defaultPowerMw?: number;
  /** Span sampling tick (default 1000 ms for counters, 100 ms for a power monitor). */
  sampleMs?: number;
  /**
   * Re-probe the ladder when the last probe is older than this (default and most 60 s: half the
   * evidence age the verifier admits, READING_TIME.evidenceMaxAgeMs).
   */
  reprobeMs?: number;
  probe?: ProbeOptions;
  /** Where the chain's spans reached (its last span end, ms): no span starts before it. */
  notBefore?: number;
}

/** One rung as the probe found it. */
export interface RungStatus {
  rung: Rung;
  status: "live" | "declined" | "available";
  reason?: string;
  detail?: string;
  domain?: Domain;
  counters?: string[];
  liveness?: LivenessJudgement[];
  plausibility?: PlausibilityJudgement[];
}

/** What `probeAll` found: every rung, and the one selected. */
export interface ProbeReport {
  at: number;
  selected: Rung;
  domain: Domain;
  rungs: RungStatus[];
}

/** A graded span: the reading's metering fields (docs/METER-READING.md). */
export interface GradedSpan {
  counter: Rung;
  domain: Domain;
  start: number;
  end: number;
  energy_uj: number;
  energy_provenance: Provenance;
  energy_coverage?: "Partial";
  resolution_uj: number;
  liveness?: {
    tick_us: number;
    probed_at: number;
    counters: { name: string; interval_us: number[]; delta: number[] }[];
  };
  plausibility?: { status: string; counters: Record<string, unknown>[] };
  declined: Decline[];
  /** A model figure's calibration: the content id of the HwShunt reading it uses. */
  calibration?: string;
}

/** The sources the ladder may use (each found, or declined with why). */
export interface Sources {
  rapl?: Found<CounterSet>;
  nvml?: Found<CounterSet>;
  ina3221?: Found<PowerSet>;
}

const HARDWARE = ["rapl", "nvml", "ina3221"] as const;
const RUNG_ORDER: readonly Rung[] = meterReading.RUNGS;

function worstStatus(js: PlausibilityJudgement[]): PlausibilityJudgement | undefined {
  return js.find((j) => j.status === "implausible") ?? js.find((j) => j.status === "unjudgeable");
}

function boundValue(j: PlausibilityJudgement): number | undefined {
  const b = meterReading.plausibilityBounds(j.limit_mw, j.draw_mean_mw);
  return j.bound === "limit"
    ? b.limit_ceiling_mw
    : j.bound === "draw-ceiling"
    ? b.draw_ceiling_mw
    : b.floor_mw;
}

function plausibilityDecline(
  rung: Rung,
  names: readonly string[],
  js: PlausibilityJudgement[],
): Decline | undefined {
  const bad = worstStatus(js);
  if (!bad) return undefined;
  const name = names[js.indexOf(bad)];
  // JCP §5: "record the rate and the bound it broke"; unjudgeable is not reported as an overrun.
  return bad.status === "implausible"
    ? {
      rung,
      reason: "counter-implausible",
      detail: `${name}: rate ${bad.rate_mw} mW breaks the ${bad.bound} bound (${
        boundValue(bad)
      } mW; limit ${bad.limit_mw ?? "-"} mW, mean draw ${
        bad.draw_mean_mw ?? "-"
      } mW, ${bad.draw_discarded} of ${bad.draw_samples} draw samples discarded)`,
    }
    : {
      rung,
      reason: "counter-unjudgeable",
      detail:
        `${name}: all ${bad.draw_samples} draw samples were impossible (above limit ${bad.limit_mw} mW)`,
    };
}

/** Judges each counter's plausibility over a span of `spanUs` with its draws and limit. */
export function judgeCounters(
  set: CounterSet,
  delta: number[],
  spanUs: number,
  draws: number[][],
  drawReadable: boolean[],
): PlausibilityJudgement[] {
  const limits = set.limitsMw?.() ?? set.names.map(() => undefined);
  return set.names.map((_, i) =>
    judgePlausibility(
      rateMw(delta[i] * set.unitUj, spanUs),
      limits[i],
      drawReadable[i] ? draws[i] : undefined,
    )
  );
}

/** The ladder, its trackers and its current selection. */
export class Meter {
  readonly #clock: Clock;
  readonly #opts: MeterOptions;
  readonly #sources: Sources;
  readonly #trackers = new Map<Rung, Tracker>();
  #power?: { set: PowerSet; samples: { us: number; mw: number }[]; failures: number };
  #report?: ProbeReport;
  #evidence = new Map<Rung, ProbeEvidence>();
  #probedAtUs = -Infinity;
  #wall0: number;
  #mono0: number;
  #startUs?: number;
  /** The last span's end, ms: the next span starts there (contiguous, never overlapping). */
  #lastEnd?: number;
  /** The calibrations the chain holds now (set by whoever signs: cli.ts, from the chain head). */
  calibration: Partial<Record<string, Calibration>> = {};

  constructor(sources: Sources, clock: Clock, opts: MeterOptions = {}) {
    this.#clock = clock;
    this.#opts = opts;
    this.#sources = sources;
    this.#lastEnd = opts.notBefore;
    // Readings' times follow the monotonic clock from one wall anchor, so a span never runs backwards.
    this.#wall0 = clock.wallMs();
    this.#mono0 = clock.monoUs();
    for (const r of ["rapl", "nvml"] as const) {
      const f = sources[r];
      if (f?.ok && this.#allowed(r)) this.#trackers.set(r, new Tracker(f.source, clock));
    }
    const p = sources.ina3221;
    if (p?.ok && this.#allowed("ina3221")) {
      this.#power = { set: p.source, samples: [], failures: 0 };
    }
  }

  #allowed(r: Rung): boolean {
    return !this.#opts.rungs || this.#opts.rungs.includes(r);
  }

  #wallAt(us: number): number {
    return this.#wall0 + Math.floor((us - this.#mono0) / 1000);
  }

  /** The last probe's report (after `probeAll`). */
  get report(): ProbeReport | undefined {
    return this.#report;
  }

  #samplePower(): void {
    if (!this.#power) return;
    try {
      const mw = this.#power.set.readPowerMw();
      this.#power.samples.push({ us: this.#clock.monoUs(), mw });
    } catch {
      this.#power.failures++;
    }
  }

  async #probePower(): Promise<RungStatus> {
    const pw = this.#power!;
    const tick = this.#opts.probe?.tickUs ?? LIVENESS.tickUs;
    const t0 = this.#clock.monoUs();
    const before = pw.samples.length;
    const failuresBefore = pw.failures;
    for (let t = t0; t - t0 <= LIVENESS.minCountedUs; t += tick) {
      await this.#clock.sleepUntil(t);
      this.#samplePower();
    }
    const got = pw.samples.slice(before);
    const failed = pw.failures - failuresBefore;
    const base = { rung: "ina3221" as const, domain: pw.set.domain, counters: [...pw.set.names] };
    if (failed > 0 || got.length < 2) {
      return {
        ...base,
        status: "declined",
        reason: "read-failed",
        detail: `${failed} of ${failed + got.length} reads failed`,
      };
    }
    return { ...base, status: "available" };
  }

  /** Probes every hardware rung, best first, and selects the best admissible (JCP §5.1). */
  async probeAll(): Promise<ProbeReport> {
    const rungs: RungStatus[] = [];
    for (const r of HARDWARE) {
      if (!this.#allowed(r)) continue;
      const found = this.#sources[r];
      if (!found) continue;
      if (!found.ok) {
        rungs.push({
          rung: r,
          status: "declined",
          reason: found.decline.reason,
          detail: found.decline.detail,
        });
        continue;
      }
      if (r === "ina3221") {
        rungs.push(await this.#probePower());
        continue;
      }
      const tracker = this.#trackers.get(r)!;
      const ev = await probe(tracker, this.#clock, this.#opts.probe);
      this.#evidence.set(r, ev);
      const set = tracker.set;
      const liveness = ev.intervals.map((iv) => judgeLiveness(iv));
      const st: RungStatus = {
        rung: r,
        status: "live",
        domain: set.domain,
        counters: [...set.names],
        liveness,
      };
      // JCP §5: every counter of the domain MUST be live; one frozen socket declines the rung.
      const dead = liveness.findIndex((j) => !j.live);
      if (dead >= 0) {
        const j = liveness[dead];
        rungs.push({
          ...st,
          status: "declined",
          reason: "counter-not-live",
          detail:
            `${
              set.names[dead]
            }: ${j.reason} (${j.advancing} advancing of ${j.counted} counted intervals, ` +
            `${
              Math.round(j.counted_us / 1000)
            } ms counted, worst 5-window ${j.worst_window}, ${ev.failures} failed reads)`,
        });
        continue;
      }
      if (set.limitsMw || set.drawsMw) {
        const pj = judgeCounters(set, ev.delta, Math.max(ev.spanUs, 1), ev.draws, ev.drawReadable);
        st.plausibility = pj;
        const d = plausibilityDecline(r, set.names, pj);
        if (d) {
          rungs.push({ ...st, status: "declined", reason: d.reason, detail: d.detail });
          continue;
        }
      }
      rungs.push(st);
    }
    const sel = rungs.find((s) => s.status !== "declined");
    const domain: Domain = sel?.domain ?? "host";
    const selected: Rung = sel?.rung ?? (this.calibration[domain] ? "model" : "estimator");
    this.#probedAtUs = this.#clock.monoUs();
    this.#report = { at: this.#wallAt(this.#probedAtUs), selected, domain, rungs };
    return this.#report;
  }

  /** Opens the first span (samples every source as its baseline). */
  begin(): void {
    for (const t of this.#trackers.values()) t.cut();
    this.#power && (this.#power.samples = [], this.#samplePower());
    this.#startUs = this.#clock.monoUs();
  }

  /** Meters the next span of `durationMs` (contiguous with the previous one) and grades it. */
  async span(durationMs: number): Promise<GradedSpan> {
    if (this.#startUs === undefined) this.begin();
    const startUs = this.#startUs!;
    // JCP §5 "only while its counter is live": the evidence is never older than the verifier admits
    const reprobe = Math.min(this.#opts.reprobeMs ?? 60_000, READING_TIME.evidenceMaxAgeMs / 2) *
      1000;
    if (!this.#report || this.#clock.monoUs() - this.#probedAtUs >= reprobe) await this.probeAll();
    const report = this.#report!;
    const sel = report.selected;
    const tick = (this.#opts.sampleMs ?? (sel === "ina3221" ? 100 : 1000)) * 1000;
    const endTarget = startUs + durationMs * 1000;
    while (this.#clock.monoUs() + tick < endTarget) {
      await this.#clock.sleepUntil(this.#clock.monoUs() + tick);
      if (sel === "ina3221") this.#samplePower();
      else if (sel === "rapl" || sel === "nvml") this.#trackers.get(sel)!.sample();
    }
    await this.#clock.sleepUntil(endTarget);
    // Close the span on every source, so the next span's baseline is this instant.
    const cuts = new Map([...this.#trackers].map(([r, t]) => [r, t.cut()]));
    let powerSamples: { us: number; mw: number }[] = [];
    let powerFailures = 0;
    if (this.#power) {
      this.#samplePower();
      powerSamples = this.#power.samples;
      powerFailures = this.#power.failures;
      this.#power.samples = powerSamples.slice(-1);
      this.#power.failures = 0;
    }
    const endUs = this.#clock.monoUs();
    this.#startUs = endUs;
    // Contiguous with the previous span (reading-overlap), never past this host's wall clock
    // (reading-future: a clock stepped back leaves the monotonic anchor ahead of it).
    const start = Math.max(this.#wallAt(startUs), this.#lastEnd ?? -Infinity);
    const end = Math.max(Math.min(this.#wallAt(endUs), this.#clock.wallMs()), start + 1);
    this.#lastEnd = end;
    const spanUs = (end - start) * 1000;
    const declined: Decline[] = report.rungs
      .filter((s) => s.status === "declined")
      .map((s) => ({ rung: s.rung, reason: s.reason!, ...(s.detail ? { detail: s.detail } : {}) }));
    const domain = report.domain;

    if (sel === "rapl" || sel === "nvml") {
      const { sample, account } = cuts.get(sel)!;
      const set = this.#trackers.get(sel)!.set;
      let why: Decline | undefined;
      if (!account.baseline || !sample.ok || account.failures > 0) {
        why = {
          rung: sel,
          reason: "read-failed",
          detail: account.lastError ?? "a read failed inside the span",
        };
      } else if (meterReading.counterSetStatus(sel, set.names) !== "ok") {
        // JCP §5: every counter of the domain, once (the verifier's reading-counters-incomplete).
        why = {
          rung: sel,
          reason: "counters-incomplete",
          detail: `${set.names.join(", ")} is not every ${sel} counter of the domain, once`,
        };
      } else if (
        report.at > end || report.at + READING_TIME.evidenceMaxAgeMs < start
      ) {
        // JCP §5 "only while its counter is live": evidence within the span or shortly before.
        why = {
          rung: sel,
          reason: "stale-evidence",
          detail: `the liveness probe at ${report.at} is not within [${start}, ${end}] or ` +
            `${READING_TIME.evidenceMaxAgeMs} ms before it`,
        };
      } else if (end - start < MIN_WINDOW_MS[sel]) {
        // SPEC §1.3 min_window_ns: a span shorter than the counter's window is not HwShunt.
        why = {
          rung: sel,
          reason: "span-too-short",
          detail: `a ${end - start} ms span is under the counter's ${MIN_WINDOW_MS[sel]} ms window`,
        };
      } else {
        const still = account.delta.findIndex((d) => d <= 0);
        // JCP §5.1: "A span over which [the counter] did not advance is metered by a lower rung."
        if (still >= 0) {
          why = {
            rung: sel,
            reason: "span-not-advanced",
            detail: `${set.names[still]} did not advance over the span`,
          };
        }
      }
      // Every counter's span evidence, bounded or not (docs/METER-READING.md: the verifier checks
      // each advanced, and sees its rate against the limit where one is readable).
      let pj: PlausibilityJudgement[] | undefined;
      if (!why) {
        pj = judgeCounters(set, account.delta, spanUs, account.draws, account.drawReadable);
        why = plausibilityDecline(sel, set.names, pj);
      }
      if (!why) {
        const energy = account.delta.reduce((a, d) => a + d * set.unitUj, 0);
        const ev = this.#evidence.get(sel)!;
        const g: GradedSpan = {
          counter: sel,
          domain,
          start,
          end,
          energy_uj: energy,
          energy_provenance: "HwShunt",
          resolution_uj: set.resolutionUj,
          liveness: {
            tick_us: LIVENESS.tickUs,
            probed_at: report.at,
            counters: set.names.map((name, i) => ({
              name,
              interval_us: ev.intervals[i].map((x) => x.us),
              delta: ev.intervals[i].map((x) => x.delta),
            })),
          },
          declined: declined.filter((d) => RUNG_ORDER.indexOf(d.rung) < RUNG_ORDER.indexOf(sel)),
        };
        if (set.partial) g.energy_coverage = "Partial";
        if (pj) {
          g.plausibility = {
            status: pj.find((j) =>
                j.status === "no-bound"
              ) && !pj.find((j) => j.status === "not-refuted")
              ? "no-bound"
              : "not-refuted",
            counters: pj.map((j, i) => ({
              name: set.names[i],
              energy_uj: account.delta[i] * set.unitUj,
              ...j,
            })),
          };
        }
        return g;
      }
      declined.push(why);
    } else if (sel === "ina3221") {
      const set = this.#power!.set;
      if (end - start < MIN_WINDOW_MS.ina3221) {
        declined.push({
          rung: "ina3221",
          reason: "span-too-short",
          detail: `a ${
            end - start
          } ms span is under the monitor's ${MIN_WINDOW_MS.ina3221} ms window`,
        });
      } else if (powerFailures === 0 && powerSamples.length >= 2) {
        let uj = 0;
        for (let i = 1; i < powerSamples.length; i++) {
          const a = powerSamples[i - 1];
          const b = powerSamples[i];
          uj += ((a.mw + b.mw) / 2) * ((b.us - a.us) / 1000); // trapezoid: mW × ms = µJ
        }
        const energy = Math.round(uj / set.resolutionUj) * set.resolutionUj;
        return {
          counter: "ina3221",
          domain,
          start,
          end,
          energy_uj: energy,
          energy_provenance: "HwShunt",
          resolution_uj: set.resolutionUj,
          declined: declined.filter((d) =>
            RUNG_ORDER.indexOf(d.rung) < RUNG_ORDER.indexOf("ina3221")
          ),
        };
      } else {
        declined.push({
          rung: "ina3221",
          reason: "read-failed",
          detail: `${powerFailures} reads failed inside the span`,
        });
      }
    }
    return this.#fallback(domain, start, end, declined, sel);
  }

  /** Time × calibrated power (ModelBased), else time × default power (Estimator). */
  #fallback(
    domain: Domain,
    start: number,
    end: number,
    declined: Decline[],
    sel: Rung,
  ): GradedSpan {
    const cal = this.calibration[domain];
    let powerMw = this.#opts.defaultPowerMw ?? 100_000;
    let rung: Rung = "estimator";
    if (cal) {
      powerMw = cal.power_mw;
      rung = "model";
    } else {
      if (sel === "model") declined.push({ rung: "model", reason: "no-calibration" });
      if (domain === "gpu") {
        // A board's enforced limit is a nameplate figure, not a host calibration: Estimator.
        const lim = this.#trackers.get("nvml")?.set.limitsMw?.().reduce<number>(
          (a, b) => a + (b ?? 0),
          0,
        );
        if (lim) powerMw = lim;
      }
    }
    if (rung === "estimator" && !declined.some((d) => d.rung === "model")) {
      declined.push({
        rung: "model",
        reason: "no-calibration",
        detail: `no host-calibrated power for ${domain}`,
      });
    }
    const energy = Math.round((powerMw * (end - start)) / 1000) * 1000; // mW × ms = µJ, 1 mJ quantum
    const g: GradedSpan = {
      counter: rung,
      domain,
      start,
      end,
      energy_uj: energy,
      energy_provenance: rung === "model" ? "ModelBased" : "Estimator",
      resolution_uj: 1000,
      declined: dedupe(declined),
    };
    // JCP §5.1 rung 5: the figure names the HwShunt reading that measured its power.
    if (cal) g.calibration = cal.reading;
    if (domain === "gpu") g.energy_coverage = "Partial";
    return g;
  }
}

function dedupe(ds: Decline[]): Decline[] {
  const seen = new Set<string>();
  const out: Decline[] = [];
  for (const d of ds) {
    // The last word on a rung wins (a span-level decline after the probe's).
    const later = ds.findLast((x) => x.rung === d.rung)!;
    if (seen.has(d.rung)) continue;
    seen.add(d.rung);
    out.push(later);
  }
  return out.sort((a, b) => RUNG_ORDER.indexOf(a.rung) - RUNG_ORDER.indexOf(b.rung));
}
