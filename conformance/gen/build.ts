// Building blocks of the conformance generator: fixed test keys, sealing a core into a COSE_Sign1
// envelope (JCR-1 §4), and byte-level assembly of envelopes the canonical encoder would refuse
// (for negative vectors). Deterministic: keys are BLAKE3 of fixed labels, Ed25519 signatures are
// deterministic (RFC 8032 §5.1.6), times are fixed strings.

import {
  assertMintable,
  blake3,
  compareBytes,
  concatBytes,
  coseSign1,
  coseSigStructure,
  decodeCbor,
  didKeyFromPublicKey,
  ed25519PublicKey,
  ed25519Sign,
  encodeCbor,
  fromJson,
  toHex,
  toJson,
} from "../../verify/mod.ts";
import type { CborLimits, CborValue } from "../../verify/mod.ts";

const utf8 = new TextEncoder();

/** The label prefix of every conformance secret: secret = BLAKE3(utf8(PREFIX + label)). */
export const SECRET_PREFIX = "jouleclaw-conformance/v1/";

/** A signing identity of the vectors. */
export interface Signer {
  label: string;
  secret: Uint8Array;
  publicKey: Uint8Array;
  /** The COSE kid and the core's steward: a did:key, or a KERI AID resolved by the key directory. */
  kid: string;
}

/** The fixed 32-byte secret of a label (test keys only — published, never for real use). */
export function secretOf(label: string): Uint8Array {
  return blake3(utf8.encode(SECRET_PREFIX + label));
}

/** A did:key signer (SPEC §8: kid = did:key of the public key). */
export function didSigner(label: string): Signer {
  const secret = secretOf(label);
  const publicKey = ed25519PublicKey(secret);
  return { label, secret, publicKey, kid: didKeyFromPublicKey(publicKey) };
}

/** A signer whose kid is not a did:key (JCR-1 §4: e.g. a KERI AID), resolved out of band. */
export function namedSigner(label: string, kid: string): Signer {
  const secret = secretOf(label);
  return { label, secret, publicKey: ed25519PublicKey(secret), kid };
}

/** Canonical det-CBOR of a JSON core (integers as numbers or bigints; no floats). */
export function coreBytes(core: Record<string, unknown>, limits?: CborLimits): Uint8Array {
  return encodeCbor(fromJson(core), limits);
}

/** Seals arbitrary payload bytes into an untagged COSE_Sign1 (kid defaults to the signer's). */
export function sealBytes(payload: Uint8Array, signer: Signer, kid = signer.kid): Uint8Array {
  return coseSign1(payload, signer.secret, kid);
}

/** Seals a JSON core; refuses a verify-only profile (JCP §8: jcp/1 is never minted). */
export function seal(core: Record<string, unknown>, signer: Signer, kid = signer.kid): Uint8Array {
  assertMintable(core);
  return sealBytes(coreBytes(core), signer, kid);
}

/** A CBOR head (RFC 8949 §3): major type and argument, shortest form unless `width` is forced. */
export function head(major: number, n: number, width?: 0 | 1 | 2 | 4 | 8): Uint8Array {
  const w = width ?? (n < 24 ? 0 : n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x1_0000_0000 ? 4 : 8);
  const mt = major << 5;
  if (w === 0) return new Uint8Array([mt | n]);
  const ai = { 1: 24, 2: 25, 4: 26, 8: 27 }[w];
  const out = new Uint8Array(1 + w);
  out[0] = mt | ai;
  let v = BigInt(n);
  for (let i = w; i >= 1; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** A map from already-encoded (key, value) pairs, in the order given (possibly non-canonical). */
export function rawMap(pairs: [Uint8Array, Uint8Array][]): Uint8Array {
  return concatBytes(head(5, pairs.length), ...pairs.flat());
}

/** The encoded (key, value) pairs of a JSON core, canonical order. */
export function pairsOf(core: Record<string, unknown>): [Uint8Array, Uint8Array][] {
  const m = fromJson(core) as Map<string, CborValue>;
  const pairs: [Uint8Array, Uint8Array][] = [...m].map(([k, v]) => [encodeCbor(k), encodeCbor(v)]);
  return pairs.sort((a, b) => compareBytes(a[0], b[0])); // RFC 8949 §4.2.1 order
}

/** Canonical pairs of a core with one value replaced by raw bytes (e.g. a float or a tag). */
export function withRawValue(
  core: Record<string, unknown>,
  key: string,
  raw: Uint8Array,
): Uint8Array {
  return rawMap(pairsOf(core).map(([k, v]) => [k, toHex(k) === toHex(encodeCbor(key)) ? raw : v]));
}

/** Envelope parts, each already encoded, assembled as a 4-array (optionally behind a tag byte). */
export function rawEnvelope(
  parts: {
    protected: Uint8Array;
    unprotected: Uint8Array;
    payload: Uint8Array;
    signature: Uint8Array;
  },
  prefix: Uint8Array = new Uint8Array(0),
): Uint8Array {
  return concatBytes(
    prefix,
    head(4, 4),
    parts.protected,
    parts.unprotected,
    parts.payload,
    parts.signature,
  );
}

/**
 * Signs a Sig_structure over the given protected-header bytes and payload, the way a producer with
 * a non-conforming header would (the signature is valid; the header is what is wrong).
 */
export function signWithHeader(
  protectedBytes: Uint8Array,
  payload: Uint8Array,
  signer: Signer,
): Uint8Array {
  return ed25519Sign(coseSigStructure(protectedBytes, payload), signer.secret);
}

/** The JSON projection of a payload when it is strict det-CBOR, else null. */
export function projectionOf(payload: Uint8Array): unknown {
  try {
    return toJson(decodeCbor(payload));
  } catch {
    return null;
  }
}

/** The payload of a well-formed envelope (the third array item). */
export function payloadOf(envelope: Uint8Array): Uint8Array {
  const v = decodeCbor(envelope[0] === 0xd2 ? envelope.subarray(1) : envelope) as CborValue[];
  return v[2] as Uint8Array;
}
