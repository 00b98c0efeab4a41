// JCR-1 §7.3: the ten vector slots of the cascade receipt (jc_receipt "1"), plus two more that pin
// behaviours the slots do not show (a u64 above 2^53-1; an unknown field ignored, JCR-1 §1.4).

import { computeToolReceiptHmac } from "../../verify/mod.ts";
import { seal } from "./build.ts";
import { b3, GATEWAY_KEYS, INPUT, KERI, STEWARD, T } from "./config.ts";
import { alert, valid, type Vector, vector } from "./vector.ts";

type Core = Record<string, unknown>;

/** A tool receipt (JCR-1 §2.6) with its gateway HMAC (§5). */
export async function toolReceipt(
  tool_id: string,
  joules_uj: number,
  energy_provenance: string,
  gateway_id: string,
  key: Uint8Array = GATEWAY_KEYS[gateway_id],
): Promise<Core> {
  const f = { tool_id, joules_uj, energy_provenance, minted_at: T.minted, gateway_id };
  return { ...f, hmac_sha256_hex: await computeToolReceiptHmac(key, f) };
}

/** Base fields of a cascade receipt. */
export function cascade(id: string, fields: Core): Core {
  return { jc_receipt: "1", id, closed_at: T.closed, steward: STEWARD.kid, ...fields };
}

/** The slot cores, by name (negative vectors start from these). */
export async function jcr1Cores(): Promise<Record<string, Core>> {
  return {
    "jcr1-01-l0-cache-hit": cascade("rcpt-000001", {
      input_hash: INPUT.cache,
      tier: "L0",
      joules_uj: 3,
      energy_provenance: "HwShunt",
      tools_touched: [{
        tool_id: "cache:blake3-lookup",
        joules_uj: 3,
        energy_provenance: "HwShunt",
      }],
      claims: [],
    }),
    "jcr1-02-l1-deterministic": cascade("rcpt-000002", {
      input_hash: INPUT.lawful,
      tier: "L1",
      joules_uj: 180,
      energy_provenance: "HwShunt",
      tools_touched: [{
        tool_id: "lawful:regex-extract",
        joules_uj: 180,
        energy_provenance: "HwShunt",
      }],
      claims: [],
    }),
    // JCR-1 §10's worked example: an IaC describe call, steward a KERI AID.
    "jcr1-03-l1-iac-tool-only": {
      ...cascade("rcpt-000128", {
        input_hash: INPUT.iac,
        tier: "L1",
        joules_uj: 4200,
        energy_provenance: "HwShunt",
        tools_touched: [{
          tool_id: "iac:aws.ec2.describe",
          joules_uj: 4200,
          energy_provenance: "HwShunt",
        }],
        claims: [],
      }),
      steward: KERI.kid,
    },
    "jcr1-04-l2-retrieval-grounded": cascade("rcpt-000004", {
      input_hash: INPUT.retrieval,
      tier: "L2",
      joules_uj: 640,
      energy_provenance: "HwShunt",
      tools_touched: [
        { tool_id: "embed:bge-small-en", joules_uj: 520, energy_provenance: "HwShunt" },
        { tool_id: "retrieve:hybrid-index", joules_uj: 120, energy_provenance: "HwShunt" },
      ],
      claims: [
        {
          source: "https://en.wikipedia.org/wiki/Gemma_(model)",
          content_hash: b3("gemma article bytes"),
          fetched_at: T.fetched,
          trust_tier: 9,
        },
        {
          source: "doi:10.48550/arXiv.2403.08295",
          content_hash: b3("gemma paper bytes"),
          fetched_at: T.fetched,
          trust_tier: 10,
        },
      ],
    }),
    // SPEC §2's example receipt: a local model, vendor estimate (ModelBased), millijoule-quantised.
    "jcr1-05-l3-local-model": cascade("rcpt-000005", {
      input_hash: INPUT.local,
      tier: "L3",
      joules_uj: 3_500_000,
      energy_provenance: "ModelBased",
      tools_touched: [{
        tool_id: "model:gemma4-9b-q5_k_m",
        joules_uj: 3_500_000,
        energy_provenance: "ModelBased",
      }],
      claims: [],
    }),
    "jcr1-06-l3-with-citations": cascade("rcpt-000006", {
      input_hash: INPUT.cited,
      tier: "L3",
      joules_uj: 2_100_000,
      energy_provenance: "HwShunt",
      tools_touched: [{
        tool_id: "model:gemma4-9b-q5_k_m",
        joules_uj: 2_100_000,
        energy_provenance: "HwShunt",
      }],
      claims: [{
        source: "https://www.apache.org/licenses/LICENSE-2.0",
        content_hash: b3("apache-2.0 text"),
        fetched_at: T.fetched,
        trust_tier: 10,
      }],
      citations: [
        {
          text_span: { start: 0, end: 48 },
          source_chunk_id: "apache-2.0#s2",
          exact_quote: "Grant of Copyright License.",
        },
        {
          text_span: { start: 48, end: 48 },
          source_chunk_id: "apache-2.0#s3",
          exact_quote: "Grant of Patent License.",
        },
      ],
    }),
    "jcr1-07-l4-wire-with-claims": cascade("rcpt-000007", {
      input_hash: INPUT.wire,
      tier: "L4",
      joules_uj: 42_000_000,
      energy_provenance: "Estimator",
      tools_touched: [{
        tool_id: "wire:frontier-rpc",
        joules_uj: 42_000_000,
        energy_provenance: "Estimator",
      }],
      claims: [
        {
          source: "https://en.wikipedia.org/wiki/Euclid%27s_theorem",
          content_hash: b3("euclid theorem bytes"),
          fetched_at: T.fetched,
          trust_tier: 8,
        },
        {
          source: "did:plc:4mathlib0000000000000000",
          content_hash: b3("mathlib primes bytes"),
          fetched_at: T.fetched,
          trust_tier: 7,
        },
      ],
      eoc_stage: "escalate",
    }),
    // JCR-1 §2.3: a HwShunt GPU read and an Estimator NPU read → the receipt says Estimator.
    "jcr1-08-mixed-span-worst-counter": cascade("rcpt-000008", {
      input_hash: INPUT.mixed,
      tier: "L3",
      joules_uj: 1_735_000,
      energy_provenance: "Estimator",
      tools_touched: [
        { tool_id: "model:whisper-small@gpu", joules_uj: 1_234_567, energy_provenance: "HwShunt" },
        { tool_id: "model:nllb-600m@npu", joules_uj: 500_000, energy_provenance: "Estimator" },
      ],
      claims: [],
    }),
    "jcr1-09-gateway-tool-receipt-hmac": cascade("rcpt-000009", {
      input_hash: INPUT.gateway,
      tier: "L1",
      joules_uj: 5400,
      energy_provenance: "HwShunt",
      tools_touched: [
        { tool_id: "iac:aws.ec2.describe", joules_uj: 4200, energy_provenance: "HwShunt" },
        { tool_id: "mcp:filesystem/read", joules_uj: 1200, energy_provenance: "HwShunt" },
      ],
      claims: [],
      tool_receipts: [
        await toolReceipt("iac:aws.ec2.describe", 4200, "HwShunt", "gw-edge-7"),
        await toolReceipt("mcp:filesystem/read", 1200, "HwShunt", "gw-core-2"),
      ],
    }),
    // An L3 resolution promoted to a deterministic skill: it now closes at L1 for L1 cost.
    "jcr1-10-promoted-skill": cascade("rcpt-000010", {
      input_hash: INPUT.skill,
      tier: "L1",
      joules_uj: 950,
      energy_provenance: "HwShunt",
      tools_touched: [{
        tool_id: "skill:promoted/summarise-invoice",
        joules_uj: 950,
        energy_provenance: "HwShunt",
      }],
      claims: [],
      eoc_stage: "promoted",
    }),
  };
}

const DESCRIPTIONS: Record<string, string> = {
  "jcr1-01-l0-cache-hit": "JCR-1 §7.3 slot 1: L0 cache hit (3 µJ, HwShunt), claims empty",
  "jcr1-02-l1-deterministic": "JCR-1 §7.3 slot 2: L1 deterministic primitive, no model",
  "jcr1-03-l1-iac-tool-only":
    "JCR-1 §7.3 slot 3: L1 IaC tool-only (the §10 worked example); steward is a KERI AID resolved by the key directory",
  "jcr1-04-l2-retrieval-grounded": "JCR-1 §7.3 slot 4: L2 retrieval-grounded, two claims",
  "jcr1-05-l3-local-model":
    "JCR-1 §7.3 slot 5: L3 local model, ModelBased, whole millijoules; within the ±35% band of the reference vector",
  "jcr1-06-l3-with-citations":
    "JCR-1 §7.3 slot 6: L3 with citations (half-open text spans, one empty), HwShunt",
  "jcr1-07-l4-wire-with-claims":
    "JCR-1 §7.3 slot 7: L4 wire with claims, Estimator; within the ±100% band",
  "jcr1-08-mixed-span-worst-counter":
    "JCR-1 §7.3 slot 8: mixed span HwShunt + Estimator → Estimator (worst counter), total rounded to whole mJ",
  "jcr1-09-gateway-tool-receipt-hmac":
    "JCR-1 §7.3 slot 9: two gateway tool receipts, HMAC-SHA-256 under gw-edge-7 and gw-core-2",
  "jcr1-10-promoted-skill":
    "JCR-1 §7.3 slot 10: promoted skill (L3-derived → L1 cost); within the ±10% HwShunt band",
};

/** Step codes a slot's valid report must carry beyond plain passes. */
function stepsOf(name: string): Record<string, string> {
  const s: Record<string, string> = {};
  s.tool_receipts = name === "jcr1-09-gateway-tool-receipt-hmac" ? "" : "no-tool-receipts";
  s.joules =
    ["jcr1-05-l3-local-model", "jcr1-07-l4-wire-with-claims", "jcr1-10-promoted-skill"].includes(
        name,
      )
      ? "within-band"
      : "joule-unverified";
  if (!s.tool_receipts) delete s.tool_receipts;
  return s;
}

/** The positive cascade-receipt vectors. */
export async function jcr1Vectors(): Promise<Vector[]> {
  const cores = await jcr1Cores();
  const out: Vector[] = [];
  for (const [name, core] of Object.entries(cores)) {
    const signer = core.steward === STEWARD.kid ? STEWARD : KERI;
    out.push(
      vector({
        name,
        description: DESCRIPTIONS[name],
        schema: "1",
        signer: signer.kid,
        expected: valid(stepsOf(name)),
      }, seal(core, signer)),
    );
  }
  const huge = cascade("rcpt-000011", {
    input_hash: INPUT.huge,
    tier: "L4",
    joules_uj: 18_446_744_073_709_551_000n,
    energy_provenance: "Estimator",
    tools_touched: [{
      tool_id: "wire:frontier-rpc",
      joules_uj: 9_007_199_254_740_993_000n,
      energy_provenance: "Estimator",
    }],
    claims: [],
  });
  out.push(vector({
    name: "jcr1-11-u64-above-2^53",
    description:
      "joules_uj near 2^64-1: the JSON projection carries u64 above 2^53-1 as decimal strings; Σ and floors in exact integers",
    schema: "1",
    signer: STEWARD.kid,
    expected: valid({ tool_receipts: "no-tool-receipts", joules: "joule-unverified" }),
  }, seal(huge, STEWARD)));
  const unknown = {
    ...cores["jcr1-02-l1-deterministic"],
    id: "rcpt-000012",
    x_vendor_note: "ignored by verifiers",
    x_vendor_rev: 3,
  };
  out.push(vector({
    name: "jcr1-12-unknown-fields-ignored",
    description:
      "JCR-1 §1 invariant 4: unknown fields are ignored, never rejected (they stay signed)",
    schema: "1",
    signer: STEWARD.kid,
    expected: valid({ tool_receipts: "no-tool-receipts", joules: "joule-unverified" }),
  }, seal(unknown, STEWARD)));
  // SPEC §6: drift beyond the band is "a non-conformance signal, not a hard failure" — the
  // receipt is sound (steps 1-5 pass) and classed alert, with the figures in drift_alert.
  out.push(vector(
    {
      name: "jcr1-13-alert-out-of-band",
      description:
        "HwShunt 2.1 J against a 1.5 J reference: outside ±10%, verdict alert (SPEC §6 DriftAlert), appended",
      schema: "1",
      signer: STEWARD.kid,
      expected: alert(),
    },
    seal(
      { ...cores["jcr1-06-l3-with-citations"], id: "rcpt-000013", input_hash: INPUT.drift },
      STEWARD,
    ),
  ));
  return out;
}
