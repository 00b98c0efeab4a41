// Outcome traces (JCP §5.3) as a log resolves them at append: each vector is a sequence of
// envelopes appended in order and, per envelope, "logged" or the code it is refused with. The
// activities are named by their envelopes' content ids (JCP §3) and resolved among the entries
// logged before; each rule has a corrupted variant. Checked by conformance/traces_test.ts against
// the real log (SQLite store) and by the Python verifier (jcverify/outcomes.py trace_log).
import { toHex } from "../../verify/mod.ts";
import { seal } from "./build.ts";
import { JCP_STEWARD } from "./config.ts";
import { efficiencyCore, steps } from "./outcomes.ts";
import { jcpCores } from "./siblings.ts";

/** One trace vector. */
export interface TraceVector {
  name: string;
  description: string;
  /** The envelopes, appended one after another, hex. */
  entries: string[];
  /** Per entry: "logged", or the refusal code (a refused entry is not logged). */
  expected: string[];
}

/** The published trace file. */
export function traceFile(): Record<string, unknown> {
  return {
    kind: "outcome-trace-vectors/1",
    title:
      "Outcome traces (JCP §5.3): an efficiency/1 outcome's activities resolved by content id from the log at append, re-added, floored, and bound once",
    generator: "conformance/gen.ts (deno task conformance:gen)",
    vectors: traceVectors(),
  };
}

function traceVectors(): TraceVector[] {
  const s = steps();
  const one = s["intercept-1-whole"], part = s["intercept-2-partial"];
  const est = s["intercept-3-estimator"];
  const o = (acts: Uint8Array[], uj: number[], residual: number, more = {}) =>
    seal(efficiencyCore(acts, uj, residual, more), JCP_STEWARD);
  const partial = { energy_coverage: "Partial", uj_per_accepted_token: undefined };
  const jcp = seal(jcpCores()["jcp2-1-allow"], JCP_STEWARD);
  const out1 = o([one], [1_500], 400);
  const t = (name: string, description: string, pairs: [Uint8Array, string][]): TraceVector => ({
    name,
    description,
    entries: pairs.map(([e]) => toHex(e)),
    expected: pairs.map(([, x]) => x),
  });
  return [
    t("trace-1-resolved", "an outcome after the activity it names: both logged", [
      [one, "logged"],
      [out1, "logged"],
    ]),
    t(
      "trace-2-negative-residual",
      "a Partial outcome over a Partial activity, residual negative: logged (a finding the receipt carries, never clamped)",
      [[part, "logged"], [o([part], [2_500], -300, partial), "logged"]],
    ),
    t("trace-3-jcp-activity", "a jcp/2 decision as the activity (its cost_uj re-added)", [
      [jcp, "logged"],
      [o([jcp], [1_200], 50), "logged"],
    ]),
    t("trace-4-two-activities", "two activities re-added; the floor of HwShunt and Estimator", [
      [one, "logged"],
      [est, "logged"],
      [o([one, est], [1_500, 700], 100, { energy_provenance: "Estimator" }), "logged"],
    ]),
    t("trace-unresolved", "the outcome names an activity the log does not hold", [
      [out1, "activity-unresolved"],
    ]),
    t("trace-unresolved-order", "the outcome before its activity: refused, then the activity", [
      [out1, "activity-unresolved"],
      [one, "logged"],
    ]),
    t("trace-not-activity", "the named entry is an outcome, which carries no activity's figure", [
      [one, "logged"],
      [out1, "logged"],
      [o([out1], [1_900], 0), "activity-not-activity"],
    ]),
    t("trace-sum-mismatch", "activities_uj is not what the named activities re-add to", [
      [one, "logged"],
      [o([one], [1_400], 500), "activities-sum-mismatch"],
    ]),
    t("trace-provenance-above-floor", "a HwShunt outcome over an Estimator activity", [
      [est, "logged"],
      [o([est], [700], 0), "provenance-above-floor"],
    ]),
    t("trace-coverage-above-floor", "an outcome not saying Partial over a Partial activity", [
      [part, "logged"],
      [o([part], [2_500], 10), "coverage-above-floor"],
    ]),
    t("trace-bound-twice", "a second outcome naming an activity already bound", [
      [one, "logged"],
      [out1, "logged"],
      [o([one], [1_500], 900), "activity-bound-twice"],
    ]),
    t(
      "trace-bound-twice-after-refusal",
      "a refused outcome binds nothing: a later one naming the same activity is logged",
      [
        [one, "logged"],
        [o([one], [1_400], 500), "activities-sum-mismatch"],
        [out1, "logged"],
      ],
    ),
  ];
}
