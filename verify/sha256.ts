// SHA-256 (FIPS 180-4 §6.2) and HMAC-SHA-256 (RFC 2104, FIPS 198-1) in pure JS for the
// tool-receipt sub-signatures of JCR-1 §5, which are verified on every receipt that carries them:
// synchronous (no WebCrypto round trip per tag, which cost ~30 µs each), 32-bit locals, a reusable
// message scratch, and the keyed inner/outer states computed once per gateway key.
//
// Cross-checked against WebCrypto's SHA-256 and HMAC on every length either side of the block
// boundaries, RFC 4231's HMAC-SHA-256 test cases, and Python's hmac/hashlib through hmac.ts's tests
// (tests/verify/sha256_test.ts, tests/verify/hmac_test.ts).

// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first
// 64 primes.
// deno-fmt-ignore
const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
// FIPS 180-4 §5.3.3: the initial hash value.
// deno-fmt-ignore
const H0 = Int32Array.from([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

const W = new Int32Array(64); // message schedule
const state = new Int32Array(8); // the running hash of one call (calls never interleave)
const innerDigest = new Uint8Array(32);
const tail = new Uint8Array(128); // the message's last partial block and its padding

/** FIPS 180-4 §6.2.2: compresses the 64-byte blocks of `b[0, n)` into the state `h`. */
function compress(h: Int32Array, b: Uint8Array, n: number): void {
  let h0 = h[0], h1 = h[1], h2 = h[2], h3 = h[3], h4 = h[4], h5 = h[5], h6 = h[6], h7 = h[7];
  for (let o = 0; o < n; o += 64) {
    for (let t = 0; t < 16; t++) {
      const p = o + 4 * t; // big-endian words (FIPS 180-4 §3.1)
      W[t] = (b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3];
    }
    for (let t = 16; t < 64; t++) {
      const x = W[t - 15], y = W[t - 2];
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      W[t] = (W[t - 16] + s0 + W[t - 7] + s1) | 0;
    }
    let a = h0, bb = h1, c = h2, d = h3, e = h4, f = h5, g = h6, hh = h7;
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (hh + S1 + ((e & f) ^ (~e & g)) + K[t] + W[t]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & bb) ^ (a & c) ^ (bb & c))) | 0;
      hh = g, g = f, f = e, e = (d + t1) | 0, d = c, c = bb, bb = a, a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0, h1 = (h1 + bb) | 0, h2 = (h2 + c) | 0, h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0, h5 = (h5 + f) | 0, h6 = (h6 + g) | 0, h7 = (h7 + hh) | 0;
  }
  h[0] = h0, h[1] = h1, h[2] = h2, h[3] = h3, h[4] = h4, h[5] = h5, h[6] = h6, h[7] = h7;
}

/**
 * Absorbs the last part of a message, `msg`, into `h`, which has already absorbed `before` bytes
 * (a multiple of 64), with the FIPS 180-4 §5.1.1 padding; writes the 32-byte digest into `out`.
 */
function finish(h: Int32Array, before: number, msg: Uint8Array, out: Uint8Array): Uint8Array {
  const n = msg.length;
  const whole = n & ~63;
  compress(h, msg, whole); // whole blocks straight from the message
  const rest = n - whole;
  const padded = rest < 56 ? 64 : 128; // the rest, 0x80, zeros, the 64-bit bit length
  tail.set(msg.subarray(whole), 0);
  tail[rest] = 0x80;
  tail.fill(0, rest + 1, padded - 8);
  const bits = (before + n) * 8; // < 2^53: exact
  const hi = Math.floor(bits / 0x1_0000_0000), lo = bits >>> 0;
  tail[padded - 8] = hi >>> 24, tail[padded - 7] = hi >>> 16, tail[padded - 6] = hi >>> 8;
  tail[padded - 5] = hi, tail[padded - 4] = lo >>> 24, tail[padded - 3] = lo >>> 16;
  tail[padded - 2] = lo >>> 8, tail[padded - 1] = lo;
  compress(h, tail, padded);
  for (let i = 0; i < 8; i++) {
    const w = h[i];
    out[4 * i] = w >>> 24, out[4 * i + 1] = w >>> 16, out[4 * i + 2] = w >>> 8, out[4 * i + 3] = w;
  }
  return out;
}

function assertBytes(name: string, b: unknown): asserts b is Uint8Array {
  if (!(b instanceof Uint8Array)) throw new TypeError(`Cannot hash: ${name} is not a Uint8Array`);
}

/**
 * SHA-256 of `msg` (FIPS 180-4), 32 bytes.
 * @example toHex(sha256(new TextEncoder().encode("abc"))) // "ba7816bf...f20015ad"
 */
export function sha256(msg: Uint8Array): Uint8Array {
  assertBytes("msg", msg);
  state.set(H0);
  return finish(state, 0, msg, new Uint8Array(32));
}

/** A key's HMAC states after its ipad and opad blocks (RFC 2104 §2), and the key they are for. */
interface Keyed {
  key: Uint8Array;
  inner: Int32Array;
  outer: Int32Array;
}

const keyed = new WeakMap<Uint8Array, Keyed>();
const block = new Uint8Array(64);

function keyedStates(key: Uint8Array): Keyed {
  const hit = keyed.get(key);
  if (hit && sameBytes(hit.key, key)) return hit; // the caller's array may have been refilled
  // RFC 2104 §2: keys longer than the block are hashed first; shorter ones are zero-padded
  const k = key.length > 64 ? sha256(key) : key;
  const inner = H0.slice(), outer = H0.slice(); // long keys were hashed above, through `state`
  for (let i = 0; i < 64; i++) block[i] = (i < k.length ? k[i] : 0) ^ 0x36; // ipad
  compress(inner, block, 64);
  for (let i = 0; i < 64; i++) block[i] = (i < k.length ? k[i] : 0) ^ 0x5c; // opad
  compress(outer, block, 64);
  const entry = { key: key.slice(), inner, outer };
  keyed.set(key, entry);
  return entry;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * HMAC-SHA-256(key, msg) (RFC 2104 with SHA-256; RFC 4231), 32 bytes. The keyed states are
 * computed once per key array (and recomputed if its contents change).
 *
 * @example toHex(hmacSha256(new Uint8Array(20).fill(0x0b), new TextEncoder().encode("Hi There")))
 * // "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" (RFC 4231 test case 1)
 */
export function hmacSha256(key: Uint8Array, msg: Uint8Array): Uint8Array {
  assertBytes("key", key);
  assertBytes("msg", msg);
  const s = keyedStates(key);
  state.set(s.inner);
  finish(state, 64, msg, innerDigest); // H((K ^ ipad) || msg)
  state.set(s.outer);
  return finish(state, 64, innerDigest, new Uint8Array(32)); // H((K ^ opad) || inner)
}
