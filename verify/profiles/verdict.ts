// JouleClaw SPEC §16.7 — the verdict receipt (jc_receipt "verdict-receipt/1"): a §16.5
// ContractVerdict carried as a JSON string, bound by its BLAKE3 hash and its contract_hash.

import { blake3, toHex } from "../bytes.ts";
import type { CborMap } from "../cbor.ts";
import { checkFields, F, type FieldTable, req, text } from "./fields.ts";
import { failWith, NOT_APPLICABLE, PASS, type Profile, type StepOutcome } from "./types.ts";

/** SPEC §16.7 signed core (the verdict travels as `verdict_json`, never as a nested object). */
export const VERDICT_FIELDS: FieldTable = {
  jc_receipt: req(F.text),
  id: req(F.text),
  closed_at: req(F.rfc3339),
  steward: req(F.text),
  engine_id: req(F.text),
  audit_sequence: req(F.uint),
  contract_hash: req(F.hex64),
  verdict_json: req(F.text),
  verdict_hash: req(F.hex64),
};

const utf8 = new TextEncoder();

function honesty(core: CborMap): StepOutcome {
  const json = text(core, "verdict_json")!;
  const hash = text(core, "verdict_hash")!;
  // SPEC §16.7: verdict_hash is hex BLAKE3 of the verdict_json bytes.
  const actual = toHex(blake3(utf8.encode(json)));
  if (actual !== hash) {
    return failWith({
      code: "verdict-hash-mismatch",
      detail: `verdict_hash ${hash} ≠ BLAKE3(verdict_json) ${actual}`,
    });
  }
  let verdict: unknown;
  try {
    verdict = JSON.parse(json);
  } catch (e) {
    return failWith({
      code: "verdict-json-invalid",
      detail: `verdict_json does not parse: ${(e as Error).message}`,
    });
  }
  if (typeof verdict !== "object" || verdict === null || Array.isArray(verdict)) {
    return failWith({
      code: "verdict-json-invalid",
      detail: "verdict_json is not a JSON object (SPEC §16.5 ContractVerdict)",
    });
  }
  // SPEC §16.7: contract_hash equals the hash of the contract the verdict was produced against,
  // which the verdict itself names (§16.5).
  const inner = (verdict as Record<string, unknown>).contract_hash;
  if (inner !== text(core, "contract_hash")) {
    return failWith({
      code: "verdict-contract-mismatch",
      detail: `the verdict's contract_hash ${JSON.stringify(inner)} ≠ the receipt's ${
        text(core, "contract_hash")
      }`,
    });
  }
  return PASS;
}

/** The verdict receipt profile, schema tag `jc_receipt: "verdict-receipt/1"`. */
export const verdictProfile: Profile = {
  schema: "verdict-receipt/1",
  tagField: "jc_receipt",
  produced: true,
  // SPEC §16.7: the envelope is `protected = {1: -8, 4: steward}`, EdDSA only (docs/DECISIONS.md).
  algs: [-8],
  fields: VERDICT_FIELDS,
  structure: (core) => checkFields(core, VERDICT_FIELDS),
  toolReceipts: () => NOT_APPLICABLE,
  honesty,
  joules: () => NOT_APPLICABLE,
};
