// COSE_Sign1 (RFC 9052 §4.2, §4.4) in the one profile this service accepts (ARCHITECTURE
// Decision 2, JCR-1 §4):
//   COSE_Sign1 = [ protected: bstr .cbor {1: -8, 4: kid}, unprotected: {}, payload: bstr,
//                  signature: bstr .size 64 ]
// untagged or with a single leading tag 18. The strict decoder refuses every tag, so this parser
// alone strips ONE leading 0xd2 before handing the rest to it. The signature is over
// Sig_structure = ["Signature1", protected, h'', payload] built from the protected bytes exactly
// as received (RFC 9052 §4.4).
import { type CborMap, decodeCbor, encodeCbor } from "./cbor.ts";
import { ed25519Sign } from "./ed25519.ts";
import { CborError, VerifyInputError } from "./errors.ts";

/** A parsed COSE_Sign1 envelope; byte fields are copies of the input. */
export interface CoseSign1 {
  /** The protected header bytes exactly as received (signed over as-is). */
  protectedBytes: Uint8Array;
  /** The kid (label 4): the steward identity, e.g. a did:key or a KERI AID. */
  kid: string;
  /** The payload: for a receipt, the deterministic-CBOR signed core (JCR-1 §3.3). */
  payload: Uint8Array;
  /** The 64-byte Ed25519 signature. */
  signature: Uint8Array;
  /** Whether the envelope carried tag 18. */
  tagged: boolean;
}

/** COSE algorithm identifiers (RFC 9053 §2.1, §2.2). */
export const COSE_ALG_EDDSA = -8;
/** ES256: permitted by JCR-1 §4, not supported by this service. */
export const COSE_ALG_ES256 = -7;
const TAG_COSE_SIGN1 = 0xd2; // tag 18, RFC 9052 §4.2

function bad(code: string, why: string): never {
  throw new VerifyInputError(code, `Cannot parse COSE_Sign1: ${why}`);
}

/**
 * Parses a COSE_Sign1 envelope from untrusted bytes in the Decision 2 profile. Throws CborError
 * (strict decoding of the envelope) or VerifyInputError with a "cose-*" code; does not verify the
 * signature (see coseSigStructure and ed25519Verify).
 *
 * @example
 * ```ts
 * const env = parseCoseSign1(bytes); // { protectedBytes, kid, payload, signature, tagged }
 * ```
 */
export function parseCoseSign1(bytes: Uint8Array): CoseSign1 {
  if (!(bytes instanceof Uint8Array)) bad("cose-not-array", "input is not a Uint8Array");
  let body = bytes;
  let tagged = false;
  if (bytes.length > 0 && bytes[0] === TAG_COSE_SIGN1) {
    tagged = true; // Decision 2: a single tag 18 is accepted and stripped here only
    body = bytes.subarray(1);
  } else if (bytes.length > 0 && bytes[0] >> 5 === 6) {
    bad("cose-wrong-tag", "the envelope carries a tag other than 18 (COSE_Sign1)");
  }
  const v = decodeCbor(body); // strict: a second tag 18, any tag inside, etc. are CborErrors
  if (!Array.isArray(v) || v.length !== 4) bad("cose-not-array", "not an array of 4 items"); // RFC 9052 §4.2
  const [prot, unprot, payload, signature] = v;
  if (!(prot instanceof Uint8Array)) {
    bad("cose-protected-not-bstr", "protected header is not a bstr");
  }
  // RFC 9052 §3: a zero-length protected bstr stands for an empty map, which lacks alg and kid
  if (prot.length === 0) {
    bad("cose-protected-keys", "protected header is empty, not {1: alg, 4: kid}");
  }
  let hdr;
  try {
    hdr = decodeCbor(prot); // Decision 2: the protected map must itself be canonical
  } catch (e) {
    if (!(e instanceof CborError)) throw e;
    throw new VerifyInputError(
      "cose-protected-not-canonical",
      `Cannot parse COSE_Sign1: protected header is not strict deterministic CBOR (${e.code})`,
      { cause: e },
    );
  }
  if (!(hdr instanceof Map) || hdr.size !== 2 || !hdr.has(1) || !hdr.has(4)) {
    bad("cose-protected-keys", "protected header is not exactly {1: alg, 4: kid}"); // Decision 2
  }
  const alg = (hdr as CborMap).get(1);
  if (alg === COSE_ALG_ES256) {
    bad(
      "cose-alg-unsupported",
      "alg ES256 (-7) is permitted by JCR-1 §4 but only EdDSA (-8) is supported here",
    );
  }
  if (alg !== COSE_ALG_EDDSA) bad("cose-bad-alg", `alg ${String(alg)} is not EdDSA (-8)`); // JCR-1 §4
  const kid = (hdr as CborMap).get(4);
  if (typeof kid !== "string") bad("cose-kid-not-text", "kid (label 4) is not a text string"); // Decision 2
  if (!(unprot instanceof Map) || unprot.size !== 0) {
    bad("cose-unprotected-not-empty", "unprotected header is not an empty map"); // Decision 2
  }
  if (!(payload instanceof Uint8Array)) bad("cose-payload-not-bstr", "payload is not a bstr");
  if (!(signature instanceof Uint8Array) || signature.length !== 64) {
    bad("cose-bad-signature", "signature is not a 64-byte bstr"); // RFC 8032 §5.1.6: 64 bytes
  }
  return { protectedBytes: prot, kid, payload, signature, tagged };
}

/**
 * Sig_structure for COSE_Sign1 (RFC 9052 §4.4): ["Signature1", protected, h'', payload],
 * canonically encoded. `protectedBytes` must be the bytes as received.
 */
export function coseSigStructure(protectedBytes: Uint8Array, payload: Uint8Array): Uint8Array {
  return encodeCbor(["Signature1", protectedBytes, new Uint8Array(0), payload]);
}

/**
 * The canonical protected header {1: -8, 4: kid} (Decision 2).
 * @example toHex(coseProtectedHeader("k")) // "a2012704616b"
 */
export function coseProtectedHeader(kid: string): Uint8Array {
  return encodeCbor(new Map<number, number | string>([[1, COSE_ALG_EDDSA], [4, kid]]));
}

/**
 * Signs `payload` into an untagged COSE_Sign1 envelope with protected {1: -8, 4: kid}.
 * @example parseCoseSign1(coseSign1(core, secret, didKeyFromPublicKey(ed25519PublicKey(secret))))
 */
export function coseSign1(payload: Uint8Array, secret32: Uint8Array, kid: string): Uint8Array {
  const prot = coseProtectedHeader(kid);
  const sig = ed25519Sign(coseSigStructure(prot, payload), secret32);
  return encodeCbor([prot, new Map(), payload, sig]);
}
