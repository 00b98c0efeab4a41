// The content identity of an envelope: what was signed, whatever wraps it or signs it (docs/
// DECISIONS.md "One entry per signed content"). Two valid envelopes can carry one signed content:
//   - with and without tag 18 (Decision 2 accepts both, for EdDSA and ES256 alike);
//   - with two valid signatures: ECDSA's (r, n − s) twin, which anyone can make from a logged
//     ES256 envelope without the key; or a second signature by the key holder (a fresh ECDSA
//     nonce, or a non-RFC 8032 Ed25519 signer) — strict Ed25519 (S < L, canonical R) leaves a
//     third party no twin, but a key holder can always make one.
// Everything else in the envelope is fixed by the strict profile: the protected header is the
// canonical {1: alg, 4: kid} and signed, the unprotected header is empty, every head is shortest
// and the payload is the canonical core. So the identity is BLAKE3(0x02 || Sig_structure) (RFC
// 9052 §4.4: the protected bytes and the payload, exactly what the signature covers; 0x02 keeps
// it apart from the log's leaf 0x00 and node 0x01 preimages, SPEC §22.1); the log dedupes on it
// beside the leaf hash (log/log.ts).
import { blake3Prefixed } from "./blake3.ts";
import { coseSigStructure, parseCoseSign1Views } from "./cose.ts";

/** Domain prefix of the content identity (SPEC §22.1 uses 0x00 for leaves, 0x01 for nodes). */
const CONTENT_ID_PREFIX = 0x02;

/**
 * The 32-byte content identity of a COSE_Sign1 envelope in the Decision 2 profile, or undefined
 * for bytes that are not one (the signature is not checked here: the log only holds envelopes
 * that verified). Never throws.
 *
 * @example toHex(envelopeContentId(envelope)!) // same for the tagged, untagged and (r, n − s) forms
 */
export function envelopeContentId(envelope: Uint8Array): Uint8Array | undefined {
  if (!(envelope instanceof Uint8Array) || envelope.length < 2) return undefined;
  const first = envelope[0] === 0xd2 ? envelope[1] : envelope[0];
  if (first !== 0x84) return undefined; // not a 4-item array: skip the parser's exceptions
  let signed: Uint8Array;
  try {
    const env = parseCoseSign1Views(envelope);
    signed = coseSigStructure(env.protectedBytes, env.payload);
  } catch {
    return undefined;
  }
  return blake3Prefixed(CONTENT_ID_PREFIX, signed);
}
