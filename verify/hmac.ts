// Tool-receipt HMAC sub-signatures (JCR-1 §5):
//   HMAC-SHA-256(gateway_key, tool_id ‖ 0x00 ‖ ascii(joules_uj) ‖ 0x00 ‖ prov_tag ‖ 0x00 ‖
//                minted_at ‖ 0x00 ‖ gateway_id)
// lowercase hex, compared in constant time. Gateway keys come from operator configuration
// (VerifierOptions.gatewayKeys), looked up by gateway_id. HMAC-SHA-256 is verify/sha256.ts's
// synchronous implementation (cross-checked against WebCrypto and Python): a WebCrypto round trip
// per tag cost ~20-30 µs, more than the rest of a receipt's checks.
import { constantTimeEqual, HEX64, toHex } from "./bytes.ts";
import { VerifyInputError } from "./errors.ts";
import { hmacSha256 } from "./sha256.ts";

/** The fields of a ToolReceipt (JCR-1 §2.6) that the HMAC covers. */
export interface ToolReceiptHmacFields {
  tool_id: string;
  joules_uj: number | bigint;
  energy_provenance: string;
  minted_at: string;
  gateway_id: string;
}

/** JCR-1 §5: prov_tag ∈ {HwShunt, ModelBased, Estimator}. */
export const PROVENANCE_TAGS: readonly string[] = ["HwShunt", "ModelBased", "Estimator"];
const utf8 = new TextEncoder();

function textField(name: string, v: unknown): string {
  if (typeof v !== "string") {
    throw new VerifyInputError(
      "hmac-field-nul",
      `Cannot build HMAC payload: ${name} is not a string`,
    );
  }
  // a NUL inside a field would make the NUL-delimited payload ambiguous (JCR-1 §5)
  if (v.includes("\0")) {
    throw new VerifyInputError("hmac-field-nul", `Cannot build HMAC payload: ${name} contains NUL`);
  }
  return v;
}

/**
 * The exact NUL-delimited payload of JCR-1 §5. Throws VerifyInputError for a field containing NUL
 * ("hmac-field-nul"), a joules_uj that is not a non-negative integer ("hmac-bad-joules") or an
 * unknown provenance ("hmac-bad-provenance").
 *
 * @example toolReceiptHmacPayload({ tool_id: "t", joules_uj: 42, energy_provenance: "HwShunt", minted_at: "2026-05-31T18:04:22Z", gateway_id: "gw" })
 */
export function toolReceiptHmacPayload(f: ToolReceiptHmacFields): Uint8Array {
  const tool = textField("tool_id", f.tool_id);
  const j = f.joules_uj;
  const validJ = (typeof j === "number" && Number.isSafeInteger(j) && j >= 0) ||
    (typeof j === "bigint" && j >= 0n && j < 1n << 64n);
  if (!validJ) {
    throw new VerifyInputError(
      "hmac-bad-joules",
      `Cannot build HMAC payload: joules_uj ${String(j)} is not a u64`,
    );
  }
  const prov = textField("energy_provenance", f.energy_provenance);
  if (!PROVENANCE_TAGS.includes(prov)) {
    throw new VerifyInputError(
      "hmac-bad-provenance",
      `Cannot build HMAC payload: provenance ${JSON.stringify(prov)} is unknown`,
    );
  }
  const minted = textField("minted_at", f.minted_at);
  const gw = textField("gateway_id", f.gateway_id);
  // JCR-1 §5: joules_uj as decimal ASCII (no sign, no leading zeros, no exponent)
  return utf8.encode([tool, j.toString(10), prov, minted, gw].join("\0"));
}

/** HMAC-SHA-256(key, payload) as 32 raw bytes; the payload's codes first, then the key's. */
function hmacBytes(key: Uint8Array, f: ToolReceiptHmacFields): Uint8Array {
  const payload = toolReceiptHmacPayload(f);
  if (!(key instanceof Uint8Array) || key.length === 0) {
    throw new VerifyInputError(
      "hmac-bad-key",
      "Cannot use gateway key: not a non-empty Uint8Array",
    );
  }
  return hmacSha256(key, payload);
}

/**
 * The tool receipt's hmac_sha256_hex (JCR-1 §5): 64 lowercase hex digits.
 * @example await computeToolReceiptHmac(gatewayKey, fields) // "3f1a...c0"
 */
export function computeToolReceiptHmac(
  key: Uint8Array,
  f: ToolReceiptHmacFields,
): Promise<string> {
  return settle(() => toHex(hmacBytes(key, f)));
}

/** The value of `f` as a promise; what it throws as a rejection (as an async function would). */
function settle<T>(f: () => T): Promise<T> {
  try {
    return Promise.resolve(f());
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * Checks a tool receipt's tag in constant time (JCR-1 §5). Resolves false on a mismatch; rejects
 * with VerifyInputError("hmac-bad-tag-format") when the tag is not 64 lowercase hex digits, and the
 * payload builder's codes for malformed fields.
 *
 * @example await verifyToolReceiptHmac(gatewayKey, fields, receipt.hmac_sha256_hex) // true | false
 */
export function verifyToolReceiptHmac(
  key: Uint8Array,
  f: ToolReceiptHmacFields,
  tagHex: string,
): Promise<boolean> {
  return settle(() => checkToolReceiptHmac(key, f, tagHex));
}

/**
 * verifyToolReceiptHmac, synchronously: true or false, or throws the same VerifyInputError codes.
 * What the verifier's step 4 calls (no await per tag).
 *
 * @example checkToolReceiptHmac(gatewayKey, fields, receipt.hmac_sha256_hex) // true | false
 */
export function checkToolReceiptHmac(
  key: Uint8Array,
  f: ToolReceiptHmacFields,
  tagHex: string,
): boolean {
  if (typeof tagHex !== "string" || !HEX64.test(tagHex)) {
    throw new VerifyInputError(
      "hmac-bad-tag-format",
      "Cannot verify tool-receipt HMAC: tag is not 64 lowercase hex digits",
    );
  }
  const expected = hmacBytes(key, f);
  const given = new Uint8Array(32);
  for (let i = 0; i < 32; i++) given[i] = parseInt(tagHex.slice(2 * i, 2 * i + 2), 16);
  return constantTimeEqual(expected, given); // JCR-1 §5: "Comparison MUST be constant-time."
}

/** A ToolReceipt (JCR-1 §2.6) with its tag. */
export interface ToolReceiptWithTag extends ToolReceiptHmacFields {
  hmac_sha256_hex: string;
}

/**
 * Checks a whole tool receipt's hmac_sha256_hex against the gateway key (JCR-1 §5), in constant
 * time. Same answers and errors as verifyToolReceiptHmac.
 *
 * @example await verifyToolReceipt(receipt, gatewayKeys[receipt.gateway_id]) // true | false
 */
export function verifyToolReceipt(receipt: ToolReceiptWithTag, key: Uint8Array): Promise<boolean> {
  return verifyToolReceiptHmac(key, receipt, receipt.hmac_sha256_hex);
}
