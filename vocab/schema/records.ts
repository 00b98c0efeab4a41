// The `jcp/2` and `jcp/1` decision receipts (JCP §8), the meter reading (`meter-reading/1`,
// docs/METER-READING.md) and the log's signed tree head (SPEC §22.2).
import { DID, DID_KEY, en, FRAME_KIND_NOTE, HEX64, node, opt, req, RUNG, s, u64 } from "./build.ts";
import type { ClassDef, Field } from "./build.ts";

/** Part of the vocabulary's classes (vocab/schema/mod.ts `CLASSES`), in its order. */
export const RECORD_CLASSES: ClassDef[] = [
  // ---- JCP §8: decision receipts
  {
    name: "JcpReceipt",
    clause: "JCP §8, §8.1",
    comment: 'A JCP decision receipt, profile jcp/2 (jcp_receipt "jcp/2").',
    discriminator: { key: "jcp_receipt", value: "jcp/2" },
    fields: jcpFields("jcp/2"),
  },
  {
    name: "JcpV1Receipt",
    clause: "JCP §8 (legacy profile)",
    sub: ["jc:JcpReceipt"],
    comment: "A legacy jcp/1 receipt: jcp/2 without payload_hash. Verified, never produced.",
    discriminator: { key: "jcp_receipt", value: "jcp/1" },
    fields: jcpFields("jcp/1"),
  },
  // ---- meter-reading/1 (docs/METER-READING.md)
  {
    name: "MeterReading",
    clause: "meter-reading/1 (JCP §5, §5.2; SPEC §7)",
    comment: 'One signed, graded energy reading from a meter agent (jc_receipt "meter-reading/1").',
    discriminator: { key: "jc_receipt", value: "meter-reading/1" },
    fields: [
      req("jc_receipt", "jcReceipt", s(), "Schema version (SPEC §7).", {
        fixed: "meter-reading/1",
      }),
      req("agent", "agent", s(DID_KEY), "The meter agent (== the COSE kid)."),
      req("seq", "seq", u64, "Position in the agent's chain, from 0."),
      req(
        "prev",
        "prev",
        s(HEX64),
        "BLAKE3 of the previous reading's envelope (64 zeros at seq 0).",
      ),
      req("host", "host", s(), "The host measured."),
      // docs/METER-READING.md: the rung is a closed list (the verifier's too).
      req("counter", "counter", s(RUNG), "The counter read (rung)."),
      req("domain", "domain", s(), "The domain the figure claims."),
      // docs/METER-READING.md: times are integers, milliseconds since the Unix epoch (API.md's
      // convention for fields not named *_at), as the agent signs them and the verifier checks.
      req("start", "readingStart", u64, "Start of the interval, ms since the Unix epoch."),
      req("end", "readingEnd", u64, "End of the interval, ms since the Unix epoch."),
      req("energy_uj", "energyUj", u64, "Energy in microjoules (u64)."),
      req("energy_provenance", "energyProvenance", en("EnergyProvenance"), "Honesty tag."),
      opt(
        "energy_coverage",
        "energyCoverage",
        en("EnergyCoverage"),
        "Present only when Partial (JCP §5.2).",
      ),
      req("resolution_uj", "resolutionUj", u64, "The counter's resolution in microjoules."),
      opt(
        "liveness",
        "liveness",
        { t: "json" },
        "Liveness evidence (JCP §5), kept verbatim as rdf:JSON.",
      ),
      opt(
        "plausibility",
        "plausibility",
        { t: "json" },
        "Plausibility evidence (JCP §5), kept verbatim as rdf:JSON.",
      ),
      // docs/METER-READING.md: `declined` is not optional (an empty list when none was declined).
      req(
        "declined",
        "declined",
        node("DeclinedRung"),
        "Rungs above the chosen one that were declined, and why.",
        { list: true },
      ),
      opt(
        "calibration",
        "calibration",
        s(HEX64),
        "A model figure's calibration: the content id of the HwShunt reading whose power it uses (JCP §5.1 rung 5).",
      ),
      opt(
        "gap",
        "readingGap",
        s("^(restart|refused)$"),
        "Why the span does not start where the agent's previous one ended (restart | refused).",
      ),
    ],
  },
  {
    name: "DeclinedRung",
    clause: "JCP §5.1",
    comment: "A metering-ladder rung the agent declined, with the reason.",
    fields: [
      req("rung", "rung", s(RUNG), "The rung."),
      req("reason", "declineReason", s(), "Why it was declined."),
      opt("detail", "declineDetail", s(), "What the agent saw (free text)."),
    ],
  },
  // ---- SPEC §22.2: tree head
  {
    name: "TreeHead",
    clause: "SPEC §22.2",
    comment:
      "A signed tree head of the transparency log: Ed25519 over 0x02 || size || root || timestamp.",
    fields: [
      req("size", "treeSize", u64, "Number of entries."),
      req("root", "rootHash", s(HEX64), "BLAKE3 Merkle root (hex)."),
      req("timestamp", "timestampMs", u64, "Milliseconds since the Unix epoch."),
      req("signature", "signature", s("^[0-9a-f]{128}$"), "Ed25519 signature (hex)."),
      req("signer", "signer", s(DID_KEY), "The log key's did:key."),
    ],
  },
];

function jcpFields(tag: "jcp/2" | "jcp/1"): Field[] {
  const f: Field[] = [
    req("jcp_receipt", "jcpReceipt", s(), "JCP receipt profile.", { fixed: tag }),
    req("grant_id", "grantId", s(HEX64), "Content id of the grant exercised."),
    req("issuer", "issuer", s(DID_KEY), "The grant's issuer."),
    req("subject", "subject", s(DID_KEY), "The grant's subject."),
    req("resource", "resource", s(HEX64), "Content id of the resource."),
    req("action", "jcpAction", s(), "The action exercised."),
    req("payload_hash", "payloadHash", s(HEX64), "Content id of what was acted upon (JCP §8)."),
    // JCP §8.1: a cancellation is "distinguished by its frame_kind": open (DECISIONS.md).
    req("frame_kind", "frameKind", { t: "enum", e: "FrameKind", open: true }, FRAME_KIND_NOTE),
    req("trust", "trust", en("Trust"), "control | data."),
    req("verdict", "jcpVerdict", en("JcpVerdict"), "allow | deny."),
    opt("deny_reason", "denyReason", s(), "Why, on deny (JCP §7)."),
    req("cost_uj", "costUj", u64, "Metered cost in microjoules."),
    req("energy_provenance", "energyProvenance", en("EnergyProvenance"), "Honesty tag."),
    opt(
      "energy_coverage",
      "energyCoverage",
      en("EnergyCoverage"),
      "Present only when Partial (JCP §5.2).",
    ),
    req("budget_remaining_uj", "budgetRemainingUj", u64, "Remaining budget."),
    req("budget_uj", "budgetUj", u64, "The grant's ceiling."),
    opt(
      "debited_uj",
      "debitedUj",
      u64,
      "What was debited, where the verdict does not say it (JCP §8.1).",
    ),
    opt("chain_ids", "chainIds", s(HEX64), "Every grant debited, root first (JCP §8.1).", {
      list: true,
    }),
    opt("chain_debited_uj", "chainDebitedUj", u64, "Per-link debits (JCP §8.1).", { list: true }),
    opt("debited_minor", "debitedMinor", u64, "Money debited (JCP §4.8)."),
    opt("chain_debited_minor", "chainDebitedMinor", u64, "Per-link money debits.", { list: true }),
    opt("tainted_uj", "taintedUj", u64, "Tainted accrual (JCP §4.10)."),
    opt("held_uj", "heldUj", u64, "A hold's reservation (JCP §8.1)."),
    opt("held_minor", "heldMinor", u64, "A hold's money reservation."),
    opt("settles", "settles", s(HEX64), "The hold this decision accounts for."),
    opt("minted_uj", "mintedUj", u64, "Budget of the child a firing minted (JCP §4.6)."),
    opt("seq", "seq", u64, "Position in a hash-chained log, from 0."),
    opt("prev", "prev", s(HEX64), "Content id of the previous entry's envelope."),
    opt("flow", "flow", { t: "json" }, "Flow block (JCP §4.10), kept verbatim as rdf:JSON."),
    req("steward", "steward", s(DID), "The signer's id (the COSE kid)."),
  ];
  return tag === "jcp/1" ? f.filter((x) => x.key !== "payload_hash") : f;
}
