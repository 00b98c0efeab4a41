// Ed25519, strict and cofactorless (ARCHITECTURE Decision 3): RFC 8032 §5.1.7 verification with
// the group equation checked as [S]B = R + [k]A (the cofactorless form §5.1.7 permits), plus
//   - S < L                                    (RFC 8032 §5.1.7 "If any of the decodings fail")
//   - A and R canonically encoded (y < p, and no x = 0 with the sign bit set)
//   - neither A nor R of small order (their encodings are compared with the 8 small-order points')
// One rule on two paths: ed25519Verify (WebCrypto fast path after the same strict pre-checks in
// JS, because WebCrypto alone is not strict) and ed25519VerifyPure (@noble/ed25519 Point API).
// Both are run over every upstream case in tests/verify/ed25519_upstream_test.ts.
import { hashes, Point, utils as nobleUtils } from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import { fromHex } from "./bytes.ts";
import { type Backend, keyId, WebCryptoKeys } from "./webcrypto_keys.ts";

hashes.sha512 = sha512; // @noble/ed25519 3.x needs a sync SHA-512 for sign/getPublicKey

const L = 2n ** 252n + 27742317777372353535851937790883648493n; // group order, RFC 8032 §5.1
const L_BYTES = le32(L);

function le32(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return out;
}

/**
 * Canonical encodings (hex) of the 8 points of small order (the torsion subgroup E[8]).
 * Non-canonical encodings of them (y + p for y in {0, 1}; x = 0 with the sign bit set) are refused
 * by the canonical-encoding check that runs first; they are listed in SMALL_ORDER_NONCANONICAL.
 */
export const SMALL_ORDER_ENCODINGS: readonly string[] = Object.freeze([
  "0100000000000000000000000000000000000000000000000000000000000000", // identity (0, 1), order 1
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // (0, -1), order 2
  "0000000000000000000000000000000000000000000000000000000000000000", // (sqrt(-1), 0), order 4
  "0000000000000000000000000000000000000000000000000000000000000080", // (-sqrt(-1), 0), order 4
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05", // order 8
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85", // order 8
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", // order 8
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa", // order 8
]);

/** Non-canonical encodings (hex) of small-order points (refused as non-canonical first). */
export const SMALL_ORDER_NONCANONICAL: readonly string[] = Object.freeze([
  "0100000000000000000000000000000000000000000000000000000000000080", // identity, x=0 sign set
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", // (0,-1), x=0 sign set
  "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p (≡ 0)
  "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", // y = p (≡ 0), sign set
  "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p + 1 (≡ 1)
  "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", // y = p + 1, sign set
]);
// private byte copies: the exported tables are immutable strings, so no caller can alter these
const SMALL_ORDER = SMALL_ORDER_ENCODINGS.map(fromHex);
const ZERO_X_SIGNED = SMALL_ORDER_NONCANONICAL.slice(0, 2).map(fromHex);

/** True when the 32 bytes at `off` encode y >= p = 2^255 - 19 (sign bit ignored). */
function yNotReduced(b: Uint8Array, off: number): boolean {
  if ((b[off + 31] & 0x7f) !== 0x7f) return false; // fast exit for almost every key
  for (let i = 30; i >= 1; i--) if (b[off + i] !== 0xff) return false;
  return b[off] >= 0xed;
}

/** x = 0 exactly when y = 1 or y = p - 1; with the sign bit set that encoding is non-canonical. */
function zeroXWithSign(b: Uint8Array, off: number): boolean {
  if (b[off + 31] !== 0x80 && b[off + 31] !== 0xff) return false;
  return eq32(b, off, ZERO_X_SIGNED[0], 0) ||
    eq32(b, off, ZERO_X_SIGNED[1], 0);
}

function eq32(a: Uint8Array, ao: number, b: Uint8Array, bo: number): boolean {
  for (let i = 0; i < 32; i++) if (a[ao + i] !== b[bo + i]) return false;
  return true;
}

function isSmallOrderEncoding(b: Uint8Array, off: number): boolean {
  for (const s of SMALL_ORDER) if (eq32(b, off, s, 0)) return true;
  return false;
}

/** S < L, comparing the 32-byte little-endian S of `sig` with L from the top byte down. */
function sBelowL(sig: Uint8Array): boolean {
  for (let i = 31; i >= 0; i--) {
    const s = sig[32 + i];
    if (s !== L_BYTES[i]) return s < L_BYTES[i];
  }
  return false; // S == L
}

/**
 * The strict pre-checks of Decision 3 that need no curve arithmetic: lengths, S < L, canonical
 * encodings of A and R, and neither A nor R of small order. Both verify paths call this first.
 */
export function ed25519StrictPrecheck(sig: Uint8Array, pub: Uint8Array): boolean {
  if (sig.length !== 64 || pub.length !== 32) return false;
  if (!sBelowL(sig)) return false; // RFC 8032 §5.1.7: S must be in [0, L)
  if (yNotReduced(pub, 0) || yNotReduced(sig, 0)) return false; // canonical A, R (y < p)
  if (zeroXWithSign(pub, 0) || zeroXWithSign(sig, 0)) return false; // canonical A, R (x = 0 sign)
  if (isSmallOrderEncoding(pub, 0) || isSmallOrderEncoding(sig, 0)) return false; // Decision 3
  return true;
}

function bytesToBigLE(b: Uint8Array): bigint {
  let n = 0n;
  for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i]);
  return n;
}

function assertBytes(name: string, v: unknown): asserts v is Uint8Array {
  if (!(v instanceof Uint8Array)) {
    throw new TypeError(`Cannot verify Ed25519: ${name} is not a Uint8Array`);
  }
}

/**
 * Strict cofactorless Ed25519 verification in pure JS (@noble/ed25519 Point arithmetic).
 * Returns false for any mismatch or malformed signature/key (wrong length included).
 *
 * @example ed25519VerifyPure(sig, msg, pub) // true | false
 */
export function ed25519VerifyPure(sig: Uint8Array, msg: Uint8Array, pub: Uint8Array): boolean {
  assertBytes("sig", sig);
  assertBytes("msg", msg);
  assertBytes("pub", pub);
  if (!ed25519StrictPrecheck(sig, pub)) return false;
  const r = sig.subarray(0, 32);
  let A: Point, R: Point;
  try {
    A = Point.fromBytes(pub, false); // RFC 8032 §5.1.3 strict decoding: y < p, x = 0 ⇒ sign 0
    R = Point.fromBytes(r, false);
  } catch {
    return false; // not on the curve
  }
  // Decision 3: small order is refused by encoding above; this is the arithmetic backstop.
  if (A.isSmallOrder() || R.isSmallOrder()) return false;
  const S = bytesToBigLE(sig.subarray(32, 64));
  const h = sha512(concat3(r, pub, msg)); // RFC 8032 §5.1.7 step 2: k = SHA-512(R || A || M)
  const k = bytesToBigLE(h) % L;
  // RFC 8032 §5.1.7 step 3, cofactorless: [S]B = R + [k]A
  const SB = Point.BASE.multiply(S, false);
  return SB.subtract(A.multiply(k, false)).equals(R);
}

function concat3(a: Uint8Array, b: Uint8Array, c: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length + c.length);
  out.set(a, 0);
  out.set(b, a.length);
  out.set(c, a.length + b.length);
  return out;
}

// --- WebCrypto fast path ---------------------------------------------------------------------

const webCrypto = new WebCryptoKeys({ name: "Ed25519" }, { name: "Ed25519" });

/**
 * Strict cofactorless Ed25519 verification (Decision 3): the strict pre-checks in JS, then
 * WebCrypto's Ed25519 (imported keys cached per public key). Falls back to ed25519VerifyPure where
 * WebCrypto has no Ed25519. Resolves false for any mismatch or malformed signature/key.
 *
 * @example await ed25519Verify(sig, msg, pub) // true | false
 */
export async function ed25519Verify(
  sig: Uint8Array,
  msg: Uint8Array,
  pub: Uint8Array,
): Promise<boolean> {
  assertBytes("sig", sig);
  assertBytes("msg", msg);
  assertBytes("pub", pub);
  if (!ed25519StrictPrecheck(sig, pub)) return false;
  if (webCrypto.disabled()) return ed25519VerifyPure(sig, msg, pub);
  const id = keyId(pub);
  const key = webCrypto.ready(id) ?? await webCrypto.import(id, () => pub.slice());
  if (key === null) return ed25519VerifyPure(sig, msg, pub);
  return webCrypto.verify(key, sig, msg);
}

/**
 * Forces the pure path in ed25519Verify (`false`), or lets it probe WebCrypto again (`true`).
 * For tests and for environments whose WebCrypto Ed25519 is known to be broken.
 */
export function setWebCryptoEd25519(enabled: boolean): void {
  webCrypto.setEnabled(enabled);
}

/** Which path ed25519Verify took last: "webcrypto", "pure", or "unprobed" before the first call. */
export function ed25519Backend(): Backend {
  return webCrypto.backend();
}

// --- signing ---------------------------------------------------------------------------------

/** RFC 8032 §5.1.5's expansion of a secret seed: the scalar s, the nonce prefix and A's bytes. */
interface Expanded {
  seed: Uint8Array; // a private copy, compared on every use: the caller may refill its array
  scalar: bigint;
  prefix: Uint8Array;
  pub: Uint8Array;
}

// Expanded keys by the caller's seed array (a log signs every head with one key): deriving A is a
// base-point multiplication, as costly as the signature itself, so it is done once per seed array.
const expanded = new WeakMap<Uint8Array, Expanded>();

function expand(secret32: Uint8Array): Expanded {
  const hit = expanded.get(secret32);
  if (hit && eq32(hit.seed, 0, secret32, 0)) return hit;
  const e = nobleUtils.getExtendedPublicKey(secret32); // SHA-512, clamp, [s]B (RFC 8032 §5.1.5)
  const out = { seed: secret32.slice(), scalar: e.scalar, prefix: e.prefix, pub: e.pointBytes };
  expanded.set(secret32, out);
  return out;
}

function modL(b: Uint8Array): bigint {
  return bytesToBigLE(b) % L;
}

/**
 * RFC 8032 §5.1.6 deterministic Ed25519 signature of `msg` under the 32-byte secret seed. The
 * seed's expansion (§5.1.5) is kept per seed array, so a signature costs one base-point
 * multiplication; the bytes are @noble/ed25519's `sign` (tests/verify/ed25519_test.ts).
 * @example ed25519Sign(new TextEncoder().encode("hi"), secret) // 64 bytes
 */
export function ed25519Sign(msg: Uint8Array, secret32: Uint8Array): Uint8Array {
  assertSecret(secret32);
  assertBytes("msg", msg);
  const e = expand(secret32);
  const r = modL(sha512(concat3(e.prefix, msg, new Uint8Array(0)))); // step 2: r = H(prefix || M)
  const R = Point.BASE.multiply(r).toBytes(); // step 3: R = [r]B (r = 0 throws, as noble's sign)
  const k = modL(sha512(concat3(R, e.pub, msg))); // step 4: k = H(R || A || M)
  const S = (r + k * e.scalar) % L; // step 5: S = (r + k·s) mod L
  const sig = new Uint8Array(64);
  sig.set(R, 0);
  sig.set(le32(S), 32);
  return sig;
}

/**
 * The 32-byte public key A of a 32-byte secret seed (RFC 8032 §5.1.5).
 * @example ed25519PublicKey(secret) // 32 bytes
 */
export function ed25519PublicKey(secret32: Uint8Array): Uint8Array {
  assertSecret(secret32);
  return expand(secret32).pub.slice();
}

/** A fresh random 32-byte secret seed from crypto.getRandomValues. */
export function ed25519GenerateSecret(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(32));
}

function assertSecret(s: unknown): void {
  if (!(s instanceof Uint8Array) || s.length !== 32) {
    throw new TypeError("Cannot use Ed25519 secret: expected a 32-byte Uint8Array seed");
  }
}
