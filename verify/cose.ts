// COSE_Sign1 (RFC 9052 §4.2, §4.4) in the one profile this service accepts (ARCHITECTURE
// Decision 2, JCR-1 §4):
//   COSE_Sign1 = [ protected: bstr .cbor {1: alg, 4: kid}, unprotected: {}, payload: bstr,
//                  signature: bstr .size 64 ]
// with alg -8 (EdDSA, Ed25519) or -7 (ES256, r ‖ s per RFC 9053 §2.1: also 64 bytes)
// untagged or with a single leading tag 18. The strict decoder refuses every tag, so this parser
// alone strips ONE leading 0xd2 before handing the rest to it. The signature is over
// Sig_structure = ["Signature1", protected, h'', payload] built from the protected bytes exactly
// as received (RFC 9052 §4.4). Envelopes in the canonical layout (what coseSign1 writes) are read
// by position without the general decoder; every other input goes through it, so the answers and
// codes are the decoder's (tests/verify/cose_fast_test.ts).
import { type CborMap, decodeCbor, encodeCbor } from "./cbor.ts";
import { decodeAsciiText } from "./cbor_decode.ts";
import { headSize, writeHead } from "./cbor_encode.ts";
import { ed25519Sign } from "./ed25519.ts";
import { es256Sign } from "./p256.ts";
import { CborError, VerifyInputError } from "./errors.ts";

/** A parsed COSE_Sign1 envelope; byte fields are copies of the input. */
export interface CoseSign1 {
  /** The protected header bytes exactly as received (signed over as-is). */
  protectedBytes: Uint8Array;
  /** The kid (label 4): the steward identity, e.g. a did:key or a KERI AID. */
  kid: string;
  /** The payload: for a receipt, the deterministic-CBOR signed core (JCR-1 §3.3). */
  payload: Uint8Array;
  /** The header's algorithm: -8 EdDSA or -7 ES256 (JCR-1 §4). */
  alg: -8 | -7;
  /** The 64-byte signature: Ed25519 R ‖ S, or ES256 r ‖ s (RFC 9053 §2.1). */
  signature: Uint8Array;
  /** Whether the envelope carried tag 18. */
  tagged: boolean;
}

/** COSE algorithm identifiers (RFC 9053 §2.1, §2.2). */
export const COSE_ALG_EDDSA = -8;
/** ES256 (ECDSA P-256 / SHA-256): permitted by JCR-1 §4, verified strictly (verify/p256.ts). */
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
  const v = readCanonicalLayout(bytes);
  if (v) {
    return {
      protectedBytes: v.protectedBytes.slice(),
      kid: v.kid,
      payload: v.payload.slice(),
      alg: v.alg,
      signature: v.signature,
      tagged: v.tagged,
    };
  }
  return parseCoseSign1Decoded(bytes);
}

/**
 * As parseCoseSign1, but `protectedBytes` and `payload` are views into `bytes` (the signature is
 * still a copy). For callers that read them synchronously and keep nothing (verifyEnvelope).
 */
export function parseCoseSign1Views(bytes: Uint8Array): CoseSign1 {
  if (!(bytes instanceof Uint8Array)) bad("cose-not-array", "input is not a Uint8Array");
  return readCanonicalLayout(bytes) ?? parseCoseSign1Decoded(bytes);
}

/** Set by stringAt: where the string's content starts. */
let contentAt = 0;

/**
 * Length of the byte/text string (major type `major`) whose head is at `p`, its content fully
 * inside `b` and its head shortest (RFC 8949 §4.2.1); -1 otherwise (or for 8-byte lengths).
 */
function stringAt(b: Uint8Array, p: number, major: number): number {
  if (p >= b.length || b[p] >> 5 !== major) return -1;
  const ai = b[p] & 31;
  let n: number, h: number;
  if (ai < 24) n = ai, h = 1;
  else if (ai === 24) n = b[p + 1], h = 2;
  else if (ai === 25) n = (b[p + 1] << 8) | b[p + 2], h = 3;
  else if (ai === 26) {
    n = ((b[p + 1] << 24) >>> 0) + ((b[p + 2] << 16) | (b[p + 3] << 8) | b[p + 4]);
    h = 5;
  } else return -1;
  if (h > 1 && headSize(n) !== h) return -1; // not shortest: the general parser names the code
  if (p + h > b.length || n > b.length - p - h) return -1;
  contentAt = p + h;
  return n;
}

/**
 * Decision 2's envelope read by position when its bytes are exactly the canonical layout
 *   [d2] 84 <bstr: a2 01 27|26 04 <tstr: ASCII kid>> a0 <bstr: payload> 58 40 <64 bytes>
 * — precisely the inputs on which the general parser succeeds with an ASCII kid, and with the
 * same result (tests/verify/cose_fast_test.ts). Undefined for anything else: the general parser
 * then answers, with its codes. Views into `bytes`, except the signature (a copy).
 */
function readCanonicalLayout(b: Uint8Array): CoseSign1 | undefined {
  let p = 0;
  const tagged = b.length > 0 && b[0] === TAG_COSE_SIGN1;
  if (tagged) p = 1;
  if (b[p] !== 0x84) return undefined; // array(4), RFC 9052 §4.2
  const protLen = stringAt(b, p + 1, 2);
  if (protLen < 0) return undefined;
  const protStart = contentAt;
  const protEnd = protStart + protLen;
  // {1: -8 | -7, 4: kid}: a2 01 27|26 04, then the kid as a text string filling the rest
  if (protLen < 5 || b[protStart] !== 0xa2 || b[protStart + 1] !== 0x01) return undefined;
  const algByte = b[protStart + 2];
  if ((algByte !== 0x27 && algByte !== 0x26) || b[protStart + 3] !== 0x04) return undefined;
  const kidLen = stringAt(b, protStart + 4, 3);
  if (kidLen < 0 || contentAt + kidLen !== protEnd) return undefined;
  const kidStart = contentAt;
  for (let i = kidStart; i < protEnd; i++) if (b[i] >= 0x80) return undefined; // ASCII only here
  if (b[protEnd] !== 0xa0) return undefined; // unprotected: empty map
  const payLen = stringAt(b, protEnd + 1, 2);
  if (payLen < 0) return undefined;
  const payStart = contentAt;
  const sigAt = payStart + payLen;
  if (b[sigAt] !== 0x58 || b[sigAt + 1] !== 0x40 || sigAt + 66 !== b.length) return undefined;
  return {
    protectedBytes: b.subarray(protStart, protEnd),
    kid: decodeAsciiText(b, kidStart, protEnd),
    payload: b.subarray(payStart, sigAt),
    alg: algByte === 0x27 ? COSE_ALG_EDDSA : COSE_ALG_ES256,
    signature: b.slice(sigAt + 2),
    tagged,
  };
}

/**
 * The general parser: the strict decoder over the whole envelope, then every Decision 2 check
 * with its own code. parseCoseSign1 answers through it whenever the layout is not the canonical
 * one; exported for the equivalence tests.
 */
export function parseCoseSign1Decoded(bytes: Uint8Array): CoseSign1 {
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
  if (alg !== COSE_ALG_EDDSA && alg !== COSE_ALG_ES256) {
    bad("cose-bad-alg", `alg ${String(alg)} is neither EdDSA (-8) nor ES256 (-7)`); // JCR-1 §4
  }
  const kid = (hdr as CborMap).get(4);
  if (typeof kid !== "string") bad("cose-kid-not-text", "kid (label 4) is not a text string"); // Decision 2
  if (!(unprot instanceof Map) || unprot.size !== 0) {
    bad("cose-unprotected-not-empty", "unprotected header is not an empty map"); // Decision 2
  }
  if (!(payload instanceof Uint8Array)) bad("cose-payload-not-bstr", "payload is not a bstr");
  if (!(signature instanceof Uint8Array) || signature.length !== 64) {
    // RFC 8032 §5.1.6 (Ed25519) and RFC 9053 §2.1 (ES256 r ‖ s): 64 bytes either way
    bad("cose-bad-signature", "signature is not a 64-byte bstr");
  }
  return { protectedBytes: prot, kid, payload, alg: alg as -8 | -7, signature, tagged };
}

/** 84 6a "Signature1": the head of the 4-item Sig_structure array and its context string. */
const SIG1_PREFIX = encodeCbor(["Signature1"]).map((x, i) => i === 0 ? 0x84 : x);

/**
 * Sig_structure for COSE_Sign1 (RFC 9052 §4.4): ["Signature1", protected, h'', payload],
 * canonically encoded. `protectedBytes` must be the bytes as received.
 */
export function coseSigStructure(protectedBytes: Uint8Array, payload: Uint8Array): Uint8Array {
  // the canonical encoding of the array, written at its exact size in one allocation
  const pl = protectedBytes.length, nl = payload.length;
  const out = new Uint8Array(SIG1_PREFIX.length + headSize(pl) + pl + 1 + headSize(nl) + nl);
  out.set(SIG1_PREFIX, 0); // 84 6a "Signature1"
  let p = writeHead(out, SIG1_PREFIX.length, 2, pl);
  out.set(protectedBytes, p);
  p += pl;
  out[p++] = 0x40; // external_aad: h''
  p = writeHead(out, p, 2, nl);
  out.set(payload, p);
  return out;
}

/**
 * The canonical protected header {1: alg, 4: kid} (Decision 2), alg -8 unless told.
 * @example toHex(coseProtectedHeader("k")) // "a2012704616b"
 */
export function coseProtectedHeader(kid: string, alg: -8 | -7 = COSE_ALG_EDDSA): Uint8Array {
  return encodeCbor(new Map<number, number | string>([[1, alg], [4, kid]]));
}

/**
 * Signs `payload` into an untagged ES256 COSE_Sign1 envelope, protected {1: -7, 4: kid}, with a
 * 32-byte P-256 secret scalar (RFC 6979 nonce; s as it falls, high or low, like real signers).
 * @example coseSign1Es256(core, secret, didKeyFromP256PublicKey(p256PublicKey(secret)))
 */
export function coseSign1Es256(payload: Uint8Array, secret32: Uint8Array, kid: string): Uint8Array {
  const prot = coseProtectedHeader(kid, COSE_ALG_ES256);
  const sig = es256Sign(coseSigStructure(prot, payload), secret32);
  return encodeCbor([prot, new Map(), payload, sig]);
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
