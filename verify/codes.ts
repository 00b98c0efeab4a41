// The ONE table of stable reason codes used by verify/ (CBOR, COSE_Sign1, did:key, Ed25519, HMAC,
// and the receipt profiles). Each code is a stable machine-readable string that appears in
// VerifyInputError.code / CborError.code and in the verification report's steps; the value is its
// one-line meaning. Codes are never renamed or reused; new codes are appended.

/** Every stable reason code, with a one-line meaning. Append new codes at the end of a section. */
export const REASON_CODES = {
  // --- bytes / hex
  "bad-hex": "a hex string is not an even number of lowercase hex digits",

  // --- strict deterministic CBOR (RFC 8949 §4.2.1 subset), decoder
  "truncated": "the input ends before the item does, or a declared length runs past the input",
  "trailing-bytes": "bytes remain after the single top-level data item",
  "reserved-ai":
    "a head uses reserved additional information 28-30 (or 31 on major type 0, 1 or 6)",
  "non-shortest-head": "an integer or length is not encoded in the shortest form (RFC 8949 §4.2.1)",
  "indefinite-length": "an indefinite-length string, array or map (forbidden by RFC 8949 §4.2.1)",
  "lone-break": "a break byte (0xff) outside an indefinite-length item",
  "float": "a floating-point value (no floats in the signed core, JCR-1 §3.2)",
  "simple-value": "a simple value (false, true, null, undefined or unassigned)",
  "tag": "a tagged item (no tags in strict deterministic CBOR here)",
  "invalid-utf8": "a text string that is not valid UTF-8",
  "unsorted-keys": "map keys are not in bytewise order of their encodings (RFC 8949 §4.2.1)",
  "duplicate-key": "a map key occurs more than once",
  "unsupported-key": "a map key that is neither an integer nor a text string",
  "too-deep": "arrays/maps nested deeper than the limit (16)",
  "too-many-items": "more data items than the limit (10,000)",
  // --- RFC 8742 CBOR sequences (application/cbor-seq request bodies)
  "empty-sequence": "an application/cbor-seq body with no item",
  "sequence-too-long": "an application/cbor-seq body with more envelopes than the batch limit",
  // --- strict deterministic CBOR, encoder
  "u64-overflow": "an integer outside the CBOR 64-bit argument range [-2^64, 2^64-1]",
  "unsafe-integer": "a JS number integer beyond 2^53-1 in magnitude (use a bigint)",
  "unsupported-type": "a value of a type the canonical encoder does not represent",

  // --- COSE_Sign1 (RFC 9052 §4.2, ARCHITECTURE Decision 2)
  "cose-wrong-tag": "the envelope carries a tag other than a single tag 18 (COSE_Sign1)",
  "cose-not-array": "the envelope is not a CBOR array of exactly 4 items",
  "cose-protected-not-bstr": "the protected header is not a byte string",
  "cose-protected-not-canonical": "the protected header bytes are not strict deterministic CBOR",
  "cose-protected-keys": "the protected header is not a map of exactly {1: alg, 4: kid}",
  "cose-alg-unsupported":
    "retired: alg ES256 (-7) was refused before ES256 was verified (never produced now)",
  "cose-bad-alg": "alg is neither EdDSA (-8) nor ES256 (-7), the JCR-1 §4 algorithms",
  "cose-kid-not-text": "the kid (label 4) is not a text string",
  "cose-unprotected-not-empty": "the unprotected header is not an empty map",
  "cose-payload-not-bstr": "the payload is not a byte string (detached payloads are not supported)",
  "cose-bad-signature":
    "the signature is not a 64-byte byte string (Ed25519 R ‖ S, or ES256 r ‖ s per RFC 9053 §2.1)",

  // --- keys
  "bad-did-key":
    "a did:key is not did:key:z + base58btc(0xed 0x01 || 32-byte key, or 0x80 0x24 || 33-byte P-256 point), round-tripping exactly",
  "bad-key-directory": "an operator key-directory entry is malformed",
  "bad-public-key": "a public key is not 32 bytes (Ed25519) or a valid compressed P-256 point",

  // --- tool-receipt HMAC (JCR-1 §5)
  "hmac-field-nul": "a tool-receipt field used in the HMAC payload contains a NUL byte",
  "hmac-bad-joules": "joules_uj is not a non-negative integer",
  "hmac-bad-provenance": "energy_provenance is not HwShunt, ModelBased or Estimator",
  "hmac-bad-tag-format": "hmac_sha256_hex is not 64 lowercase hex digits",
  "hmac-bad-key": "a gateway HMAC key is empty or not bytes",

  // --- meter-reading/1 (JCP §5, §5.1, §5.2; docs/METER-READING.md): verifier honesty step
  "reading-bad-span": "a meter reading's end is not after its start",
  "reading-bad-genesis": "the meter reading at seq 0 does not carry prev = 64 zeros",
  "reading-provenance-counter":
    "a meter reading claims a provenance its counter cannot give (JCP §5.1)",
  "reading-domain-counter": "a meter reading claims a domain its counter does not read (JCP §5)",
  "reading-coverage":
    "a GPU-domain meter reading does not carry energy_coverage Partial (JCP §5.2)",
  "reading-resolution":
    "energy_uj is finer than the reading's resolution_uj, or resolution_uj below its counter's floor",
  "reading-declined-order":
    "a declined rung is not above the rung that produced the figure (JCP §5.1)",
  "reading-not-live":
    "a HwShunt reading's liveness evidence does not meet JCP §5 (5 advancing, 4 of every 5, 300 ms)",
  "reading-implausible":
    "a HwShunt reading's rate is outside a recorded bound, or its counter was not admissible (JCP §5)",
  "reading-rate-mismatch":
    "a meter reading's recorded rate or per-counter energy does not match energy_uj over the span",
  "reading-stale-evidence":
    "a meter reading's liveness evidence was taken after its span, or too long before it (JCP §5)",
  "reading-span-below-window":
    "a HwShunt meter reading's span is shorter than its counter's min_window_ns (SPEC §1.3)",
  "reading-counters-incomplete":
    "a HwShunt meter reading's evidence does not list every counter of its domain once (JCP §5)",
  "reading-not-advanced":
    "a HwShunt meter reading's counter did not advance over the span (JCP §5.1)",
  "reading-calibration":
    "a model meter reading names no calibration, or another rung's reading names one (JCP §5.1)",
  // --- meter readings, service side (POST /v1/readings)
  "agent-not-registered": "the reading's agent is not registered with this service",
  "reading-agent-kid":
    "[signature] the reading's agent is not the COSE kid that signed it (the verifier and POST /v1/readings alike)",
  "reading-wrong-schema": "the envelope is not a meter-reading/1 receipt",
  "reading-seq-replay":
    "the reading's seq is not after the agent's last accepted seq, and it is not that reading",
  "reading-seq-gap": "the reading's seq skips past the agent's next seq",
  "reading-prev-mismatch":
    "the reading's prev is not the BLAKE3 of the agent's last accepted envelope",
  "reading-invalid": "the reading does not verify (the report's failing step names why)",
  "reading-future": "the reading's span ends after this service's clock plus its skew (JCP §11)",
  "reading-overlap": "the reading's span starts before the agent's previous span ended (JCP §5)",
  "reading-gap-unexplained":
    "the reading's span starts after the agent's previous span ended and carries no gap reason",
  "reading-calibration-unknown":
    "a model reading's calibration is not the agent's latest logged HwShunt reading of its domain",

  // --- verification report (JCR-1 §6; verify/report.ts): envelope steps
  "core-not-map": "[structural] the signed core is not a CBOR map (JCR-1 §3.2)",
  "missing-field":
    "[structural] a field the profile requires is absent (JCR-1 §2.1, SPEC §10, §16.7, JCP §8)",
  "bad-field-type":
    "[structural] a field has the wrong CBOR type (e.g. text where an unsigned integer is required)",
  "bad-field-value":
    "[structural] a field's value is outside its domain (enum, 64-hex hash, RFC 3339 UTC, did:key, range)",
  "field-not-allowed":
    "[structural] a field that must not be in this signed core (token_attributions, JCR-1 §3.1; a member the jcp/2 or jcp/1 profile does not define, payload_hash in jcp/1 among them, JCP §8, §8.1)",
  "unknown-major":
    "[structural] an unimplemented numeric jc_receipt major (SPEC §7, JCR-1 §8: reject at step 1)",
  "unsupported-schema":
    "[structural] an unimplemented <name>/<version> schema; the envelope was still checked",
  "non-canonical":
    "[canonical] re-encoding the decoded core does not reproduce the payload bytes (JCR-1 §3.3)",
  "unknown-kid":
    "[signature] the kid is not a did:key and the key directory has no key for it (JCR-1 §4)",
  "kid-steward-mismatch":
    "[signature] the COSE kid differs from the core's steward (SPEC §10, §16.7; JCP §8)",
  "jcp-object-fields":
    '[structural] a JCP key event, grant or revocation lacks a required field, has one outside its closed set, or mixes two kinds\' fields (JCP §2.1, §4, §4.3; docs/DECISIONS.md "JCP objects on the wire")',
  "jcp-object-not-canonical":
    "[structural] a JCP object's payload is not canonical det-CBOR (JCP §3: no floats, bools or nulls)",
  "jcp-object-alg":
    "[signature] a JCP object is not sealed with EdDSA (-8): JCP §2 actors are Ed25519 keys",
  "jcp-object-signer":
    "[signature] a JCP object's kid is not its signer field (current, issuer, revoked_by) or not an Ed25519 did:key (JCP §2.1, §4, §4.3)",
  "jcp-object-bad-signature":
    "[signature] a JCP object's signature over Sig_structure does not verify (strict Ed25519, RFC 8032 §5.1.7)",
  "key-rotated-out":
    "[signature] the steward is a key-event identity and the kid is not its current key (JCP §2.1; docs/KEYS.md)",
  "context-in-core":
    "[structural] the signed core carries @context (SPEC §13: the canonical signed core MUST NOT include it)",
  "alg-not-for-profile":
    "[signature] ES256 (-7) on a profile whose envelope is EdDSA (-8) only: policy/1, verdict-receipt/1, jcp/2, jcp/1, intercept/1, efficiency/1 (SPEC §10, §16.7; JCP §8)",
  "bad-signature":
    "[signature] the signature over Sig_structure does not verify (strict Ed25519, RFC 8032 §5.1.7; or ES256, SEC 1 §4.1.4)",
  "not-reached": "[any] skipped: an earlier step produced no checked core to run this step on",
  "not-applicable": "[any] skipped: the receipt's profile has no such step",
  // --- JCR-1 cascade receipt "1" (verify/profiles/jcr1.ts)
  "no-tool-receipts": "[tool_receipts] skipped: the receipt carries no gateway tool receipts",
  "unknown-gateway":
    "[tool_receipts] a tool receipt names a gateway_id with no configured HMAC key (JCR-1 §5)",
  "tool-hmac-mismatch":
    "[tool_receipts] a tool receipt's HMAC does not verify under its gateway's key (JCR-1 §6 step 4)",
  "provenance-not-worst":
    "[honesty] energy_provenance is not the worst counter across tools_touched and tool_receipts (JCR-1 §2.3)",
  "joules-below-tools":
    "[honesty] joules_uj is below the sum of tools_touched joules_uj (JCR-1 §6 step 5)",
  "sub-mj-precision":
    "[honesty] a ModelBased/Estimator figure is not a whole number of millijoules (JCR-1 §2.3 resolution floor)",
  "claims-on-deterministic-tier":
    "[honesty] an L0/L1 receipt carries claims (JCR-1 §2.1: empty for L0/L1)",
  "within-band":
    "[joules] pass: joules_uj is within the JCR-1 §7.1 drift band of the operator's reference vector",
  "out-of-band":
    "[joules] joules_uj is outside the JCR-1 §7.1 drift band of the operator's reference vector (verdict alert: SPEC §6 DriftAlert, appended)",
  "joule-unverified": "[joules] skipped: no reference vector for this input_hash (JCR-1 §6 step 6)",
  // --- policy/1 (SPEC §10; verify/profiles/policy.ts)
  "policy-bound":
    "[honesty] pass: policy_digest is the §10.1 digest of a policy the caller supplied",
  "policy-unbound": "[honesty] skipped: the policy receipt carries no policy_digest (SPEC §10.1)",
  "policy-unchecked": "[honesty] skipped: no policy was supplied to check policy_digest against",
  "policy-digest-mismatch":
    "[honesty] policy_digest is the digest of none of the supplied policies (SPEC §10.1)",
  "policy-rule-mismatch":
    "[honesty] the decision's rule is absent from the bound policy or has the other effect (SPEC §9)",
  "bad-policy": "a policy document (operator input) is malformed",
  // --- verdict-receipt/1 (SPEC §16.7; verify/profiles/verdict.ts)
  "verdict-hash-mismatch":
    "[honesty] verdict_hash is not BLAKE3 of the verdict_json bytes (SPEC §16.7)",
  "verdict-json-invalid":
    "[honesty] verdict_json does not parse as a JSON object (SPEC §16.5, §16.7)",
  "verdict-contract-mismatch":
    "[honesty] the verdict's contract_hash differs from the receipt's (SPEC §16.7)",
  // --- jcp/2, jcp/1 (JCP §8, §8.1; verify/profiles/jcp.ts)
  "deny-reason-misplaced": "[honesty] deny_reason on an allow, or a deny without one (JCP §7, §8)",
  "bad-coverage":
    '[honesty] energy_coverage is present with a value other than "Partial" (JCP §5.2)',
  "chain-length-mismatch":
    "[honesty] chain_debited_uj / chain_debited_minor length differs from chain_ids (JCP §8.1)",
  "bad-config": "an operator-config JSON document (CLI --config) is malformed",
  // --- intercept/1, efficiency/1 (JCP §5.2, §5.3; verify/profiles/intercept.ts, efficiency.ts)
  "partial-per-unit":
    "[honesty] a Partial efficiency/1 receipt carries uj_per_accepted_token (JCP §5.2)",
  "activities-missing":
    "[honesty] an efficiency/1 outcome names no activity by content id (JCP §5.3)",
  "activity-bound-twice":
    "[honesty] an activity is named twice by one outcome, or (at append) is already bound to another logged outcome (JCP §5.3)",
  "residual-mismatch":
    "[honesty] residual_uj is not outcome_total_uj − activities_uj exactly: signed, never clamped (JCP §5.3)",
  "per-token-mismatch":
    "[honesty] uj_per_accepted_token is not ⌊outcome_total_uj / accepted_tokens⌋, or has no positive accepted_tokens (JCP §5.2)",
  "activity-unresolved":
    "[log] a named activity's content id is in no logged entry, so it cannot be re-added (JCP §5.3; refused at append)",
  "activity-not-activity":
    "[log] a named activity is a logged entry with no activity's energy figure (not intercept/1, a cascade receipt or a jcp decision) (JCP §5.3)",
  "activities-sum-mismatch":
    "[log] the resolved activities' figures do not re-add to the outcome's activities_uj (JCP §5.3)",
  "provenance-above-floor":
    "[log] the outcome's energy_provenance is better than its worst activity's (JCP §5.3: the floor)",
  "coverage-above-floor":
    "[log] an activity is Partial and the outcome does not say Partial (JCP §5.2, §5.3)",
  "outcomes-unchecked":
    "[log] an efficiency/1 outcome sent to a log that keeps no activity bindings (refused, never logged unchecked)",
  // --- verifier-config/1 (issue 23; verify/verifier_config.ts): a logged configuration document
  "not-verifier-config": "a logged entry read as a configuration is not a verifier-config/1",
  "bad-verifier-config":
    "a verifier-config/1 document has an unknown member, a bad seq/previous or operator",
  "verifier-config-bad-signature":
    "a verifier-config/1 document's signature does not verify under the operator it names",
  "legacy-profile":
    "a producer asked to seal a verify-only legacy profile (JCP §8: jcp/1 is never minted)",
  // --- ES256 (JCR-1 §4 alg -7; verify/p256.ts, docs/DECISIONS.md "ES256")
  "did-key-p256-uncompressed":
    "[signature] a p256-pub did:key carries an uncompressed point; did:key names P-256 keys compressed",
  "p256-key-encoding":
    "[signature] a p256-pub did:key's key is not 0x02/0x03 || x with x < p (SEC 1 §2.3.3)",
  "p256-key-not-on-curve":
    "[signature] a p256-pub did:key's x is no point of P-256 (SEC 1 §2.3.4: not on the curve)",
  "kid-alg-mismatch":
    "[signature] the kid names a key of the other type than the header's alg (Ed25519 key with ES256, or P-256 key with EdDSA)",
  "es256-r-range":
    "[signature] the ES256 signature's r is 0 or not below the group order n (SEC 1 §4.1.4)",
  "es256-s-range":
    "[signature] the ES256 signature's s is 0 or not below the group order n (SEC 1 §4.1.4)",
} as const;

/** A stable reason code. */
export type ReasonCode = keyof typeof REASON_CODES;

/** True when `code` is in the table. */
export function isReasonCode(code: string): code is ReasonCode {
  return Object.hasOwn(REASON_CODES, code);
}

/**
 * Codes that no envelope given to verifyEnvelope can produce, with why: input and configuration
 * errors, encoder errors, and guards that an earlier check always pre-empts. Every other code is a
 * verification outcome, and conformance/ publishes a negative vector for each refusal among them.
 */
export const NOT_VERIFICATION_OUTCOMES: Partial<Record<ReasonCode, string>> = {
  "bad-hex": "request/CLI input decoding (a 400 / exit 2), before any envelope exists",
  "empty-sequence": "request input (an application/cbor-seq body), before any envelope exists",
  "sequence-too-long": "request input (an application/cbor-seq body), before any envelope exists",
  "u64-overflow": "raised by the encoder, never by decoding untrusted bytes",
  "unsafe-integer": "raised by the encoder, never by decoding untrusted bytes",
  "unsupported-type": "raised by the encoder (or for a non-Uint8Array input), never by bytes",
  "bad-key-directory": "operator configuration error, raised when the directory is built",
  "bad-public-key": "operator configuration error",
  "hmac-bad-key": "operator configuration error (an empty gateway key)",
  "hmac-bad-joules":
    "pre-empted: the profile's field check refuses a non-u64 joules_uj (bad-field-type)",
  "hmac-bad-provenance":
    "pre-empted: the profile's field check refuses an unknown provenance (bad-field-value)",
  "hmac-bad-tag-format":
    "pre-empted: the profile's field check refuses a malformed tag (bad-field-value)",
  "non-canonical":
    "guard: the strict decoder accepts only bytes the encoder reproduces (JCR-1 §3.3 still checked)",
  "bad-policy": "operator configuration error (a policy file that is not a policy)",
  "bad-config": "operator configuration error (an operator-config JSON that is malformed)",
  "legacy-profile": "producer-side: sealing a verify-only legacy profile (jcp/1) is refused",
  "not-verifier-config": "the log's configuration entries (issue 23), never a receipt's outcome",
  "bad-verifier-config": "the log's configuration entries (issue 23), never a receipt's outcome",
  "verifier-config-bad-signature":
    "the log's configuration entries (issue 23), never a receipt's outcome",
  "agent-not-registered": "service-side (POST /v1/readings), decided after verification",
  "jcp-object-fields":
    "JCP objects (issue 25) are judged by their own routes, never a receipt's outcome",
  "jcp-object-not-canonical":
    "JCP objects (issue 25) are judged by their own routes, never a receipt's outcome",
  "jcp-object-alg":
    "JCP objects (issue 25) are judged by their own routes, never a receipt's outcome",
  "jcp-object-signer":
    "JCP objects (issue 25) are judged by their own routes, never a receipt's outcome",
  "jcp-object-bad-signature":
    "JCP objects (issue 25) are judged by their own routes, never a receipt's outcome",
  "key-rotated-out":
    "needs the log's key-event chain (issue 25; docs/KEYS.md): a vector carries no log state",
  "reading-wrong-schema": "service-side (POST /v1/readings), decided after verification",
  "reading-seq-replay": "service-side (POST /v1/readings), decided after verification",
  "reading-seq-gap": "service-side (POST /v1/readings), decided after verification",
  "reading-prev-mismatch": "service-side (POST /v1/readings), decided after verification",
  "reading-future": "service-side (POST /v1/readings), decided after verification",
  "reading-overlap": "service-side (POST /v1/readings), decided after verification",
  "reading-gap-unexplained": "service-side (POST /v1/readings), decided after verification",
  "reading-calibration-unknown": "service-side (POST /v1/readings), decided after verification",
  "reading-invalid":
    "service-side (POST /v1/readings): wraps a failed report, whose own code is the outcome",
  "activity-unresolved": "service-side (POST /v1/log/entries): resolved from the log at append",
  "activity-not-activity": "service-side (POST /v1/log/entries): resolved from the log at append",
  "activities-sum-mismatch": "service-side (POST /v1/log/entries): resolved from the log at append",
  "provenance-above-floor": "service-side (POST /v1/log/entries): resolved from the log at append",
  "coverage-above-floor": "service-side (POST /v1/log/entries): resolved from the log at append",
  "outcomes-unchecked": "service-side (POST /v1/log/entries): a log without activity bindings",
  "cose-alg-unsupported":
    'retired: ES256 (-7) is verified (docs/DECISIONS.md "ES256"); kept so it is never reused',
};

/**
 * Codes that appear on passing or skipped steps of a valid report: information, never a refusal.
 * They need no negative vector; positive vectors show them.
 */
export const INFORMATIONAL_CODES: ReadonlySet<ReasonCode> = new Set<ReasonCode>([
  "not-reached",
  "not-applicable",
  "no-tool-receipts",
  "within-band",
  "joule-unverified",
  "policy-bound",
  "policy-unbound",
  "policy-unchecked",
]);

/**
 * Codes of a failing step that does not make the receipt invalid: step 6 out of band is SPEC §6's
 * DriftAlert, "a non-conformance signal, not a hard failure" (verdict `alert`, verify/verdict_class.ts).
 * A receipt carrying one is appended; conformance/ publishes an alert vector for each.
 */
export const ALERT_CODES: ReadonlySet<ReasonCode> = new Set<ReasonCode>(["out-of-band"]);
