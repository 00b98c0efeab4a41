// Public surface of verify/ (docs/CONTRACTS.md). Pure: web-standard APIs only.
export {
  blake3,
  bytesEqual,
  compareBytes,
  concatBytes,
  constantTimeEqual,
  entryLeafHash,
  fromHex,
  HEX64,
  includesAscii,
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
export { type SequencePrefix, splitCoseSequence, splitCoseSequencePrefix } from "./cbor_seq.ts";
export { CborError, VerifyInputError } from "./errors.ts";
export { isReasonCode, REASON_CODES } from "./codes.ts";
export type { ReasonCode } from "./codes.ts";
export {
  ed25519Backend,
  ed25519GenerateSecret,
  ed25519PublicKey,
  ed25519Sign,
  ed25519StrictPrecheck,
  ed25519Verify,
  ed25519VerifyPure,
  setWebCryptoEd25519,
  SMALL_ORDER_ENCODINGS,
  SMALL_ORDER_NONCANONICAL,
} from "./ed25519.ts";
export {
  base58btcDecode,
  base58btcEncode,
  didKeyFromP256PublicKey,
  didKeyFromPublicKey,
  publicKeyFromDidKey,
  resolveDidKey,
} from "./did_key.ts";
export type { DidKeyAlg, TypedPublicKey } from "./did_key.ts";
export { KeyDirectory } from "./key_directory.ts";
export {
  COSE_ALG_EDDSA,
  COSE_ALG_ES256,
  coseProtectedHeader,
  coseSign1,
  coseSign1Es256,
  coseSigStructure,
  parseCoseSign1,
} from "./cose.ts";
export type { CoseSign1 } from "./cose.ts";
export {
  checkToolReceiptHmac,
  computeToolReceiptHmac,
  PROVENANCE_TAGS,
  toolReceiptHmacPayload,
  verifyToolReceipt,
  verifyToolReceiptHmac,
} from "./hmac.ts";
export type { ToolReceiptHmacFields, ToolReceiptWithTag } from "./hmac.ts";
// JCP §5: the meter-reading/1 rules the meter agent grades with and the verifier re-checks.
export * as meterReading from "./profiles/meter_reading.ts";
// JCR-1 §6: the verifier and its report; receipt profiles by schema tag; SPEC §10.1 policy_digest.
export {
  CANONICAL_FORM_CODES,
  failureCodes,
  receiptOf,
  STEP_NAMES,
  verifyEnvelope,
} from "./report.ts";
export type { VerificationReport, VerificationStep, VerifierOptions } from "./report.ts";
export {
  driftAlert,
  isVerdict,
  loggedVerdict,
  VERDICT_MEANINGS,
  verdictOf,
  VERDICTS,
} from "./verdict_class.ts";
export type { DriftAlert, Verdict } from "./verdict_class.ts";
export {
  activityFigure,
  assertMintable,
  dispatch,
  DRIFT_BAND_PERCENT,
  REGISTRY,
  sumFigures,
  traceOutcome,
  withinDriftBand,
} from "./profiles/mod.ts";
export type {
  ActivityFigure,
  DriftFigures,
  Profile,
  ProfileOptions,
  StepOutcome,
} from "./profiles/mod.ts";
export { parsePolicy, policyDigest, policyDigestPreimage, PolicyError } from "./policy_digest.ts";
export type { Policy, PolicyAction, PolicyAgents, PolicyRule } from "./policy_digest.ts";
export { ALERT_CODES, INFORMATIONAL_CODES, NOT_VERIFICATION_OUTCOMES } from "./codes.ts";
export { mergeOptions, optionsFromConfig } from "./operator_config.ts";
export {
  es256Backend,
  es256Malleate,
  es256Sign,
  es256SignatureForm,
  es256Verify,
  es256VerifyPure,
  P256_N,
  p256Compress,
  p256GenerateSecret,
  p256KeyProblem,
  p256PublicKey,
  setWebCryptoEs256,
} from "./p256.ts";
export type { Es256Refusal } from "./p256.ts";
export { envelopeContentId } from "./content_id.ts";
export {
  type EnvelopeFault,
  type EnvelopeForm,
  envelopeFromInput,
  type EnvelopeInput,
  readEnvelopeInput,
} from "./envelope_input.ts";
export { hmacSha256, sha256 } from "./sha256.ts";
// issue 23: the configuration in force, published and logged as a verifier-config/1 document.
export {
  openVerifierConfig,
  optionsFromVerifierConfig,
  sameRules,
  sealVerifierConfig,
  VERIFIER_CONFIG_SCHEMA,
  verifierConfigCoreOf,
  verifierConfigDigest,
  verifierConfigRules,
} from "./verifier_config.ts";
export type { VerifierConfigDoc, VerifierConfigRules } from "./verifier_config.ts";
export {
  jcpObjectKind,
  jcpObjectSignatureProblem,
  mayBeJcpObject,
  readJcpObject,
  sealJcpObject,
  SIGNER_FIELD,
} from "./jcp_object.ts";
export type { JcpObject, JcpObjectKind } from "./jcp_object.ts";
// JCP §4 grants, §4.3 revocations: field types and attenuation (issue 25; docs/GRANTS.md).
export {
  attenuationProblem,
  contentIdBytes,
  grantFieldProblem,
  revocationFieldProblem,
} from "./jcp_grant.ts";
export type { AttenuationCode } from "./jcp_grant.ts";
