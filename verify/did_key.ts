// did:key for Ed25519 (W3C did:key method; ARCHITECTURE Decision 4): self-certifying,
//   did:key:z + base58btc(0xed 0x01 || pk32)
// where "z" is the multibase prefix of base58btc and 0xed 0x01 the unsigned-varint multicodec of
// ed25519-pub. Any other multibase, codec or length is refused, and so is any string that does not
// round-trip exactly (leading "1"s, fragments, query strings, whitespace).
import { VerifyInputError } from "./errors.ts";

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"; // base58btc
const INDEX = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) INDEX[ALPHABET.charCodeAt(i)] = i;

const PREFIX = "did:key:z";
const ED25519_PUB = [0xed, 0x01]; // multicodec ed25519-pub, unsigned varint

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
 * The 32-byte Ed25519 public key named by a did:key (Decision 4). Throws
 * VerifyInputError("bad-did-key") unless `did` is exactly didKeyFromPublicKey(key) for some key.
 *
 * @example publicKeyFromDidKey("did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK") // 32 bytes
 */
export function publicKeyFromDidKey(did: string): Uint8Array {
  const bad = (why: string): never => {
    throw new VerifyInputError("bad-did-key", `Cannot resolve did:key: ${why}`);
  };
  if (typeof did !== "string") bad("not a string");
  if (did.length > 128) bad("too long");
  if (!did.startsWith("did:key:")) bad('does not start with "did:key:"');
  if (did[8] !== "z") bad('multibase is not base58btc ("z")'); // Decision 4: base58btc only
  const raw = base58btcDecode(did.slice(PREFIX.length));
  if (raw.length < 2 || raw[0] !== ED25519_PUB[0] || raw[1] !== ED25519_PUB[1]) {
    bad("multicodec is not ed25519-pub (0xed 0x01)"); // Decision 4: Ed25519 only
  }
  if (raw.length !== 34) bad(`key is ${raw.length - 2} bytes, not 32`);
  const pub = raw.slice(2);
  if (didKeyFromPublicKey(pub) !== did) bad("does not round-trip exactly"); // Decision 4
  return pub;
}
