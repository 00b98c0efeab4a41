// JCP §5.2 — `intercept/1`, the step receipt of the reference interceptor chain (`jcp-intercept`):
// one step's energy figure with its `provenance` and, only when Partial, its `coverage`. The spec
// names the profile and those two members; the rest of the core is this project's reading of "a
// step receipt" (docs/DECISIONS.md "intercept/1 and efficiency/1": the field lists), closed like
// jcp/2's (JCP §8: "the core field list is per-profile").
import type { CborMap } from "../cbor.ts";
import { checkFields, F, type FieldTable, type Finding, opt, req } from "./fields.ts";
import { PROVENANCES } from "./jcr1.ts";
import { failWith, NOT_APPLICABLE, PASS, type Profile, type StepOutcome } from "./types.ts";

/** The `intercept/1` signed core. */
export const INTERCEPT_FIELDS: FieldTable = {
  jcp_receipt: req(F.text),
  // the interceptor step that ran (the chain's own name for it)
  step: req(F.text),
  // JCP §3, §8: the content id of what the step intercepted
  payload_hash: req(F.hex64),
  // JCP §5: integer microjoules with a provenance tag
  joules_uj: req(F.uint),
  provenance: req(F.oneOf(...PROVENANCES)),
  // JCP §5.2: carried only when Partial (checked by the honesty step: bad-coverage)
  coverage: opt(F.text),
  closed_at: req(F.rfc3339),
  steward: req(F.text),
};

/** A closed core: the profile's members and no others (JCP §8, as jcp/2). */
export function closedCore(core: CborMap, table: FieldTable, schema: string): Finding | undefined {
  const f = checkFields(core, table);
  if (f) return f;
  for (const k of core.keys()) {
    if (typeof k !== "string" || !Object.hasOwn(table, k)) {
      return {
        code: "field-not-allowed",
        detail: `${JSON.stringify(k)} is not a member of the ${schema} core (JCP §8)`,
      };
    }
  }
  return undefined;
}

/**
 * JCP §5.2: "In `intercept/1` the field, when present, has exactly one value, "Partial"; a
 * verifier MUST refuse any other value, "Whole" included, rather than read it either way." The
 * same one-value rule holds for `efficiency/1`'s `energy_coverage`.
 */
export function coverageFinding(core: CborMap, field: string): Finding | undefined {
  const v = core.get(field);
  if (v === undefined || v === "Partial") return undefined;
  return {
    code: "bad-coverage",
    detail: `${field} ${JSON.stringify(v)} must be "Partial" when present (JCP §5.2)`,
  };
}

function honesty(core: CborMap): StepOutcome {
  const f = coverageFinding(core, "coverage");
  return f ? failWith(f) : PASS;
}

/** The interceptor chain's step receipt, `jcp_receipt: "intercept/1"`. */
export const interceptProfile: Profile = {
  schema: "intercept/1",
  tagField: "jcp_receipt",
  produced: true,
  algs: [-8], // JCP §8: the family's envelope, EdDSA
  fields: INTERCEPT_FIELDS,
  structure: (core) => closedCore(core, INTERCEPT_FIELDS, "intercept/1"),
  toolReceipts: () => NOT_APPLICABLE,
  honesty,
  joules: () => NOT_APPLICABLE,
};
