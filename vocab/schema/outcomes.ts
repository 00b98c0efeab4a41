// JCP §5.2, §5.3: the `intercept/1` step receipt of the reference interceptor chain and the
// `efficiency/1` outcome receipt (verify/profiles/intercept.ts, efficiency.ts; the field lists
// beyond what the spec names: docs/DECISIONS.md "intercept/1 and efficiency/1").
import { DID, dt, en, HEX64, opt, req, s, u64 } from "./build.ts";
import type { ClassDef } from "./build.ts";

const PARTIAL = "Present only when Partial; any other value is refused (JCP §5.2).";

/** Part of the vocabulary's classes (vocab/schema/mod.ts `CLASSES`), in its order. */
export const OUTCOME_CLASSES: ClassDef[] = [
  {
    name: "InterceptReceipt",
    clause: "JCP §5.2 (intercept/1)",
    comment: "A step receipt of the reference interceptor chain (jcp-intercept): one step's " +
      'energy, its provenance and, only when Partial, its coverage (jcp_receipt "intercept/1").',
    discriminator: { key: "jcp_receipt", value: "intercept/1" },
    fields: [
      req("jcp_receipt", "jcpReceipt", s(), "JCP receipt profile.", { fixed: "intercept/1" }),
      req("step", "interceptStep", s(), "The interceptor step that ran."),
      req("payload_hash", "payloadHash", s(HEX64), "Content id of what the step intercepted."),
      req("joules_uj", "joulesUj", u64, "Energy in microjoules (u64)."),
      req("provenance", "energyProvenance", en("EnergyProvenance"), "Honesty tag (JCP §5)."),
      opt("coverage", "energyCoverage", en("EnergyCoverage"), PARTIAL),
      req("closed_at", "closedAt", dt, "When the step closed; RFC 3339 in UTC."),
      req("steward", "steward", s(DID), "The signer's id (the COSE kid)."),
    ],
  },
  {
    name: "EfficiencyReceipt",
    clause: "JCP §5.2, §5.3 (efficiency/1)",
    comment: "An outcome receipt: the outcome's energy, the activities it names by content id, " +
      "what they re-add to and the signed residual between the two, never clamped " +
      '(jcp_receipt "efficiency/1").',
    discriminator: { key: "jcp_receipt", value: "efficiency/1" },
    fields: [
      req("jcp_receipt", "jcpReceipt", s(), "JCP receipt profile.", { fixed: "efficiency/1" }),
      req("outcome", "outcome", s(), "The outcome's own name (a label: never what binds it)."),
      req("outcome_total_uj", "outcomeTotalUj", u64, "The outcome's energy in microjoules."),
      req(
        "energy_provenance",
        "energyProvenance",
        en("EnergyProvenance"),
        "The composite provenance: the floor across the outcome and every activity (JCP §5.3).",
      ),
      opt("energy_coverage", "energyCoverage", en("EnergyCoverage"), PARTIAL),
      req(
        "activities",
        "activities",
        s(HEX64),
        "The activities, by content id (JCP §3, §5.3); each bound to one outcome.",
        { list: true },
      ),
      req("activities_uj", "activitiesUj", u64, "Σ of the activities' energy (JCP §5.3)."),
      req(
        "residual_uj",
        "residualUj",
        { t: "integer" },
        "outcome_total_uj − activities_uj: signed, never clamped (JCP §5.3).",
      ),
      opt("accepted_tokens", "acceptedTokens", u64, "Tokens accepted."),
      opt(
        "uj_per_accepted_token",
        "ujPerAcceptedToken",
        u64,
        "⌊outcome_total_uj / accepted_tokens⌋; never on a Partial receipt (JCP §5.2).",
      ),
      req("closed_at", "closedAt", dt, "When the outcome closed; RFC 3339 in UTC."),
      req("steward", "steward", s(DID), "The signer's id (the COSE kid)."),
    ],
  },
];
