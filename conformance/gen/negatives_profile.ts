// Negative vectors of the receipt profiles (conformance/gen/negatives.ts): structural field checks,
// tool receipts, honesty, joules, and the sibling profiles' own refusals.
import { policyDigest } from "../../verify/mod.ts";
import { coreBytes, seal, sealBytes, type Signer } from "./build.ts";
import {
  b3,
  FOREIGN_POLICY,
  INPUT,
  JCP1_STEWARD,
  JCP_STEWARD,
  OTHER,
  POLICY,
  POLICY_STEWARD,
  STEWARD,
  UNKNOWN_GATEWAY,
  VERDICT_STEWARD,
} from "./config.ts";
import { jcr1Cores, toolReceipt } from "./jcr1.ts";
import { jcp1Core, jcpCores, policyCores, verdictCore } from "./siblings.ts";
import type { Vector } from "./vector.ts";
import { type Core, neg, utf8 } from "./negative.ts";

/** Profile negatives: structural field checks, tool receipts, honesty, joules. */
export async function profileNegatives(): Promise<Vector[]> {
  const c = await jcr1Cores();
  const two = c["jcr1-02-l1-deterministic"];
  const nine = c["jcr1-09-gateway-tool-receipt-hmac"];
  const k = STEWARD.kid;
  const r = (
    name: string,
    covers: string,
    d: string,
    core: Core,
    codes?: string[],
    signer: Signer = STEWARD,
    schema: string | null = "1",
  ) => neg(name, covers, d, schema, signer.kid, seal(core, signer), codes);
  const { input_hash: _drop, ...noInput } = two;
  const trs = nine.tool_receipts as Core[];

  const out: Vector[] = [
    // structural (JCR-1 §2, §6 step 1)
    r("missing-field", "missing-field", "input_hash absent (JCR-1 §2.1 MUST)", noInput),
    r(
      "missing-schema-tag",
      "missing-field",
      "no jc_receipt / jcp_receipt tag at all",
      (({ jc_receipt: _t, ...rest }) => rest)(two),
      undefined,
      STEWARD,
      null,
    ),
    r("bad-field-type", "bad-field-type", 'joules_uj as the text "180"', {
      ...two,
      joules_uj: "180",
    }),
    r("bad-field-value", "bad-field-value", "tier L5 (JCR-1 §2.2: L0..L4)", { ...two, tier: "L5" }),
    r(
      "bad-field-value-closed-at",
      "bad-field-value",
      "closed_at with a +02:00 offset (JCR-1 §2: RFC 3339 UTC)",
      { ...two, closed_at: "2026-05-31T20:04:22+02:00" },
    ),
    r(
      "bad-field-value-input-hash",
      "bad-field-value",
      "input_hash with a b3: prefix (JCR-1 §2: lowercase hex BLAKE3-256)",
      { ...two, input_hash: "b3:" + INPUT.lawful.slice(3) },
    ),
    r(
      "field-not-allowed",
      "field-not-allowed",
      "token_attributions inside the signed core (JCR-1 §3.1)",
      { ...two, token_attributions: [{ token_idx: 0, chunk_scores: {} }] },
    ),
    r(
      "unknown-major",
      "unknown-major",
      'jc_receipt "2": an unknown major (JCR-1 §8)',
      { ...two, jc_receipt: "2" },
      undefined,
      STEWARD,
      "2",
    ),
    r(
      "unsupported-schema",
      "unsupported-schema",
      'jc_receipt "sandbox/1": a sibling schema this verifier does not implement; the envelope still verifies',
      { ...two, jc_receipt: "sandbox/1" },
      undefined,
      STEWARD,
      "sandbox/1",
    ),
    // tool receipts (JCR-1 §5, §6 step 4)
    r(
      "unknown-gateway",
      "unknown-gateway",
      "a tool receipt from a gateway the operator holds no key for",
      {
        ...nine,
        joules_uj: 6400,
        tools_touched: [...(nine.tools_touched as Core[]), {
          tool_id: "mcp:web/fetch",
          joules_uj: 1000,
          energy_provenance: "HwShunt",
        }],
        tool_receipts: [
          ...trs,
          await toolReceipt(
            "mcp:web/fetch",
            1000,
            "HwShunt",
            UNKNOWN_GATEWAY,
            utf8.encode("rogue"),
          ),
        ],
      },
    ),
    r(
      "tool-hmac-mismatch",
      "tool-hmac-mismatch",
      "a tool receipt's joules_uj raised after the gateway's HMAC",
      { ...nine, tool_receipts: [{ ...trs[0], joules_uj: 4300 }, trs[1]] },
    ),
    r(
      "hmac-field-nul",
      "hmac-field-nul",
      "a tool receipt's tool_id contains NUL (ambiguous HMAC payload, JCR-1 §5)",
      {
        ...nine,
        tool_receipts: [{ ...trs[0], tool_id: "iac:aws.ec2\u0000.describe" }, trs[1]],
      },
    ),
    // honesty (JCR-1 §2.3, §6 step 5)
    r(
      "provenance-not-worst",
      "provenance-not-worst",
      "slot 8 quietly upgraded to HwShunt (JCR-1 §9: the spec's spine)",
      { ...c["jcr1-08-mixed-span-worst-counter"], energy_provenance: "HwShunt" },
    ),
    r("joules-below-tools", "joules-below-tools", "joules_uj 100 < Σ tools_touched 180", {
      ...two,
      joules_uj: 100,
    }),
    r(
      "sub-mj-precision",
      "sub-mj-precision",
      "a ModelBased total of 3,500,001 µJ claims sub-mJ precision",
      {
        ...c["jcr1-05-l3-local-model"],
        joules_uj: 3_500_001,
      },
    ),
    r(
      "claims-on-deterministic-tier",
      "claims-on-deterministic-tier",
      "an L1 receipt carrying a claim",
      {
        ...two,
        claims: (c["jcr1-04-l2-retrieval-grounded"].claims as Core[]).slice(0, 1),
      },
    ),
    // joules (JCR-1 §6 step 6, §7.1): out of band is an alert, not a refusal (SPEC §6), so its
    // vector is jcr1.json's jcr1-13-alert-out-of-band
    // several independent failures are all reported
    neg(
      "multiple-failures",
      "bad-signature",
      "signed by the wrong key AND quietly upgraded provenance: both steps fail",
      "1",
      k,
      seal({ ...c["jcr1-08-mixed-span-worst-counter"], energy_provenance: "HwShunt" }, {
        ...OTHER,
        kid: k,
      }),
      ["bad-signature", "provenance-not-worst"],
    ),
  ];

  // policy/1 (SPEC §10.1)
  const pol = policyCores()["policy-4-allow-with-digest"];
  out.push(
    r(
      "policy-digest-mismatch",
      "policy-digest-mismatch",
      "policy_digest of a policy the operator did not supply",
      { ...pol, policy_digest: policyDigest(FOREIGN_POLICY) },
      undefined,
      POLICY_STEWARD,
      "policy/1",
    ),
  );
  out.push(
    r(
      "policy-rule-mismatch",
      "policy-rule-mismatch",
      "an allow attributed to no-shell, a deny rule of the bound policy",
      { ...pol, decision: { kind: "allow", rule: "no-shell" } },
      undefined,
      POLICY_STEWARD,
      "policy/1",
    ),
  );
  out.push(
    r(
      "policy-digest-uppercase",
      "bad-field-value",
      "policy_digest in uppercase hex",
      { ...pol, policy_digest: policyDigest(POLICY).toUpperCase() },
      undefined,
      POLICY_STEWARD,
      "policy/1",
    ),
  );

  // verdict-receipt/1 (SPEC §16.7)
  const v = verdictCore();
  out.push(
    r(
      "verdict-hash-mismatch",
      "verdict-hash-mismatch",
      "verdict_hash is not BLAKE3(verdict_json)",
      { ...v, verdict_hash: b3("another verdict") },
      undefined,
      VERDICT_STEWARD,
      "verdict-receipt/1",
    ),
  );
  const notJson = '{"jc_verdict": "verdict/1",';
  out.push(
    r(
      "verdict-json-invalid",
      "verdict-json-invalid",
      "verdict_json is truncated JSON (hash matches)",
      { ...v, verdict_json: notJson, verdict_hash: b3(notJson) },
      undefined,
      VERDICT_STEWARD,
      "verdict-receipt/1",
    ),
  );
  const otherJson = (v.verdict_json as string).replace(
    v.contract_hash as string,
    b3("another contract"),
  );
  out.push(
    r(
      "verdict-contract-mismatch",
      "verdict-contract-mismatch",
      "the verdict was produced against another contract",
      { ...v, verdict_json: otherJson, verdict_hash: b3(otherJson) },
      undefined,
      VERDICT_STEWARD,
      "verdict-receipt/1",
    ),
  );

  // jcp/2, jcp/1 (JCP §8, §8.1, §5.2)
  const j = jcpCores();
  const jr = (name: string, covers: string, d: string, core: Core) =>
    r(name, covers, d, core, undefined, JCP_STEWARD, "jcp/2");
  out.push(
    jr("deny-reason-misplaced", "deny-reason-misplaced", "an allow carrying deny_reason", {
      ...j["jcp2-1-allow"],
      deny_reason: "budget-exceeded",
    }),
  );
  out.push(
    jr(
      "deny-reason-missing",
      "deny-reason-misplaced",
      "a deny without deny_reason",
      (({ deny_reason: _d, ...rest }) => rest)(j["jcp2-2-deny"]),
    ),
  );
  out.push(
    jr(
      "bad-coverage",
      "bad-coverage",
      'energy_coverage "Whole" (JCP §5.2: carried only as Partial)',
      { ...j["jcp2-2-deny"], energy_coverage: "Whole" },
    ),
  );
  out.push(
    jr(
      "chain-length-mismatch",
      "chain-length-mismatch",
      "chain_debited_uj has 2 entries for 3 chain_ids",
      { ...j["jcp2-3-chained"], chain_debited_uj: [1200, 800] },
    ),
  );
  out.push(
    jr(
      "jcp2-missing-payload-hash",
      "missing-field",
      "a jcp/2 receipt without payload_hash (JCP §8 MUST)",
      (({ payload_hash: _p, ...rest }) => rest)(j["jcp2-1-allow"]),
    ),
  );
  const legacyWithPayload = { ...jcp1Core(), payload_hash: b3("payload") };
  out.push(
    neg(
      "jcp1-with-payload-hash",
      "field-not-allowed",
      "a jcp/1-tagged core carrying payload_hash (a mislabelled jcp/2)",
      "jcp/1",
      JCP1_STEWARD.kid,
      sealBytes(coreBytes(legacyWithPayload), JCP1_STEWARD),
    ),
  );
  return out;
}
