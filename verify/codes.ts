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
    "alg is ES256 (-7): permitted by JCR-1 §4 but this service verifies EdDSA only",
  "cose-bad-alg": "alg is neither EdDSA (-8) nor a JCR-1 algorithm",
  "cose-kid-not-text": "the kid (label 4) is not a text string",
  "cose-unprotected-not-empty": "the unprotected header is not an empty map",
  "cose-payload-not-bstr": "the payload is not a byte string (detached payloads are not supported)",
  "cose-bad-signature": "the signature is not a 64-byte byte string",

  // --- keys
  "bad-did-key":
    "a did:key is not did:key:z + base58btc(0xed 0x01 || 32-byte key), round-tripping exactly",
  "bad-key-directory": "an operator key-directory entry is malformed",
  "bad-public-key": "a public key is not 32 bytes",

  // --- tool-receipt HMAC (JCR-1 §5)
  "hmac-field-nul": "a tool-receipt field used in the HMAC payload contains a NUL byte",
  "hmac-bad-joules": "joules_uj is not a non-negative integer",
  "hmac-bad-provenance": "energy_provenance is not HwShunt, ModelBased or Estimator",
  "hmac-bad-tag-format": "hmac_sha256_hex is not 64 lowercase hex digits",
  "hmac-bad-key": "a gateway HMAC key is empty or not bytes",

  // --- meter-reading/1 (JCP §5, §5.1, §5.2; docs/METER-READING.md): verifier honesty step
  "reading-bad-span": "a meter reading's end is not after its start",
  "reading-bad-genesis": "the meter reading at seq 0 does not carry prev = 64 zeros",
  "reading-provenance-counter": "a meter reading claims a provenance its counter cannot give (JCP §5.1)",
  "reading-domain-counter": "a meter reading claims a domain its counter does not read (JCP §5)",
  "reading-coverage": "a GPU-domain meter reading does not carry energy_coverage Partial (JCP §5.2)",
  "reading-resolution": "energy_uj is finer than the reading's resolution_uj, or resolution_uj below its counter's floor",
  "reading-declined-order": "a declined rung is not above the rung that produced the figure (JCP §5.1)",
  "reading-not-live": "a HwShunt reading's liveness evidence does not meet JCP §5 (5 advancing, 4 of every 5, 300 ms)",
  "reading-implausible": "a HwShunt reading's rate is outside a recorded bound, or its counter was not admissible (JCP §5)",
  "reading-rate-mismatch": "a meter reading's recorded rate or per-counter energy does not match energy_uj over the span",
  // --- meter readings, service side (POST /v1/readings)
  "agent-not-registered": "the reading's agent is not registered with this service",
  "reading-agent-kid": "the reading's agent is not the COSE kid that signed it",
  "reading-wrong-schema": "the envelope is not a meter-reading/1 receipt",
  "reading-seq-replay": "the reading's seq is not after the agent's last accepted seq, and it is not that reading",
  "reading-seq-gap": "the reading's seq skips past the agent's next seq",
  "reading-prev-mismatch": "the reading's prev is not the BLAKE3 of the agent's last accepted envelope",
  "reading-invalid": "the reading does not verify (the report's failing step names why)",
} as const;

/** A stable reason code. */
export type ReasonCode = keyof typeof REASON_CODES;

/** True when `code` is in the table. */
export function isReasonCode(code: string): code is ReasonCode {
  return Object.hasOwn(REASON_CODES, code);
}
