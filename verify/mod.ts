// Public surface of verify/ (docs/CONTRACTS.md). Pure: web-standard APIs only.
export {
  blake3,
  bytesEqual,
  compareBytes,
  concatBytes,
  constantTimeEqual,
  entryLeafHash,
  fromHex,
  toHex,
} from "./bytes.ts";
export {
  CBOR_MAX_DEPTH,
  CBOR_MAX_ITEMS,
  decodeCbor,
  encodeCbor,
  fromJson,
  toJson,
} from "./cbor.ts";
export type { CborEncodable, CborLimits, CborMap, CborValue } from "./cbor.ts";
export { CborError, VerifyInputError } from "./errors.ts";
export { isReasonCode, REASON_CODES } from "./codes.ts";
export type { ReasonCode } from "./codes.ts";
export {
  ed25519GenerateSecret,
  ed25519PublicKey,
  ed25519Sign,
  ed25519StrictPrecheck,
  ed25519Verify,
  ed25519VerifyPure,
  SMALL_ORDER_ENCODINGS,
} from "./ed25519.ts";
export {
  base58btcDecode,
  base58btcEncode,
  didKeyFromPublicKey,
  publicKeyFromDidKey,
} from "./did_key.ts";
export { KeyDirectory } from "./key_directory.ts";
export {
  COSE_ALG_EDDSA,
  COSE_ALG_ES256,
  coseProtectedHeader,
  coseSign1,
  coseSigStructure,
  parseCoseSign1,
} from "./cose.ts";
export type { CoseSign1 } from "./cose.ts";
export {
  computeToolReceiptHmac,
  PROVENANCE_TAGS,
  toolReceiptHmacPayload,
  verifyToolReceipt,
  verifyToolReceiptHmac,
} from "./hmac.ts";
export type { ToolReceiptHmacFields, ToolReceiptWithTag } from "./hmac.ts";
// JCP §5: the meter-reading/1 rules the meter agent grades with and the verifier re-checks.
export * as meterReading from "./profiles/meter_reading.ts";
