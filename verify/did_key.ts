// did:key for Ed25519 (W3C did:key method; ARCHITECTURE Decision 4): self-certifying,
//   did:key:z + base58btc(0xed 0x01 || pk32)
// where "z" is the multibase prefix of base58btc and 0xed 0x01 the unsigned-varint multicodec of
// ed25519-pub. Any other multibase, codec or length is refused, and so is any string that does not
// round-trip exactly (leading "1"s, fragments, query strings, whitespace).
// For ES256 kids (JCR-1 §4), also P-256 (docs/DECISIONS.md "ES256"):
//   did:key:z + base58btc(0x80 0x24 || 33-byte SEC 1 compressed point)
// 0x80 0x24 being the varint of multicodec p256-pub (0x1200). Only the compressed point is
// accepted (the did:key method's own form, and one kid per key); the point must be on the curve.
import { VerifyInputError } from "./errors.ts";
import { p256KeyProblem } from "./p256.ts";

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"; // base58btc
const INDEX = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) INDEX[ALPHABET.charCodeAt(i)] = i;

const PREFIX = "did:key:z";
const ED25519_PUB = [0xed, 0x01]; // multicodec ed25519-pub, unsigned varint
const P256_PUB = [0x80, 0x24]; // multicodec p256-pub (0x1200), unsigned varint

/** COSE algorithms of did:key key types: -8 EdDSA (Ed25519), -7 ES256 (P-256). */
export type DidKeyAlg = -8 | -7;

/** A public key with the COSE algorithm it verifies (RFC 9053 §2.1, §2.2). */
export interface TypedPublicKey {
  alg: DidKeyAlg;
  /** Ed25519: 32 bytes; P-256: 33 bytes, SEC 1 compressed. */
  pub: Uint8Array;
}

/** base58btc encoding (Bitcoin alphabet; each leading zero byte becomes a "1"). */
export function base58btcEncode(b: Uint8Array): string {
  let zeros = 0;
  while (zeros < b.length && b[zeros] === 0) zeros++;
  const digits: number[] = []; // base-58 digits, little-endian
  for (let i = zeros; i < b.length; i++) {
    let carry = b[i];
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j] << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = (carry / 58) | 0;
    }
  }
  let s = "1".repeat(zeros);
  for (let i = digits.length - 1; i >= 0; i--) s += ALPHABET[digits[i]];
  return s;
}

/** base58btc decoding; throws VerifyInputError("bad-did-key") on a character outside the alphabet. */
export function base58btcDecode(s: string): Uint8Array {
  let zeros = 0;
  while (zeros < s.length && s[zeros] === "1") zeros++;
  const bytes: number[] = []; // little-endian
  for (let i = zeros; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? INDEX[c] : -1;
    if (v < 0) {
      throw new VerifyInputError("bad-did-key", `Cannot decode base58btc: bad character at ${i}`);
    }
    let carry = v;
    for (let j = 0; j < bytes.length; j++) {
      carry += bytes[j] * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  const out = new Uint8Array(zeros + bytes.length);
  for (let i = 0; i < bytes.length; i++) out[out.length - 1 - i] = bytes[i];
  return out;
}

/**
 * The did:key of a 32-byte Ed25519 public key.
 * @example didKeyFromPublicKey(pub) // "did:key:z6Mk..."
 */
export function didKeyFromPublicKey(pub: Uint8Array): string {
  if (!(pub instanceof Uint8Array) || pub.length !== 32) {
    throw new VerifyInputError(
      "bad-public-key",
      "Cannot build did:key: public key is not 32 bytes",
    );
  }
  const b = new Uint8Array(34);
  b.set(ED25519_PUB, 0);
  b.set(pub, 2);
  return PREFIX + base58btcEncode(b);
}

/**
 * The did:key of a valid P-256 public key, 33 bytes SEC 1 compressed (the only form a did:key
 * names, docs/DECISIONS.md "ES256").
 * @example didKeyFromP256PublicKey(p256PublicKey(secret)) // "did:key:zDn..."
 */
export function didKeyFromP256PublicKey(pub: Uint8Array): string {
  if (!(pub instanceof Uint8Array) || pub.length !== 33 || p256KeyProblem(pub) !== undefined) {
    throw new VerifyInputError(
      "bad-public-key",
      "Cannot build did:key: not a valid 33-byte compressed P-256 public key",
    );
  }
  const b = new Uint8Array(35);
  b.set(P256_PUB, 0);
  b.set(pub, 2);
  return PREFIX + base58btcEncode(b);
}

/**
 * The typed public key named by a did:key: Ed25519 (0xed 0x01, Decision 4) or P-256 (0x80 0x24,
 * compressed only). Throws VerifyInputError: "bad-did-key" for a malformed identifier or another
 * codec; "did-key-p256-uncompressed", "p256-key-encoding" or "p256-key-not-on-curve" for a
 * p256-pub key that is not a compressed point on the curve.
 *
 * @example resolveDidKey("did:key:zDn...") // { alg: -7, pub: 33 bytes }
 */
export function resolveDidKey(did: string): TypedPublicKey {
  const refuse = (code: string, why: string): never => {
    throw new VerifyInputError(code, `Cannot resolve did:key: ${why}`);
  };
  const bad = (why: string): never => refuse("bad-did-key", why);
  if (typeof did !== "string") bad("not a string");
  if (did.length > 128) bad("too long");
  if (!did.startsWith("did:key:")) bad('does not start with "did:key:"');
  if (did[8] !== "z") bad('multibase is not base58btc ("z")'); // Decision 4: base58btc only
  const raw = base58btcDecode(did.slice(PREFIX.length));
  if (raw.length >= 2 && raw[0] === P256_PUB[0] && raw[1] === P256_PUB[1]) {
    const pub = raw.slice(2);
    if (pub.length === 65 && pub[0] === 4) {
      refuse(
        "did-key-p256-uncompressed",
        "the P-256 point is uncompressed; did:key names it compressed",
      );
    }
    const problem = p256KeyProblem(pub);
    if (problem === "key-encoding") {
      refuse("p256-key-encoding", "p256-pub is not 0x02/0x03 || x with x < p (SEC 1 §2.3.3)");
    }
    if (problem) refuse("p256-key-not-on-curve", "the p256-pub point is not on P-256");
    if (didKeyFromP256PublicKey(pub) !== did) bad("does not round-trip exactly");
    return { alg: -7, pub };
  }
  if (raw.length < 2 || raw[0] !== ED25519_PUB[0] || raw[1] !== ED25519_PUB[1]) {
    bad("multicodec is neither ed25519-pub (0xed 0x01) nor p256-pub (0x80 0x24)");
  }
  if (raw.length !== 34) bad(`key is ${raw.length - 2} bytes, not 32`);
  const pub = raw.slice(2);
  if (didKeyFromPublicKey(pub) !== did) bad("does not round-trip exactly"); // Decision 4
  return { alg: -8, pub };
}

/**
 * The 32-byte Ed25519 public key named by a did:key (Decision 4). Throws
 * VerifyInputError("bad-did-key") unless `did` is exactly didKeyFromPublicKey(key) for some key
 * (a P-256 did:key included: this is for the places SPEC §8 names Ed25519 handles).
 *
 * @example publicKeyFromDidKey("did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK") // 32 bytes
 */
export function publicKeyFromDidKey(did: string): Uint8Array {
  const k = resolveDidKey(did);
  if (k.alg !== -8) {
    throw new VerifyInputError(
      "bad-did-key",
      "Cannot resolve did:key: multicodec is not ed25519-pub (0xed 0x01)",
    );
  }
  return k.pub;
}
