// The cascade receipt (SPEC §2, JCR-1 §2.1) and the classes nested in it: tool touches, claim
// provenance, tool receipts, citations, text spans and token attributions.
import { DID, dt, en, HEX64, node, opt, req, RFC3339_UTC_NOTE, s, u64, uMax } from "./build.ts";
import type { ClassDef } from "./build.ts";

/** Part of the vocabulary's classes (vocab/schema/mod.ts `CLASSES`), in its order. */
export const RECEIPT_CLASSES: ClassDef[] = [
  // ---- SPEC §2 / JCR-1 §2: the cascade receipt
  {
    name: "Receipt",
    clause: "SPEC §2, JCR-1 §2.1",
    comment:
      'A cascade-walk receipt (jc_receipt "1"): what one resolution cost, in microjoules, and how honestly it was measured.',
    discriminator: { key: "jc_receipt", value: "1" },
    fields: [
      req("jc_receipt", "jcReceipt", s(), "Schema version of a receipt (SPEC §7).", { fixed: "1" }),
      req("id", "identifier", s(), "Stable receipt id, monotonic per steward."),
      req(
        "closed_at",
        "closedAt",
        dt,
        "When the cascade walk (or decision) closed; " + RFC3339_UTC_NOTE + ".",
      ),
      req(
        "input_hash",
        "inputHash",
        s(HEX64),
        "BLAKE3 (hex) of the normalised input that started the walk.",
      ),
      req("tier", "tier", en("CascadeTier"), "The tier that closed the query."),
      req("joules_uj", "joulesUj", u64, "Energy in microjoules (u64)."),
      req(
        "energy_provenance",
        "energyProvenance",
        en("EnergyProvenance"),
        "Honesty tag of the worst counter in the span.",
      ),
      req("steward", "steward", s(DID), "Signing identity (did:key, or a KERI AID as a DID)."),
      opt("tools_touched", "toolsTouched", node("ToolTouch"), "Per-tool energy, in call order.", {
        list: true,
      }),
      opt("claims", "claims", node("ClaimProvenance"), "Sources that grounded the resolution.", {
        list: true,
      }),
      opt(
        "tool_receipts",
        "toolReceipts",
        node("ToolReceipt"),
        "Gateway-attested tool invocations.",
        { list: true },
      ),
      opt("eoc_stage", "eocStage", s(), "EOC cascade stage label."),
      opt("citations", "citations", node("Citation"), "Span → source grounding (advisory).", {
        list: true,
      }),
      opt(
        "token_attributions",
        "tokenAttributions",
        node("TokenAttribution"),
        "Per-token saliency (advisory, outside the signed core).",
        {
          list: true,
        },
      ),
    ],
  },
  {
    name: "ToolTouch",
    clause: "SPEC §5, JCR-1 §2.5",
    comment: "One metered tool call on a receipt's tools_touched ledger.",
    fields: [
      req(
        "tool_id",
        "toolId",
        s(),
        "Stable tool id (e.g. mcp:filesystem/read, model:gemma4-9b-q5_k_m).",
      ),
      req("joules_uj", "joulesUj", u64, "Energy in microjoules (u64)."),
      req(
        "energy_provenance",
        "energyProvenance",
        en("EnergyProvenance"),
        "Honesty tag of the figure.",
      ),
    ],
  },
  {
    name: "ClaimProvenance",
    clause: "SPEC §4, JCR-1 §2.4",
    sub: ["prov:Entity"],
    comment: "A retrieved claim that contributed to a resolution (a prov:Entity).",
    fields: [
      req("source", "source", s(), "Where the claim came from: URL, DOI, did."),
      req("content_hash", "contentHash", s(HEX64), "BLAKE3 (hex) of the bytes as fetched."),
      req("fetched_at", "fetchedAt", dt, "When the claim was fetched; " + RFC3339_UTC_NOTE + "."),
      req(
        "trust_tier",
        "trustTier",
        uMax(10),
        "Trust tier 0..10, higher is more trusted (SPEC §4).",
      ),
    ],
  },
  {
    name: "ToolReceipt",
    clause: "JCR-1 §2.6, §5",
    comment: "A gateway-HMAC'd attestation that a tool was invoked through the gateway.",
    fields: [
      req("tool_id", "toolId", s(), "Stable tool id."),
      req("joules_uj", "joulesUj", u64, "Energy in microjoules (u64)."),
      req(
        "energy_provenance",
        "energyProvenance",
        en("EnergyProvenance"),
        "Honesty tag of the figure.",
      ),
      req("minted_at", "mintedAt", dt, "When the gateway minted it; " + RFC3339_UTC_NOTE + "."),
      req("gateway_id", "gatewayId", s(), "The gateway whose key made the HMAC."),
      req(
        "hmac_sha256_hex",
        "hmacSha256Hex",
        s(HEX64),
        "HMAC-SHA-256 over the JCR-1 §5 payload (hex).",
      ),
    ],
  },
  {
    name: "Citation",
    clause: "JCR-1 §2.7",
    comment: "Grounds a span of the output in a source chunk (advisory).",
    fields: [
      req("text_span", "textSpan", node("TextSpan"), "The half-open byte range of the output."),
      req("source_chunk_id", "sourceChunkId", s(), "The chunk the quote comes from."),
      req("exact_quote", "exactQuote", s(), "The verbatim quote, findable in the chunk."),
    ],
  },
  {
    name: "TextSpan",
    clause: "JCR-1 §2.7",
    comment: "A half-open byte range [start, end) over the output the consumer holds.",
    fields: [
      req("start", "spanStart", uMax(0xffffffff), "First byte (u32)."),
      req("end", "spanEnd", uMax(0xffffffff), "One past the last byte (u32)."),
    ],
  },
  {
    name: "TokenAttribution",
    clause: "JCR-1 §2.7",
    comment: "Per-token saliency, provider-defined and ordinal (advisory, never signed).",
    fields: [
      req("token_idx", "tokenIdx", uMax(0xffffffff), "Token index (u32)."),
      req(
        "chunk_scores",
        "chunkScores",
        { t: "json" },
        "Map of chunk id to score, kept as rdf:JSON.",
      ),
      opt("method", "attributionMethod", s(), "How the scores were computed."),
    ],
  },
];
