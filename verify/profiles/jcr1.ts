// JCR-1 (jc_receipt "1") — the cascade receipt: §2 fields, §5 tool-receipt HMACs, §6 steps 4-6,
// §7.1 drift bands. JouleClaw SPEC §1.3 (honest provenance) and §2 (worst counter) say the same.

import type { CborMap } from "../cbor.ts";
import { checkToolReceiptHmac, type ToolReceiptHmacFields } from "../hmac.ts";
import { VerifyInputError } from "../errors.ts";
import {
  checkFields,
  F,
  type FieldTable,
  type Finding,
  list,
  opt,
  req,
  text,
  uint,
} from "./fields.ts";
import { failWith, PASS, type Profile, type ProfileOptions, type StepOutcome } from "./types.ts";

/** JCR-1 §2.3 provenance tags, most honest first. */
export const PROVENANCES = ["HwShunt", "ModelBased", "Estimator"] as const;
/** JCR-1 §2.2 tier wire tags. */
export const TIERS = ["L0", "L1", "L2", "L3", "L4"] as const;

const PROV = F.oneOf(...PROVENANCES);

/** JCR-1 §2.5 ToolTouch. */
const TOOL_TOUCH: FieldTable = {
  tool_id: req(F.text),
  joules_uj: req(F.uint),
  energy_provenance: req(PROV),
};

/** JCR-1 §2.6 ToolReceipt. */
const TOOL_RECEIPT: FieldTable = {
  tool_id: req(F.text),
  joules_uj: req(F.uint),
  energy_provenance: req(PROV),
  minted_at: req(F.rfc3339),
  gateway_id: req(F.text),
  hmac_sha256_hex: req(F.hex64),
};

/** JCR-1 §2.4 ClaimProvenance. */
const CLAIM: FieldTable = {
  source: req(F.text),
  content_hash: req(F.hex64),
  fetched_at: req(F.rfc3339),
  // SPEC §4: "trust_tier is 0..10"; JCR-1 §2.4's u8 is its width, which 0..10 fits (DECISIONS.md).
  trust_tier: req({ t: "uint", max: 10n }),
};

/** JCR-1 §2.7 Citation. */
const CITATION: FieldTable = {
  text_span: req(F.map({ start: req(F.u32), end: req(F.u32) })),
  source_chunk_id: req(F.text),
  exact_quote: req(F.text),
};

/** JCR-1 §2.1 top-level fields of the signed core (§3.1: every field but token_attributions). */
export const JCR1_FIELDS: FieldTable = {
  jc_receipt: req(F.text),
  id: req(F.text),
  closed_at: req(F.rfc3339),
  input_hash: req(F.hex64),
  tier: req(F.oneOf(...TIERS)),
  joules_uj: req(F.uint),
  energy_provenance: req(PROV),
  steward: req(F.text),
  tools_touched: opt(F.arrayOf(F.map(TOOL_TOUCH))),
  claims: opt(F.arrayOf(F.map(CLAIM))),
  tool_receipts: opt(F.arrayOf(F.map(TOOL_RECEIPT))),
  eoc_stage: opt(F.text),
  citations: opt(F.arrayOf(F.map(CITATION))),
};

/** JCR-1 §7.1 drift bands, in percent of the reference figure, per provenance. */
export const DRIFT_BAND_PERCENT: Record<(typeof PROVENANCES)[number], bigint> = {
  HwShunt: 10n,
  ModelBased: 35n,
  Estimator: 100n,
};

/** JCR-1 §2.3: the realistic resolution floor of ModelBased / Estimator figures, 1 mJ. */
export const MJ_QUANTUM_UJ = 1000n;

function rank(p: string): number {
  return PROVENANCES.indexOf(p as (typeof PROVENANCES)[number]);
}

function structure(core: CborMap): Finding | undefined {
  const f = checkFields(core, JCR1_FIELDS);
  if (f) return f;
  // JCR-1 §3.1: token_attributions are advisory, carried outside the signature, never in the core.
  if (core.has("token_attributions")) {
    return {
      code: "field-not-allowed",
      detail: "token_attributions must be carried outside the signed core (JCR-1 §3.1)",
    };
  }
  for (const [i, c] of list(core, "citations").entries()) {
    const span = (c as CborMap).get("text_span") as CborMap;
    // JCR-1 §2.7: text_span is a half-open byte range, so start <= end.
    if (BigInt(span.get("start") as number) > BigInt(span.get("end") as number)) {
      return {
        code: "bad-field-value",
        detail: `citations[${i}].text_span has start > end (half-open range, JCR-1 §2.7)`,
      };
    }
  }
  return undefined;
}

/** JCR-1 §6 step 4: every tool receipt's HMAC, under its gateway's key (§5). Synchronous. */
function toolReceipts(core: CborMap, opts: ProfileOptions): StepOutcome {
  const trs = list(core, "tool_receipts");
  if (trs.length === 0) return { status: "skipped", code: "no-tool-receipts" };
  for (const [i, tr] of trs.entries()) {
    const m = tr as CborMap;
    const gw = text(m, "gateway_id")!;
    const key = opts.gatewayKeys && Object.hasOwn(opts.gatewayKeys, gw)
      ? opts.gatewayKeys[gw]
      : undefined;
    if (!key) {
      // JCR-1 §6 step 4 / §5: no key, no check; an attestation nobody here can check is not passed
      // silently, so the receipt is invalid (docs/DECISIONS.md "A tool receipt naming an unknown
      // gateway is invalid").
      return {
        status: "fail",
        code: "unknown-gateway",
        detail: `tool_receipts[${i}]: no key for gateway "${gw}"`,
      };
    }
    let ok: boolean;
    try {
      ok = checkToolReceiptHmac(key, toolReceiptFields(m), text(m, "hmac_sha256_hex")!);
    } catch (e) {
      if (e instanceof VerifyInputError) {
        return { status: "fail", code: e.code, detail: `tool_receipts[${i}]: ${e.message}` };
      }
      throw e;
    }
    // JCR-1 §6 step 4: a receipt asserting gateway-metered tools whose HMAC fails is invalid.
    if (!ok) {
      return {
        status: "fail",
        code: "tool-hmac-mismatch",
        detail: `tool_receipts[${i}]: HMAC does not verify under gateway "${gw}"`,
      };
    }
  }
  return PASS;
}

/** The JCR-1 §2.6 fields of a checked tool receipt, as the HMAC helper takes them. */
export function toolReceiptFields(m: CborMap): ToolReceiptHmacFields {
  return {
    tool_id: text(m, "tool_id")!,
    joules_uj: uint(m, "joules_uj")!,
    energy_provenance: text(m, "energy_provenance")!,
    minted_at: text(m, "minted_at")!,
    gateway_id: text(m, "gateway_id")!,
  };
}

/** JCR-1 §6 step 5: worst counter, joules sum, resolution floor; plus SPEC §4 claims on L0/L1. */
function honesty(core: CborMap): StepOutcome {
  const prov = text(core, "energy_provenance")!;
  const joules = uint(core, "joules_uj")!;
  const touched = list(core, "tools_touched") as CborMap[];
  const attested = list(core, "tool_receipts") as CborMap[];

  // JCR-1 §2.3 worst-counter rule (MUST): the least honest reading in the span.
  let worst = -1;
  for (const r of [...touched, ...attested]) {
    worst = Math.max(worst, rank(text(r, "energy_provenance")!));
  }
  if (worst >= 0 && rank(prov) !== worst) {
    return failWith({
      code: "provenance-not-worst",
      detail: `energy_provenance is ${prov} but the worst counter in the span is ${
        PROVENANCES[worst]
      } (JCR-1 §2.3)`,
    });
  }

  // JCR-1 §6 step 5: joules_uj >= Σ tools_touched.joules_uj (u64 arithmetic without overflow).
  let sum = 0n;
  for (const t of touched) sum += uint(t, "joules_uj")!;
  if (joules < sum) {
    return failWith({
      code: "joules-below-tools",
      detail: `joules_uj ${joules} < Σ tools_touched.joules_uj ${sum} (JCR-1 §6 step 5)`,
    });
  }

  // JCR-1 §2.3 resolution floor (MUST): ModelBased / Estimator figures never claim sub-mJ precision.
  const figures: [string, CborMap][] = [["receipt", core]];
  touched.forEach((t, i) => figures.push([`tools_touched[${i}]`, t]));
  attested.forEach((t, i) => figures.push([`tool_receipts[${i}]`, t]));
  for (const [where, m] of figures) {
    const p = text(m, "energy_provenance")!;
    const j = uint(m, "joules_uj")!;
    if (p !== "HwShunt" && j % MJ_QUANTUM_UJ !== 0n) {
      return failWith({
        code: "sub-mj-precision",
        detail:
          `${where}: ${p} figure ${j} µJ implies sub-millijoule precision (JCR-1 §2.3 resolution floor)`,
      });
    }
  }

  // JCR-1 §2.1 / SPEC §1.1: L0 (cache) and L1 (deterministic) resolutions are grounded by no claims.
  const tier = text(core, "tier")!;
  if ((tier === "L0" || tier === "L1") && list(core, "claims").length > 0) {
    return failWith({
      code: "claims-on-deterministic-tier",
      detail: `claims must be empty for ${tier} (JCR-1 §2.1)`,
    });
  }
  return PASS;
}

/**
 * Whether `claimed` lies within the JCR-1 §7.1 drift band of `reference` for a provenance
 * (inclusive: |claimed − reference| · 100 ≤ band% · reference, in exact integer arithmetic).
 */
export function withinDriftBand(claimed: bigint, reference: bigint, provenance: string): boolean {
  const band = DRIFT_BAND_PERCENT[provenance as (typeof PROVENANCES)[number]];
  const diff = claimed > reference ? claimed - reference : reference - claimed;
  return diff * 100n <= band * reference;
}

/** JCR-1 §6 step 6: joule re-validation against an operator-loaded reference vector. */
function joules(core: CborMap, opts: ProfileOptions): StepOutcome {
  const input = text(core, "input_hash")!;
  const ref = opts.referenceVectors && Object.hasOwn(opts.referenceVectors, input)
    ? opts.referenceVectors[input]
    : undefined;
  // JCR-1 §6 step 6: absent vectors, the receipt is signature-valid but joule-unverified.
  if (!ref) {
    return {
      status: "skipped",
      code: "joule-unverified",
      detail: "no reference vector for this input_hash",
    };
  }
  const reference = BigInt(ref.joules_uj);
  const claimed = uint(core, "joules_uj")!;
  const prov = text(core, "energy_provenance")!;
  const band = DRIFT_BAND_PERCENT[prov as (typeof PROVENANCES)[number]];
  const detail =
    `joules_uj ${claimed} vs reference ${reference} (±${band}% for ${prov}, JCR-1 §7.1)`;
  const drift = {
    input_hash: input,
    provenance: prov,
    joules_uj: claimed,
    reference_uj: reference,
    band_percent: band,
  };
  // SPEC §6: drift beyond the band is "a non-conformance signal, not a hard failure": the step
  // fails, and the report's verdict is `alert` (verify/verdict_class.ts), not `invalid`.
  return withinDriftBand(claimed, reference, prov)
    ? { status: "pass", code: "within-band", detail, drift }
    : { status: "fail", code: "out-of-band", detail, drift };
}

/** The cascade receipt profile, schema tag `jc_receipt: "1"`. */
export const jcr1Profile: Profile = {
  schema: "1",
  tagField: "jc_receipt",
  produced: true,
  fields: JCR1_FIELDS,
  structure,
  toolReceipts,
  honesty,
  joules,
};
