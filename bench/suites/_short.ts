// Short mode (`JC_BENCH_SHORT=1`): every suite runs its code paths end to end with its durations
// and sizes divided by 20, so that a test (tests/bench/short_test.ts) can run every suite in a
// few seconds each and catch a crash in CI. The figures of a short run are not comparable.

/** Whether this run is the short mode. */
export const SHORT = Deno.env.get("JC_BENCH_SHORT") === "1";

/** A duration in milliseconds: `ms`, or a twentieth of it (at least 20 ms) in short mode. */
export function ms(full: number): number {
  return SHORT ? Math.max(20, Math.round(full / 20)) : full;
}

/** A count: `full`, or a twentieth of it (at least `min`) in short mode. */
export function count(full: number, min = 1): number {
  return SHORT ? Math.max(min, Math.round(full / 20)) : full;
}
