// JCP §5 (Liveness, Plausibility), §5.1 (the metering ladder), §5.2 (Coverage); JouleClaw SPEC
// §1.3 (honest energy provenance, worst counter, resolution) and §7 (prefixed schemas): the
// `meter-reading/1` profile, defined field by field in docs/METER-READING.md. The rules and their
// thresholds are meter_rules.ts, the honesty step meter_reading_honesty.ts, the service's chain
// checks meter_reading_chain.ts; this module is the profile and the namespace they are read from.

import type { CborMap } from "../cbor.ts";
import { checkFields, F, type Finding, opt, req } from "./fields.ts";
import { meterReadingHonesty } from "./meter_reading_honesty.ts";
import { METER_READING_SCHEMA, PROVENANCES, RUNGS } from "./meter_rules.ts";
import { NOT_APPLICABLE, type Profile } from "./types.ts";

export * from "./meter_rules.ts";
export * from "./meter_reading_chain.ts";
export { meterReadingHonesty };

/** Why a span does not start where the agent's previous one ended (docs/METER-READING.md). */
export const GAP_REASONS = ["restart", "refused"] as const;

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
  // JCP §5.1 rung 5: the content id of the HwShunt reading whose power a model figure uses.
  calibration: opt(F.hex64),
  // a span that does not start where the agent's previous one ended says why (reading-overlap).
  gap: opt(F.oneOf(...GAP_REASONS)),
};

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
