// intercept/1 and efficiency/1 (JCP §5.2, §5.3): the positives, and each rule with a corrupted
// variant (one thing broken, correctly signed). The outcomes' names sort after the steps' they
// name ("intercept-…" < "outcome-…"), so a log fed the vectors in name order (tests/e2e/vectors,
// tests/edge/parity) holds each activity before its outcome. The outcomes name the positive step receipts by
// their envelopes' content ids (JCP §3: BLAKE3 of the bytes), so conformance/gen/traces.ts can
// replay them as a log.
import { blake3, toHex } from "../../verify/mod.ts";
import { seal } from "./build.ts";
import { b3, JCP_STEWARD } from "./config.ts";
import { type Core, neg } from "./negative.ts";
import { valid, type Vector, vector } from "./vector.ts";

const CLOSED = "2026-05-31T18:04:22Z";

/** An intercept/1 core (JCP §5.2), the members in `more` added or replaced. */
export function interceptCore(step: string, uj: number, more: Core = {}): Core {
  return {
    jcp_receipt: "intercept/1",
    step,
    payload_hash: b3(`intercepted: ${step}`),
    joules_uj: uj,
    provenance: "HwShunt",
    closed_at: CLOSED,
    steward: JCP_STEWARD.kid,
    ...more,
  };
}

/** JCP §3: an envelope's content id. */
export const cid = (env: Uint8Array) => toHex(blake3(env));

/** The positive step receipts: name → envelope. */
export function steps(): Record<string, Uint8Array> {
  return {
    "intercept-1-whole": seal(interceptCore("authorise", 1_500), JCP_STEWARD),
    "intercept-2-partial": seal(
      interceptCore("egress", 2_500, { coverage: "Partial" }),
      JCP_STEWARD,
    ),
    "intercept-3-estimator": seal(
      interceptCore("attest", 700, { provenance: "Estimator" }),
      JCP_STEWARD,
    ),
  };
}

/** An efficiency/1 core over `activities` (envelopes) with figures `uj`; total = Σ + residual. */
export function efficiencyCore(
  activities: Uint8Array[],
  uj: number[],
  residual: number,
  more: Core = {},
): Core {
  const sum = uj.reduce((a, b) => a + b, 0);
  const total = sum + residual;
  const c: Core = {
    jcp_receipt: "efficiency/1",
    outcome: "ticket INV-2026-0042 resolved",
    outcome_total_uj: total,
    energy_provenance: "HwShunt",
    activities: activities.map(cid),
    activities_uj: sum,
    residual_uj: residual,
    accepted_tokens: 400,
    uj_per_accepted_token: Math.floor(total / 400),
    closed_at: CLOSED,
    steward: JCP_STEWARD.kid,
    ...more,
  };
  for (const key of Object.keys(c)) if (c[key] === undefined) delete c[key];
  return c;
}

/** The positive outcome cores: name → core. */
export function outcomeCores(): Record<string, Core> {
  const s = steps();
  const partial = { energy_coverage: "Partial", uj_per_accepted_token: undefined };
  return {
    "outcome-1-whole": efficiencyCore([s["intercept-1-whole"]], [1_500], 400),
    "outcome-2-partial-negative-residual": efficiencyCore(
      [s["intercept-2-partial"]],
      [2_500],
      -300,
      partial,
    ),
    "outcome-3-estimator": efficiencyCore([s["intercept-3-estimator"]], [700], 0, {
      energy_provenance: "Estimator",
    }),
  };
}

const DESC: Record<string, string> = {
  "intercept-1-whole": "JCP §5.2: a step receipt covering the whole step: coverage omitted",
  "intercept-2-partial": 'JCP §5.2: a step receipt whose figure is Partial: coverage "Partial"',
  "intercept-3-estimator": "JCP §5: a step figure nothing calibrated (Estimator)",
  "outcome-1-whole":
    "JCP §5.3: an outcome naming one activity by content id; residual_uj = total − Σ activities > 0; uj_per_accepted_token = ⌊total / accepted_tokens⌋",
  "outcome-2-partial-negative-residual":
    "JCP §5.2, §5.3: a Partial outcome (no per-token figure) whose residual is negative, carried signed and unclamped",
  "outcome-3-estimator":
    "JCP §5.3: an outcome over an Estimator activity, its composite provenance the floor (Estimator)",
};

/** The positive and negative vectors of both profiles. */
export function outcomeVectors(): Vector[] {
  const out: Vector[] = [];
  const k = JCP_STEWARD.kid;
  for (const [name, env] of Object.entries(steps())) {
    out.push(vector(
      { name, description: DESC[name], schema: "intercept/1", signer: k, expected: valid() },
      env,
    ));
  }
  const oc = outcomeCores();
  for (const [name, core] of Object.entries(oc)) {
    out.push(vector(
      { name, description: DESC[name], schema: "efficiency/1", signer: k, expected: valid() },
      seal(core, JCP_STEWARD),
    ));
  }
  // an `undefined` member is dropped (the corrupted variant omits it)
  const drop = (c: Core) =>
    Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined));
  const i = (name: string, covers: string, d: string, core: Core, codes?: string[]) =>
    neg(name, covers, d, "intercept/1", k, seal(drop(core), JCP_STEWARD), codes);
  const e = (name: string, covers: string, d: string, core: Core, codes?: string[]) =>
    neg(name, covers, d, "efficiency/1", k, seal(drop(core), JCP_STEWARD), codes);
  const step = interceptCore("authorise", 1_500);
  const whole = oc["outcome-1-whole"];
  const part = oc["outcome-2-partial-negative-residual"];
  const act = whole.activities as string[];
  out.push(
    i("intercept-coverage-whole", "bad-coverage", 'JCP §5.2: coverage "Whole" is refused', {
      ...step,
      coverage: "Whole",
    }),
    i("intercept-coverage-lowercase", "bad-coverage", 'JCP §5.2: coverage "partial"', {
      ...step,
      coverage: "partial",
    }),
    i(
      "intercept-unknown-member",
      "field-not-allowed",
      "JCP §8: a member the intercept/1 core does not define (energy_coverage)",
      { ...step, energy_coverage: "Partial" },
    ),
    i("intercept-no-provenance", "missing-field", "JCP §5: a figure without its provenance", {
      ...step,
      provenance: undefined,
    }),
    e(
      "efficiency-coverage-whole",
      "bad-coverage",
      'JCP §5.2: energy_coverage "Whole" is refused under the one-value rule',
      { ...whole, energy_coverage: "Whole" },
    ),
    e(
      "efficiency-partial-per-unit",
      "partial-per-unit",
      "JCP §5.2: a Partial receipt carrying uj_per_accepted_token",
      { ...part, accepted_tokens: 400, uj_per_accepted_token: 5 },
    ),
    e("efficiency-no-activities", "activities-missing", "JCP §5.3: an outcome naming no activity", {
      ...whole,
      activities: [],
      activities_uj: 0,
      residual_uj: whole.outcome_total_uj,
    }),
    e(
      "efficiency-activity-twice",
      "activity-bound-twice",
      "JCP §5.3: one activity named twice (its figure counted twice)",
      {
        ...whole,
        activities: [act[0], act[0]],
        activities_uj: 3_000,
        residual_uj: (whole.outcome_total_uj as number) - 3_000,
      },
    ),
    e(
      "efficiency-residual-clamped",
      "residual-mismatch",
      "JCP §5.3: a negative residual clamped to 0",
      { ...part, residual_uj: 0 },
    ),
    e(
      "efficiency-residual-unsigned",
      "residual-mismatch",
      "JCP §5.3: a negative residual written as its magnitude",
      { ...part, residual_uj: 300 },
    ),
    e(
      "efficiency-residual-text",
      "bad-field-type",
      "JCP §5.3: residual_uj as text",
      { ...whole, residual_uj: "400" },
    ),
    e(
      "efficiency-per-token-mismatch",
      "per-token-mismatch",
      "JCP §5.2: uj_per_accepted_token is not ⌊total / accepted_tokens⌋",
      { ...whole, uj_per_accepted_token: (whole.uj_per_accepted_token as number) + 1 },
    ),
    e(
      "efficiency-per-token-no-tokens",
      "per-token-mismatch",
      "JCP §5.2: uj_per_accepted_token without accepted_tokens",
      { ...whole, accepted_tokens: undefined },
    ),
    e(
      "efficiency-activity-not-hex",
      "bad-field-value",
      "JCP §5.3: an activity named by a label, not a content id",
      { ...whole, activities: ["authorise"] },
    ),
  );
  return out;
}
