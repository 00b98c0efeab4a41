// JCP §5 Liveness probe: samples a rung's counters at the 25 ms tick (burning CPU on the probing
// thread for RAPL, idle for NVML: "the probe cannot load the GPU") until at least 300 ms of
// countable intervals are in hand, and records every interval from one sample in hand to the next.
// A `Tracker` keeps each counter's last value so that probe samples and span samples accumulate
// one continuous, wrap-corrected advance.

import { meterReading } from "../../verify/mod.ts";
import type { Clock } from "./clock.ts";
import type { CounterSet } from "./sources/types.ts";

const { LIVENESS, wrapDelta } = meterReading;
type Interval = meterReading.Interval;

/** What one sample gave: the interval since the previous sample in hand, and each counter's advance. */
export type Sample =
  | { ok: true; us: number; dtUs?: number; deltas?: number[]; draws?: (number | undefined)[] }
  | { ok: false; error: string };

/** Per-span accumulators of one counter set. */
export interface SpanAccount {
  /** The sample at the span's start was in hand. */
  baseline: boolean;
  failures: number;
  samples: number;
  /** Advance of each counter over the span, counter units. */
  delta: number[];
  /** Draw samples per counter (mW), where readable. */
  draws: number[][];
  drawReadable: boolean[];
  lastError?: string;
}

/** Follows one counter set's cumulative values across probes and spans. */
export class Tracker {
  readonly set: CounterSet;
  readonly #clock: Clock;
  #last?: { values: number[]; us: number };
  account!: SpanAccount;
  constructor(set: CounterSet, clock: Clock) {
    this.set = set;
    this.#clock = clock;
    this.#reset(false);
  }
  #reset(baseline: boolean): void {
    const n = this.set.names.length;
    this.account = {
      baseline,
      failures: 0,
      samples: 0,
      delta: new Array(n).fill(0),
      draws: Array.from({ length: n }, () => []),
      drawReadable: new Array(n).fill(true),
    };
  }
  /** Reads every counter once (then the draws, outside the interval's timing). */
  sample(): Sample {
    let values: number[];
    let deltas: number[] | undefined;
    try {
      values = this.set.read();
      if (this.#last) {
        deltas = values.map((v, i) => wrapDelta(this.#last!.values[i], v, this.set.maxRange[i]));
      }
    } catch (e) {
      this.account.failures++;
      this.account.lastError = (e as Error).message;
      return { ok: false, error: (e as Error).message };
    }
    const us = this.#clock.monoUs();
    const dtUs = this.#last ? us - this.#last.us : undefined;
    this.#last = { values, us };
    this.account.samples++;
    if (deltas) deltas.forEach((d, i) => (this.account.delta[i] += d));
    const draws = this.set.drawsMw?.();
    draws?.forEach((d, i) => {
      if (d === undefined) this.account.drawReadable[i] = false;
      else this.account.draws[i].push(d);
    });
    if (!this.set.drawsMw) this.account.drawReadable.fill(false);
    return { ok: true, us, dtUs, deltas, draws };
  }
  /** Samples, then closes the span: returns its account and opens the next at this sample. */
  cut(): { sample: Sample; account: SpanAccount } {
    const sample = this.sample();
    const account = this.account;
    this.#reset(sample.ok);
    if (!sample.ok) this.#last = undefined; // no baseline: the next span cannot claim the gap
    return { sample, account };
  }
}

/** A probe's raw evidence: every interval of every counter, and the draws seen meanwhile. */
export interface ProbeEvidence {
  intervals: Interval[][];
  draws: number[][];
  drawReadable: boolean[];
  /** Summed advance per counter (counter units) and the probe's length, for the rate. */
  delta: number[];
  spanUs: number;
  failures: number;
}

/** Probe options (tests shorten `maxUs`; the tick is the spec's). */
export interface ProbeOptions {
  tickUs?: number;
  minCountedUs?: number;
  /** Give up after this long (default 1.5 s). */
  maxUs?: number;
}

/** Runs the JCP §5 liveness probe on one tracker. */
export async function probe(
  tracker: Tracker,
  clock: Clock,
  opts: ProbeOptions = {},
): Promise<ProbeEvidence> {
  const tick = opts.tickUs ?? LIVENESS.tickUs;
  const minCounted = opts.minCountedUs ?? LIVENESS.minCountedUs;
  const maxUs = opts.maxUs ?? 1_500_000;
  const n = tracker.set.names.length;
  const ev: ProbeEvidence = {
    intervals: Array.from({ length: n }, () => []),
    draws: Array.from({ length: n }, () => []),
    drawReadable: new Array(n).fill(true),
    delta: new Array(n).fill(0),
    spanUs: 0,
    failures: 0,
  };
  const t0 = clock.monoUs();
  let first: number | undefined;
  let last = 0;
  let next = t0;
  const countLimit = tick * LIVENESS.maxTicksPerInterval;
  let counted = 0;
  let countedUs = 0;
  while (true) {
    if (tracker.set.burn) clock.burnUntil(next);
    else await clock.sleepUntil(next);
    const s = tracker.sample();
    const now = clock.monoUs();
    next += tick;
    while (next <= now) next += tick;
    if (!s.ok) {
      ev.failures++;
    } else {
      first ??= s.us;
      last = s.us;
      const draws = s.draws ?? [];
      if (s.dtUs !== undefined && s.deltas) {
        s.deltas.forEach((d, i) => {
          ev.intervals[i].push({ us: s.dtUs!, delta: d });
          ev.delta[i] += d;
        });
        if (s.dtUs <= countLimit) {
          counted++;
          countedUs += s.dtUs;
        }
      }
      draws.forEach((
        d,
        i,
      ) => (d === undefined ? (ev.drawReadable[i] = false) : ev.draws[i].push(d)));
      if (!tracker.set.drawsMw) ev.drawReadable.fill(false);
    }
    if ((counted >= LIVENESS.window && countedUs >= minCounted) || now - t0 >= maxUs) break;
  }
  ev.spanUs = first === undefined ? 0 : last - first;
  return ev;
}
