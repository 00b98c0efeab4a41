// Receipt profiles, dispatched on the signed core's schema tag (JouleClaw SPEC §7, JCR-1 §8,
// JCP §8 "profile versioning"). To add a profile (e.g. "meter-reading/1"): write one module that
// exports a `Profile`, and add one line to REGISTRY below.

import type { CborMap } from "../cbor.ts";
import { VerifyInputError } from "../errors.ts";
import { efficiencyProfile } from "./efficiency.ts";
import { interceptProfile } from "./intercept.ts";
import { jcp1Profile, jcp2Profile } from "./jcp.ts";
import { jcr1Profile } from "./jcr1.ts";
import { meterReadingProfile } from "./meter_reading.ts";
import { policyProfile } from "./policy.ts";
import type { Finding } from "./fields.ts";
import type { Profile } from "./types.ts";
import { verdictProfile } from "./verdict.ts";

export type { DriftFigures, Profile, ProfileOptions, StepOutcome } from "./types.ts";
export type { Finding } from "./fields.ts";
export { didKeyPublicKeyCached, didKeyTypedCached } from "./fields.ts";
export {
  DRIFT_BAND_PERCENT,
  MJ_QUANTUM_UJ,
  PROVENANCES,
  TIERS,
  toolReceiptFields,
  withinDriftBand,
} from "./jcr1.ts";
export { policyIndex } from "./policy.ts";
export { activityFigure, sumFigures, traceOutcome } from "./efficiency.ts";
export type { ActivityFigure } from "./efficiency.ts";

/** Every implemented profile, by schema tag. One line per profile. */
export const REGISTRY: ReadonlyMap<string, Profile> = new Map<string, Profile>([
  ["1", jcr1Profile],
  ["policy/1", policyProfile],
  ["verdict-receipt/1", verdictProfile],
  ["jcp/2", jcp2Profile],
  ["jcp/1", jcp1Profile],
  ["meter-reading/1", meterReadingProfile],
  ["intercept/1", interceptProfile],
  ["efficiency/1", efficiencyProfile],
]);

/**
 * The rule every profile's signed core obeys beside its field list: SPEC §13, "the canonical signed
 * core of a JCR-1 envelope MUST NOT include `@context` — the JSON-LD context is metadata, not
 * payload". Every sibling receipt uses the JCR-1 envelope (SPEC §10, §16.7, JCP §8), so the rule
 * is the family's; a core carrying it is refused `context-in-core` (docs/DECISIONS.md).
 */
export function signedCoreFinding(core: CborMap): Finding | undefined {
  if (!core.has("@context")) return undefined;
  return {
    code: "context-in-core",
    detail: "the signed core carries @context; SPEC §13: the canonical signed core MUST NOT " +
      "include it (publish the JSON-LD form beside the receipt)",
  };
}

/** The core fields that may carry a schema tag. */
export const TAG_FIELDS = ["jc_receipt", "jcp_receipt"] as const;

/** What dispatch found: a profile, or a stable code saying why none applies. */
export type Dispatch =
  | { kind: "profile"; schema: string; profile: Profile }
  | { kind: "refused"; schema: string | null; code: string; detail: string };

/**
 * Finds the profile for a decoded signed core.
 *
 * - no tag, both tags, or a tag that is not text → `missing-field` / `bad-field-type` / `bad-field-value`
 * - a bare numeric tag (`"N"`, reserved for the cascade receipt) that is not implemented →
 *   `unknown-major` (SPEC §7, JCR-1 §8: verifiers reject unknown majors at step 1)
 * - any other unimplemented tag → `unsupported-schema` (reported after the envelope is checked)
 *
 * @example
 * ```ts
 * const d = dispatch(decodeCbor(payload) as CborMap);
 * if (d.kind === "profile") d.profile.structure(core);
 * ```
 */
export function dispatch(core: CborMap): Dispatch {
  const present = TAG_FIELDS.filter((f) => core.has(f));
  if (present.length === 0) {
    return {
      kind: "refused",
      schema: null,
      code: "missing-field",
      detail: "the core carries no jc_receipt or jcp_receipt schema tag",
    };
  }
  if (present.length > 1) {
    return {
      kind: "refused",
      schema: null,
      code: "bad-field-value",
      detail: "the core carries both jc_receipt and jcp_receipt",
    };
  }
  const field = present[0];
  const schema = core.get(field);
  if (typeof schema !== "string") {
    return {
      kind: "refused",
      schema: null,
      code: "bad-field-type",
      detail: `${field} must be a text string`,
    };
  }
  const profile = REGISTRY.get(schema);
  if (profile && profile.tagField === field) return { kind: "profile", schema, profile };
  if (field === "jc_receipt" && /^[0-9]+$/.test(schema)) {
    // SPEC §7: unknown major → reject (the bare numeric form is the cascade receipt's).
    return {
      kind: "refused",
      schema,
      code: "unknown-major",
      detail: `jc_receipt major "${schema}" is not implemented (JCR-1 §8)`,
    };
  }
  // JCP §8: refuse a tag it does not implement rather than assume a profile.
  return {
    kind: "refused",
    schema,
    code: "unsupported-schema",
    detail: `${field} "${schema}" is not a supported schema`,
  };
}

/**
 * Refuses to seal a core whose profile is verify-only (JCP §8: implementations MUST NOT mint
 * `jcp/1`). Producers call this before signing; unknown schemas are the producer's business.
 *
 * @example assertMintable({ jcp_receipt: "jcp/2" }) // ok; { jcp_receipt: "jcp/1" } throws
 * @throws {VerifyInputError} code "legacy-profile"
 */
export function assertMintable(core: Record<string, unknown>): void {
  for (const field of TAG_FIELDS) {
    const p = typeof core[field] === "string" ? REGISTRY.get(core[field] as string) : undefined;
    if (p && p.tagField === field && !p.produced) {
      throw new VerifyInputError(
        "legacy-profile",
        `Cannot seal receipt: ${p.schema} is verified but never produced (JCP §8)`,
      );
    }
  }
}
