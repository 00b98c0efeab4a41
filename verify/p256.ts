// ES256: ECDSA over P-256 with SHA-256 (COSE alg -7, RFC 9053 §2.1; JCR-1 §4 "ES256 (-7)
// permitted"), strict (docs/DECISIONS.md "ES256"):
//   - the signature is exactly 64 bytes r ‖ s, each 32-byte big-endian (RFC 9053 §2.1), with
//     0 < r < n and 0 < s < n (SEC 1 v2 §4.1.4 step 1); high s is accepted (most signers do not
//     normalise it) — the log's content identity, not the verifier, keeps (r, n − s) from
//     producing a second entry (verify/content_id.ts);
//   - the public key is a SEC 1 §2.3.3 point on P-256 with x, y < p, never the point at infinity:
//     33 bytes compressed (0x02/0x03 ‖ x) or 65 bytes uncompressed (0x04 ‖ x ‖ y);
//   - then SEC 1 §4.1.4: e = SHA-256(m), u1 = e·s⁻¹, u2 = r·s⁻¹, R = u1·G + u2·Q ≠ ∞, R.x mod n = r.
// One rule on two paths, as for Ed25519: es256Verify (the checks in JS, then WebCrypto's ECDSA)
// and es256VerifyPure (@noble/curves Point arithmetic, not its `verify`). Both are run over every
// Wycheproof ecdsa_secp256r1_sha256_p1363 case in tests/verify/p256_upstream_test.ts.
import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "./sha256.ts";
import { type Backend, keyId, setBounded, WebCryptoKeys } from "./webcrypto_keys.ts";

const Point = p256.Point;
const Fn = Point.Fn;
/** The order n of P-256's base point (SEC 2 §2.4.2). */
export const P256_N = Fn.ORDER;
/** The field prime p of P-256. */
export const P256_P = Point.Fp.ORDER;

/** Big-endian bytes [off, off + len) as a bigint. */
function bigBE(b: Uint8Array, off: number, len: number): bigint {
  let n = 0n;
  for (let i = off; i < off + len; i++) n = (n << 8n) | BigInt(b[i]);
  return n;
}

function assertBytes(name: string, v: unknown): asserts v is Uint8Array {
  if (!(v instanceof Uint8Array)) {
    throw new TypeError(`Cannot verify ES256: ${name} is not a Uint8Array`);
  }
}

/** Why an ES256 signature is refused before any curve arithmetic, or undefined when it is not. */
export type Es256Refusal =
  | "signature-length"
  | "r-range"
  | "s-range"
  | "key-encoding"
  | "key-not-on-curve";

/**
 * The strict checks of the signature's form (64 bytes, 0 < r, s < n), without arithmetic.
 * @example es256SignatureForm(sig) // undefined when well-formed, else the refusal
 */
export function es256SignatureForm(sig: Uint8Array): Es256Refusal | undefined {
  if (sig.length !== 64) return "signature-length"; // RFC 9053 §2.1: r ‖ s, 32 bytes each
  const r = bigBE(sig, 0, 32), s = bigBE(sig, 32, 32);
  if (r === 0n || r >= P256_N) return "r-range"; // SEC 1 §4.1.4 step 1
  if (s === 0n || s >= P256_N) return "s-range";
  return undefined;
}

/**
 * The point a SEC 1 encoded P-256 public key names, or the reason it names none: 33 bytes
 * compressed or 65 uncompressed, coordinates below p, on the curve, not infinity (whose one-byte
 * 0x00 encoding is refused by its length).
 */
function decodePoint(pub: Uint8Array): InstanceType<typeof Point> | Es256Refusal {
  const tag = pub[0];
  if (pub.length === 33 ? tag !== 2 && tag !== 3 : pub.length !== 65 || tag !== 4) {
    return "key-encoding";
  }
  if (bigBE(pub, 1, 32) >= P256_P) return "key-encoding"; // x < p: canonical
  if (pub.length === 65 && bigBE(pub, 33, 32) >= P256_P) return "key-encoding"; // y < p
  try {
    const q = Point.fromBytes(pub); // checks the curve equation (and x³ + ax + b a square)
    q.assertValidity();
    return q.is0() ? "key-not-on-curve" : q;
  } catch {
    return "key-not-on-curve";
  }
}

/**
 * Why `pub` is not a usable P-256 public key, or undefined when it is (SEC 1 §2.3.4 with x, y < p).
 * @example p256KeyProblem(fromHex("02" + x)) // undefined | "key-encoding" | "key-not-on-curve"
 */
export function p256KeyProblem(pub: Uint8Array): Es256Refusal | undefined {
  const q = decodePoint(pub);
  return typeof q === "string" ? q : undefined;
}

/**
 * The 33-byte compressed encoding of a valid P-256 public key given in either SEC 1 form.
 * Throws RangeError for an invalid key.
 */
export function p256Compress(pub: Uint8Array): Uint8Array {
  const q = decodePoint(pub);
  if (typeof q === "string") throw new RangeError(`Cannot compress P-256 key: ${q}`);
  return q.toBytes(true);
}

/**
 * Strict ES256 verification in pure JS (@noble/curves Point arithmetic, SEC 1 §4.1.4). False
 * for any mismatch or malformed signature/key.
 *
 * @example es256VerifyPure(sig64, msg, pub33) // true | false
 */
export function es256VerifyPure(sig: Uint8Array, msg: Uint8Array, pub: Uint8Array): boolean {
  assertBytes("sig", sig);
  assertBytes("msg", msg);
  assertBytes("pub", pub);
  if (es256SignatureForm(sig) !== undefined) return false;
  const q = decodePoint(pub);
  if (typeof q === "string") return false;
  const r = bigBE(sig, 0, 32), s = bigBE(sig, 32, 32);
  const e = Fn.create(bigBE(sha256(msg), 0, 32)); // SHA-256 is as long as n: no truncation
  const w = Fn.inv(s);
  const R = Point.BASE.mulAddUnsafe(Fn.mul(e, w), q, Fn.mul(r, w)); // u1·G + u2·Q
  if (R.is0()) return false;
  return Fn.create(R.toAffine().x) === r;
}

// --- WebCrypto fast path ---------------------------------------------------------------------

const webCrypto = new WebCryptoKeys(
  { name: "ECDSA", namedCurve: "P-256" },
  { name: "ECDSA", hash: "SHA-256" },
);

/** Decoded keys by encoding (decompression costs a square root): bounded, oldest out first. */
const points = new Map<string, InstanceType<typeof Point> | Es256Refusal>();

/**
 * Strict ES256 verification: the signature-form and key checks in JS, then WebCrypto's
 * ECDSA P-256 / SHA-256 (imported keys cached per key). Falls back to es256VerifyPure where
 * WebCrypto has no P-256. Resolves false for any mismatch or malformed signature/key.
 *
 * @example await es256Verify(sig64, msg, pub33) // true | false
 */
export async function es256Verify(
  sig: Uint8Array,
  msg: Uint8Array,
  pub: Uint8Array,
): Promise<boolean> {
  assertBytes("sig", sig);
  assertBytes("msg", msg);
  assertBytes("pub", pub);
  if (es256SignatureForm(sig) !== undefined) return false;
  const id = keyId(pub);
  let q = points.get(id);
  if (q === undefined) {
    q = decodePoint(pub);
    setBounded(points, id, q);
  }
  if (typeof q === "string") return false;
  if (webCrypto.disabled()) return es256VerifyPure(sig, msg, pub);
  const point = q;
  // a key already checked valid is imported as its uncompressed form, which every WebCrypto reads
  const key = webCrypto.ready(id) ?? await webCrypto.import(id, () => point.toBytes(false));
  if (key === null) return es256VerifyPure(sig, msg, pub);
  return webCrypto.verify(key, sig, msg);
}

/** Forces the pure path in es256Verify (`false`), or lets it probe WebCrypto again (`true`). */
export function setWebCryptoEs256(enabled: boolean): void {
  webCrypto.setEnabled(enabled);
}

/** Which path es256Verify took last: "webcrypto", "pure", or "unprobed" before the first call. */
export function es256Backend(): Backend {
  return webCrypto.backend();
}

/**
 * An ES256 signature r ‖ s of `msg` under a 32-byte P-256 secret scalar (RFC 6979 deterministic
 * nonce, s as the library gives it; `lowS: false` keeps high s possible, as real signers do).
 * @example es256Sign(msg, secret) // 64 bytes
 */
export function es256Sign(msg: Uint8Array, secret32: Uint8Array): Uint8Array {
  assertSecret(secret32);
  return p256.sign(msg, secret32, { lowS: false, prehash: true, format: "compact" });
}

/** The 33-byte compressed public key of a 32-byte P-256 secret scalar. */
export function p256PublicKey(secret32: Uint8Array): Uint8Array {
  assertSecret(secret32);
  return p256.getPublicKey(secret32, true);
}

/** A fresh random valid P-256 secret scalar (32 bytes). */
export function p256GenerateSecret(): Uint8Array {
  return p256.utils.randomSecretKey();
}

/** The twin signature (r, n − s): valid exactly when (r, s) is (ECDSA malleability). */
export function es256Malleate(sig: Uint8Array): Uint8Array {
  if (!(sig instanceof Uint8Array) || es256SignatureForm(sig) !== undefined) {
    throw new RangeError("Cannot malleate: not a well-formed ES256 signature");
  }
  const s = P256_N - bigBE(sig, 32, 32);
  const out = sig.slice();
  for (let i = 63, v = s; i >= 32; i--, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}

function assertSecret(s: unknown): void {
  if (!(s instanceof Uint8Array) || s.length !== 32) {
    throw new TypeError("Cannot use P-256 secret: expected a 32-byte Uint8Array scalar");
  }
}
