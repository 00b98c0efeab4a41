// JCP §8, §8.1 — the decision receipt, profiles `jcp/2` (current) and `jcp/1` (legacy: verified,
// never produced). The tag is `jcp_receipt`; the envelope is the family's JCR-1 envelope.

import type { CborMap } from "../cbor.ts";
import { checkFields, F, type FieldTable, type Finding, list, opt, req, text } from "./fields.ts";
import { PROVENANCES } from "./jcr1.ts";
import { failWith, NOT_APPLICABLE, PASS, type Profile, type StepOutcome } from "./types.ts";

/** JCP §8 field list of the `jcp/2` signed core. */
export const JCP2_FIELDS: FieldTable = {
  jcp_receipt: req(F.text),
  grant_id: req(F.hex64),
  issuer: req(F.didKey),
  subject: req(F.didKey),
  resource: req(F.hex64),
  action: req(F.text),
  // JCP §8: a conforming implementation MUST include payload_hash (jcp/2).
  payload_hash: req(F.hex64),
  frame_kind: req(F.text),
  trust: req(F.oneOf("control", "data")),
  verdict: req(F.oneOf("allow", "deny")),
  deny_reason: opt(F.text),
  cost_uj: req(F.uint),
  energy_provenance: req(F.oneOf(...PROVENANCES)),
  energy_coverage: opt(F.text),
  budget_remaining_uj: req(F.uint),
  budget_uj: req(F.uint),
  debited_uj: opt(F.uint),
  chain_ids: opt(F.arrayOf(F.hex64)),
  chain_debited_uj: opt(F.arrayOf(F.uint)),
  debited_minor: opt(F.uint),
  chain_debited_minor: opt(F.arrayOf(F.uint)),
  tainted_uj: opt(F.uint),
  held_uj: opt(F.uint),
  held_minor: opt(F.uint),
  settles: opt(F.hex64),
  minted_uj: opt(F.uint),
  seq: opt(F.uint),
  prev: opt(F.hex64),
  flow: opt(F.anyMap),
  steward: req(F.text),
};

/** JCP §8: `jcp/1` is `jcp/2` without `payload_hash` (the member jcp/2 added). */
export const JCP1_FIELDS: FieldTable = Object.fromEntries(
  Object.entries(JCP2_FIELDS).filter(([k]) => k !== "payload_hash"),
);

function structure(table: FieldTable, legacy: boolean) {
  return (core: CborMap): Finding | undefined => {
    const f = checkFields(core, table);
    if (f) return f;
    // JCP §8: jcp/1 omitted payload_hash; a jcp/1 core claiming one is a mislabelled jcp/2.
    if (legacy && core.has("payload_hash")) {
      return {
        code: "field-not-allowed",
        detail: "payload_hash is not part of the jcp/1 profile (JCP §8)",
      };
    }
    // JCP §8: "the core field list is per-profile"; §8.1: a verifier that recomputes the core
    // without a member "refuses a receipt that carries one". The profile's members and no others
    // (JCR-1 §1's "ignore unknown fields" is the cascade receipt's, docs/DECISIONS.md).
    for (const k of core.keys()) {
      if (typeof k !== "string" || !Object.hasOwn(table, k)) {
        return {
          code: "field-not-allowed",
          detail: `${JSON.stringify(k)} is not a member of the ${
            legacy ? "jcp/1" : "jcp/2"
          } core (JCP §8, §8.1)`,
        };
      }
    }
    // JCP §8.1: a hash-chained log entry carries seq and prev together.
    if (core.has("seq") !== core.has("prev")) {
      return {
        code: "missing-field",
        detail: `${core.has("seq") ? "prev" : "seq"} is required beside ${
          core.has("seq") ? "seq" : "prev"
        } (JCP §8.1)`,
      };
    }
    return undefined;
  };
}

/** JCP §8 / §8.1 / §5.2 consistency rules between members. */
function honesty(core: CborMap): StepOutcome {
  const verdict = text(core, "verdict")!;
  // JCP §8: deny_reason is omitted on allow (and names the reason on deny, JCP §7).
  if ((verdict === "deny") !== core.has("deny_reason")) {
    return failWith({
      code: "deny-reason-misplaced",
      detail: verdict === "deny"
        ? "a deny receipt must carry deny_reason (JCP §7, §8)"
        : "deny_reason is omitted on allow (JCP §8)",
    });
  }
  // JCP §5.2: coverage is carried only when Partial; any other value, "Whole" included, is refused.
  const cov = core.get("energy_coverage");
  if (cov !== undefined && cov !== "Partial") {
    return failWith({
      code: "bad-coverage",
      detail: `energy_coverage ${JSON.stringify(cov)} must be "Partial" when present (JCP §5.2)`,
    });
  }
  // JCP §8.1 rule 1: link i of chain_ids was debited entry i — the two have the same length.
  const ids = core.has("chain_ids") ? list(core, "chain_ids").length : undefined;
  for (const name of ["chain_debited_uj", "chain_debited_minor"]) {
    if (!core.has(name)) continue;
    const n = list(core, name).length;
    if (n !== ids) {
      return failWith({
        code: "chain-length-mismatch",
        detail: ids === undefined
          ? `${name} without chain_ids (JCP §8.1)`
          : `${name} has ${n} entries, chain_ids has ${ids} (JCP §8.1)`,
      });
    }
  }
  return PASS;
}

/** The current JCP decision-receipt profile, `jcp_receipt: "jcp/2"`. */
export const jcp2Profile: Profile = {
  schema: "jcp/2",
  tagField: "jcp_receipt",
  produced: true,
  // JCP §8: "COSE_Sign1 envelope (RFC 9052, EdDSA/Ed25519, alg = -8)" (docs/DECISIONS.md).
  algs: [-8],
  fields: JCP2_FIELDS,
  structure: structure(JCP2_FIELDS, false),
  toolReceipts: () => NOT_APPLICABLE,
  honesty,
  joules: () => NOT_APPLICABLE,
};

/** The legacy profile `jcp/1` (JCP §8: verifiers keep verifying it; implementations never mint it). */
export const jcp1Profile: Profile = {
  schema: "jcp/1",
  tagField: "jcp_receipt",
  produced: false,
  algs: [-8], // JCP §8: jcp/1 sealed under the same envelope, EdDSA only
  fields: JCP1_FIELDS,
  structure: structure(JCP1_FIELDS, true),
  toolReceipts: () => NOT_APPLICABLE,
  honesty,
  joules: () => NOT_APPLICABLE,
};
