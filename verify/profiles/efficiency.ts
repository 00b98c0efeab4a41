// JCP §5.2, §5.3 — `efficiency/1`, the outcome receipt: "whether any of it bought anything". Its
// energy names its activities by content id, the figure they re-add to, and the signed residual
// between them (§5.3); its coverage is carried only when Partial, and a Partial one gives no
// per-token figure (§5.2). The members the spec does not name are this project's reading
// (docs/DECISIONS.md "intercept/1 and efficiency/1"). What needs the log — resolving the named
// activities and the binding of each to one outcome — is `traceOutcome` below, which the log
// runs at append (log/outcomes.ts) over the entries it resolved.
import type { CborMap } from "../cbor.ts";
import { F, type FieldTable, type Finding, list, opt, req, text, uint } from "./fields.ts";
import { closedCore, coverageFinding } from "./intercept.ts";
import { PROVENANCES } from "./jcr1.ts";
import { failWith, NOT_APPLICABLE, PASS, type Profile, type StepOutcome } from "./types.ts";

/** The `efficiency/1` signed core. */
export const EFFICIENCY_FIELDS: FieldTable = {
  jcp_receipt: req(F.text),
  // the outcome's own name for what it delivered (a label: never what binds it, JCP §5.3)
  outcome: req(F.text),
  // JCP §5.3 `outcome_total_uj`: the outcome's energy, integer microjoules
  outcome_total_uj: req(F.uint),
  // JCP §5.3: the composite provenance, the floor across the outcome and every activity
  energy_provenance: req(F.oneOf(...PROVENANCES)),
  // JCP §5.2: carried only when Partial (honesty: bad-coverage)
  energy_coverage: opt(F.text),
  // JCP §5.3: the activities, by content id (JCP §3: BLAKE3 of the envelope)
  activities: req(F.arrayOf(F.hex64)),
  // JCP §5.3: Σ activity.joules_uj as the outcome re-added them
  activities_uj: req(F.uint),
  // JCP §5.3: outcome_total_uj − activities_uj, signed, never clamped
  residual_uj: req(F.int),
  accepted_tokens: opt(F.uint),
  // JCP §5.2: energy per accepted token; never on a Partial receipt
  uj_per_accepted_token: opt(F.uint),
  closed_at: req(F.rfc3339),
  steward: req(F.text),
};

function big(v: unknown): bigint {
  return typeof v === "bigint" ? v : BigInt(v as number);
}

/** The internal rules of an outcome receipt (no log needed), first failing one. */
export function efficiencyFinding(core: CborMap): Finding | undefined {
  const cov = coverageFinding(core, "energy_coverage");
  if (cov) return cov;
  // JCP §5.2: "a Partial receipt MUST NOT carry uj_per_accepted_token, and a verifier MUST
  // refuse one that does."
  if (core.get("energy_coverage") === "Partial" && core.has("uj_per_accepted_token")) {
    return {
      code: "partial-per-unit",
      detail: "a Partial efficiency/1 receipt carries uj_per_accepted_token (JCP §5.2)",
    };
  }
  // JCP §5.3: "An outcome's energy MUST name its activities by content-id."
  const acts = list(core, "activities") as string[];
  if (acts.length === 0) {
    return {
      code: "activities-missing",
      detail: "the outcome names no activity; its energy is not traceable (JCP §5.3)",
    };
  }
  // JCP §5.3: "An activity bound twice MUST be refused before the sum."
  const seen = new Set<string>();
  for (const [i, a] of acts.entries()) {
    if (seen.has(a)) {
      return {
        code: "activity-bound-twice",
        detail: `activities[${i}] ${a} is named twice (JCP §5.3)`,
      };
    }
    seen.add(a);
  }
  // JCP §5.3: residual_uj = outcome_total_uj − Σ activity.joules_uj, signed, never clamped.
  const want = uint(core, "outcome_total_uj")! - uint(core, "activities_uj")!;
  const got = big(core.get("residual_uj"));
  if (got !== want) {
    return {
      code: "residual-mismatch",
      detail: `residual_uj ${got} ≠ outcome_total_uj − activities_uj = ${want} ` +
        "(JCP §5.3: signed, never clamped)",
    };
  }
  // The headline figure is a ratio of the total (JCP §5.2): it needs the tokens it divides by.
  if (core.has("uj_per_accepted_token")) {
    const tokens = uint(core, "accepted_tokens") ?? 0n;
    const per = uint(core, "uj_per_accepted_token")!;
    const exact = tokens > 0n ? uint(core, "outcome_total_uj")! / tokens : undefined;
    if (exact !== per) {
      return {
        code: "per-token-mismatch",
        detail: tokens > 0n
          ? `uj_per_accepted_token ${per} ≠ ⌊outcome_total_uj / accepted_tokens⌋ = ${exact}`
          : "uj_per_accepted_token without a positive accepted_tokens",
      };
    }
  }
  return undefined;
}

function honesty(core: CborMap): StepOutcome {
  const f = efficiencyFinding(core);
  return f ? failWith(f) : PASS;
}

/** The outcome receipt profile, `jcp_receipt: "efficiency/1"`. */
export const efficiencyProfile: Profile = {
  schema: "efficiency/1",
  tagField: "jcp_receipt",
  produced: true,
  algs: [-8], // JCP §8: the family's envelope, EdDSA
  fields: EFFICIENCY_FIELDS,
  structure: (core) => closedCore(core, EFFICIENCY_FIELDS, "efficiency/1"),
  toolReceipts: () => NOT_APPLICABLE,
  honesty,
  joules: () => NOT_APPLICABLE,
};

/** One activity's energy as the outcome's trace reads it (JCP §5.3). */
export interface ActivityFigure {
  joules_uj: bigint;
  provenance: string;
  partial: boolean;
}

/**
 * The energy figure of a logged receipt an outcome may name as an activity (JCP §5.3: "AR-1
 * carries exactly one energy figure and it belongs to the work"): an `intercept/1` step
 * (`joules_uj`, `provenance`, `coverage`), a JCR-1 cascade receipt (`joules_uj`,
 * `energy_provenance`) or a `jcp/2`/`jcp/1` decision (`cost_uj`, `energy_provenance`,
 * `energy_coverage`). Any other receipt is no activity: undefined.
 */
export function activityFigure(core: CborMap): ActivityFigure | undefined {
  const jcp = core.get("jcp_receipt"), jc = core.get("jc_receipt");
  const fig = (e: string, p: string, c: string | undefined) => {
    const v = core.get(e), prov = core.get(p);
    if (!(typeof v === "number" || typeof v === "bigint") || typeof prov !== "string") {
      return undefined;
    }
    return { joules_uj: big(v), provenance: prov, partial: !!c && core.get(c) === "Partial" };
  };
  if (jcp === "intercept/1") return fig("joules_uj", "provenance", "coverage");
  if (jcp === "jcp/2" || jcp === "jcp/1") {
    return fig("cost_uj", "energy_provenance", "energy_coverage");
  }
  if (jc === "1") return fig("joules_uj", "energy_provenance", undefined);
  return undefined;
}

function rank(p: string): number {
  return PROVENANCES.indexOf(p as (typeof PROVENANCES)[number]);
}

/**
 * JCP §5.3 at the log: the outcome `core`'s named activities, each resolved (its figure, or
 * `undefined` when the log holds no entry of that content id, or `null` for an entry that is no
 * activity), re-added and compared. The first failing rule, or undefined when the trace holds.
 */
export function traceOutcome(
  core: CborMap,
  resolved: (ActivityFigure | undefined | null)[],
): Finding | undefined {
  const acts = list(core, "activities") as string[];
  let sum = 0n, floor = 0, partial = false;
  for (const [i, a] of resolved.entries()) {
    // §5.3: "A verifier MUST be able to resolve each named activity and re-add the figures."
    if (a === undefined) {
      return {
        code: "activity-unresolved",
        detail: `activities[${i}] ${acts[i]} is not in the log (JCP §5.3: each named activity ` +
          "must resolve; append it before its outcome)",
      };
    }
    if (a === null) {
      return {
        code: "activity-not-activity",
        detail: `activities[${i}] ${acts[i]} names a logged entry that carries no activity's ` +
          "energy figure (intercept/1, a cascade receipt or a jcp decision) (JCP §5.3)",
      };
    }
    sum += a.joules_uj;
    floor = Math.max(floor, rank(a.provenance));
    partial ||= a.partial;
  }
  const claimed = uint(core, "activities_uj")!;
  if (sum !== claimed) {
    return {
      code: "activities-sum-mismatch",
      detail: `the named activities re-add to ${sum} µJ, the outcome says activities_uj ` +
        `${claimed} (JCP §5.3)`,
    };
  }
  // §5.3: "The composite provenance is the floor across the outcome and every activity ...
  // Aggregation MUST NOT be a step at which a grade improves."
  const prov = text(core, "energy_provenance")!;
  if (rank(prov) < floor) {
    return {
      code: "provenance-above-floor",
      detail: `energy_provenance ${prov} is better than its worst activity's ${
        PROVENANCES[floor]
      } (JCP §5.3: the floor)`,
    };
  }
  // §5.2: "A total summed from receipts of which any is Partial is Partial"; §5.3: "Coverage
  // takes the floor the same way."
  if (partial && core.get("energy_coverage") !== "Partial") {
    return {
      code: "coverage-above-floor",
      detail: "an activity is Partial and the outcome does not say Partial (JCP §5.2, §5.3)",
    };
  }
  return undefined;
}

/**
 * JCP §5.2 over a ledger: the total of many figures, Partial when any is, and a per-unit figure
 * (⌊total / units⌋) only when none is and there are units: "a total summed from receipts of which
 * any is Partial is Partial and gives no per-unit energy figure".
 */
export function sumFigures(
  figures: { uj: bigint; partial: boolean }[],
  units: bigint,
): { total_uj: bigint; partial: boolean; uj_per_unit?: bigint } {
  let total = 0n, partial = false;
  for (const f of figures) {
    total += f.uj;
    partial ||= f.partial;
  }
  return partial || units <= 0n ? { total_uj: total, partial } : {
    total_uj: total,
    partial,
    uj_per_unit: total / units,
  };
}
