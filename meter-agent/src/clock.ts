// The agent's time, injected (JCP §5: a probe interval "runs from when one sample is in hand to when
// the next is"). `realClock` uses the platform's monotonic clock and, for the RAPL probe, burns CPU
// on the probing thread between samples; `ScriptedClock` lets tests drive every interval exactly.

/** Wall time (ms since the Unix epoch), monotonic time (µs), waiting and burning. */
export interface Clock {
  /** Milliseconds since the Unix epoch (readings' start and end). */
  wallMs(): number;
  /** Monotonic microseconds (probe intervals). */
  monoUs(): number;
  /** Waits, idle, until `monoUs() >= targetUs`. */
  sleepUntil(targetUs: number): Promise<void>;
  /** Keeps the calling thread busy on the CPU until `monoUs() >= targetUs` (JCP §5: "while the probing thread burns CPU"). */
  burnUntil(targetUs: number): void;
}

let sink = 0;

/** The platform clock (Node >= 20 and Deno: `performance.now`, `Date.now`, `setTimeout`). */
export const realClock: Clock = {
  wallMs: () => Date.now(),
  monoUs: () => Math.round(performance.now() * 1000),
  sleepUntil(targetUs: number): Promise<void> {
    const ms = (targetUs - Math.round(performance.now() * 1000)) / 1000;
    return ms <= 0 ? Promise.resolve() : new Promise((r) => setTimeout(r, Math.ceil(ms)));
  },
  burnUntil(targetUs: number): void {
    while (performance.now() * 1000 < targetUs) {
      for (let i = 0; i < 2000; i++) sink = (sink * 31 + i) | 0;
    }
  },
};

/**
 * A clock that moves only when told: `sleepUntil` / `burnUntil` jump to the target (plus any delay
 * queued with `stall`), and sources may call `advance` to model slow reads.
 */
export class ScriptedClock implements Clock {
  #us: number;
  #wall0: number;
  #stalls: number[] = [];
  /** Total µs spent burning (what a real probe would have burnt). */
  burntUs = 0;
  constructor(wallMs0 = 1_700_000_000_000, mono0Us = 0) {
    this.#wall0 = wallMs0 * 1000 - mono0Us;
    this.#us = mono0Us;
  }
  wallMs(): number {
    return Math.floor((this.#wall0 + this.#us) / 1000);
  }
  monoUs(): number {
    return this.#us;
  }
  /** Moves time forward by `us`. */
  advance(us: number): void {
    this.#us += us;
  }
  /** The next wait overshoots its target by `us` (a descheduled probe thread). */
  stall(us: number): void {
    this.#stalls.push(us);
  }
  #to(targetUs: number): void {
    const extra = this.#stalls.shift() ?? 0;
    if (targetUs > this.#us) this.#us = targetUs;
    this.#us += extra;
  }
  sleepUntil(targetUs: number): Promise<void> {
    this.#to(targetUs);
    return Promise.resolve();
  }
  burnUntil(targetUs: number): void {
    const from = this.#us;
    this.#to(targetUs);
    this.burntUs += this.#us - from;
  }
}
