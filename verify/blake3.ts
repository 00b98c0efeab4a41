// BLAKE3-256 (the BLAKE3 paper, §2.1-2.6; JouleClaw SPEC §22.1 hashes every log leaf and node with
// it) in pure JS, specialised for the sizes this service hashes: receipts and log nodes fit ONE
// chunk (≤ 1024 bytes), so that case runs as one function over 32-bit locals with a reusable
// scratch buffer and no allocation besides the 32-byte output. Longer inputs (the general tree
// mode: chunk counters, parent nodes) go to @noble/hashes' audited implementation.
//
// Cross-checked against the official vectors (conformance/upstream/blake3/blake3.json), against
// @noble/hashes on random inputs of every length 0..2100, and against the b3sum CLI
// (tests/verify/blake3_test.ts, tests/verify/bytes_test.ts).
import { blake3 as nobleBlake3 } from "@noble/hashes/blake3.js";

/** Bytes in one BLAKE3 chunk: inputs up to this length take the single-chunk fast path. */
export const BLAKE3_CHUNK_LEN = 1024;

// BLAKE3 §2.2: the IV is SHA-256's.
const IV0 = 0x6a09e667, IV1 = 0xbb67ae85, IV2 = 0x3c6ef372, IV3 = 0xa54ff53a;
const IV4 = 0x510e527f, IV5 = 0x9b05688c, IV6 = 0x1f83d9ab, IV7 = 0x5be0cd19;
// BLAKE3 §2.1 domain flags
const CHUNK_START = 1, CHUNK_END = 2, ROOT = 8;

// Scratch: the message, zero-padded to whole 64-byte blocks, read as little-endian words.
const scratch = new Uint8Array(BLAKE3_CHUNK_LEN);
const words = new Uint32Array(scratch.buffer);
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * BLAKE3-256 of the `n` bytes at the start of `scratch` (n ≤ 1024; the bytes after n up to the
 * end of the last block are zero). One chunk with counter 0 is also the root (BLAKE3 §2.4-2.5).
 */
function hashScratch(n: number): Uint8Array {
  const blocks = n === 0 ? 1 : (n + 63) >> 6;
  if (!LITTLE_ENDIAN) {
    for (let i = 0; i < blocks * 16; i++) {
      const w = words[i]; // BLAKE3 §2.2: message words are little-endian
      words[i] = (w >>> 24) | ((w >>> 8) & 0xff00) | ((w & 0xff00) << 8) | (w << 24);
    }
  }
  let h0 = IV0, h1 = IV1, h2 = IV2, h3 = IV3, h4 = IV4, h5 = IV5, h6 = IV6, h7 = IV7;
  for (let k = 0; k < blocks; k++) {
    const last = k === blocks - 1;
    const len = last ? n - 64 * k : 64;
    const flags = (k === 0 ? CHUNK_START : 0) | (last ? CHUNK_END | ROOT : 0);
    const o = k << 4;
    let m0 = words[o], m1 = words[o + 1], m2 = words[o + 2], m3 = words[o + 3];
    let m4 = words[o + 4], m5 = words[o + 5], m6 = words[o + 6], m7 = words[o + 7];
    let m8 = words[o + 8], m9 = words[o + 9], m10 = words[o + 10], m11 = words[o + 11];
    let m12 = words[o + 12], m13 = words[o + 13], m14 = words[o + 14], m15 = words[o + 15];
    // BLAKE3 §2.2 compression state: chaining value, IV[0..3], counter (0: the only chunk),
    // block length, flags.
    let v0 = h0, v1 = h1, v2 = h2, v3 = h3, v4 = h4, v5 = h5, v6 = h6, v7 = h7;
    let v8 = IV0, v9 = IV1, v10 = IV2, v11 = IV3, v12 = 0, v13 = 0, v14 = len, v15 = flags;
    let t = 0;
    for (let r = 0; r < 7; r++) {
      // columns: G(0,4,8,12) G(1,5,9,13) G(2,6,10,14) G(3,7,11,15)
      v0 = (v0 + v4 + m0) | 0, t = v12 ^ v0, v12 = (t >>> 16) | (t << 16);
      v8 = (v8 + v12) | 0, t = v4 ^ v8, v4 = (t >>> 12) | (t << 20);
      v0 = (v0 + v4 + m1) | 0, t = v12 ^ v0, v12 = (t >>> 8) | (t << 24);
      v8 = (v8 + v12) | 0, t = v4 ^ v8, v4 = (t >>> 7) | (t << 25);
      v1 = (v1 + v5 + m2) | 0, t = v13 ^ v1, v13 = (t >>> 16) | (t << 16);
      v9 = (v9 + v13) | 0, t = v5 ^ v9, v5 = (t >>> 12) | (t << 20);
      v1 = (v1 + v5 + m3) | 0, t = v13 ^ v1, v13 = (t >>> 8) | (t << 24);
      v9 = (v9 + v13) | 0, t = v5 ^ v9, v5 = (t >>> 7) | (t << 25);
      v2 = (v2 + v6 + m4) | 0, t = v14 ^ v2, v14 = (t >>> 16) | (t << 16);
      v10 = (v10 + v14) | 0, t = v6 ^ v10, v6 = (t >>> 12) | (t << 20);
      v2 = (v2 + v6 + m5) | 0, t = v14 ^ v2, v14 = (t >>> 8) | (t << 24);
      v10 = (v10 + v14) | 0, t = v6 ^ v10, v6 = (t >>> 7) | (t << 25);
      v3 = (v3 + v7 + m6) | 0, t = v15 ^ v3, v15 = (t >>> 16) | (t << 16);
      v11 = (v11 + v15) | 0, t = v7 ^ v11, v7 = (t >>> 12) | (t << 20);
      v3 = (v3 + v7 + m7) | 0, t = v15 ^ v3, v15 = (t >>> 8) | (t << 24);
      v11 = (v11 + v15) | 0, t = v7 ^ v11, v7 = (t >>> 7) | (t << 25);
      // diagonals: G(0,5,10,15) G(1,6,11,12) G(2,7,8,13) G(3,4,9,14)
      v0 = (v0 + v5 + m8) | 0, t = v15 ^ v0, v15 = (t >>> 16) | (t << 16);
      v10 = (v10 + v15) | 0, t = v5 ^ v10, v5 = (t >>> 12) | (t << 20);
      v0 = (v0 + v5 + m9) | 0, t = v15 ^ v0, v15 = (t >>> 8) | (t << 24);
      v10 = (v10 + v15) | 0, t = v5 ^ v10, v5 = (t >>> 7) | (t << 25);
      v1 = (v1 + v6 + m10) | 0, t = v12 ^ v1, v12 = (t >>> 16) | (t << 16);
      v11 = (v11 + v12) | 0, t = v6 ^ v11, v6 = (t >>> 12) | (t << 20);
      v1 = (v1 + v6 + m11) | 0, t = v12 ^ v1, v12 = (t >>> 8) | (t << 24);
      v11 = (v11 + v12) | 0, t = v6 ^ v11, v6 = (t >>> 7) | (t << 25);
      v2 = (v2 + v7 + m12) | 0, t = v13 ^ v2, v13 = (t >>> 16) | (t << 16);
      v8 = (v8 + v13) | 0, t = v7 ^ v8, v7 = (t >>> 12) | (t << 20);
      v2 = (v2 + v7 + m13) | 0, t = v13 ^ v2, v13 = (t >>> 8) | (t << 24);
      v8 = (v8 + v13) | 0, t = v7 ^ v8, v7 = (t >>> 7) | (t << 25);
      v3 = (v3 + v4 + m14) | 0, t = v14 ^ v3, v14 = (t >>> 16) | (t << 16);
      v9 = (v9 + v14) | 0, t = v4 ^ v9, v4 = (t >>> 12) | (t << 20);
      v3 = (v3 + v4 + m15) | 0, t = v14 ^ v3, v14 = (t >>> 8) | (t << 24);
      v9 = (v9 + v14) | 0, t = v4 ^ v9, v4 = (t >>> 7) | (t << 25);
      // BLAKE3 §2.2 message permutation (2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8)
      const p0 = m0, p1 = m1, p4 = m4, p5 = m5, p8 = m8;
      m0 = m2, m1 = m6, m2 = m3, m3 = m10, m4 = m7, m5 = p0, m6 = p4, m7 = m13;
      m8 = p1, m10 = m12, m12 = m9, m9 = m11, m11 = p5, m13 = m14, m14 = m15, m15 = p8;
    }
    // truncated output: the new chaining value (the root's first 32 bytes, BLAKE3 §2.6)
    h0 = v0 ^ v8, h1 = v1 ^ v9, h2 = v2 ^ v10, h3 = v3 ^ v11;
    h4 = v4 ^ v12, h5 = v5 ^ v13, h6 = v6 ^ v14, h7 = v7 ^ v15;
  }
  const out = new Uint8Array(32);
  le32(out, 0, h0), le32(out, 4, h1), le32(out, 8, h2), le32(out, 12, h3);
  le32(out, 16, h4), le32(out, 20, h5), le32(out, 24, h6), le32(out, 28, h7);
  return out;
}

function le32(out: Uint8Array, o: number, w: number): void {
  out[o] = w, out[o + 1] = w >>> 8, out[o + 2] = w >>> 16, out[o + 3] = w >>> 24;
}

/** Copies [prefix] || b (≤ 1024 bytes; prefix < 0: none) into the scratch, zero-padding its last block. */
function load(prefix: number, b: Uint8Array): number {
  let n = 0;
  if (prefix >= 0) scratch[n++] = prefix;
  scratch.set(b, n);
  n += b.length;
  scratch.fill(0, n, n === 0 ? 64 : (n + 63) & ~63);
  return n;
}

function assertBytes(b: unknown): asserts b is Uint8Array {
  if (!(b instanceof Uint8Array)) throw new TypeError("Cannot hash: input is not a Uint8Array");
}

/**
 * BLAKE3-256 of `b` (32 bytes). Inputs of at most 1024 bytes take the allocation-free
 * single-chunk path; longer ones the general tree mode of @noble/hashes.
 *
 * @example toHex(blake3Hash(new Uint8Array())) // "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
 */
export function blake3Hash(b: Uint8Array): Uint8Array {
  assertBytes(b);
  if (b.length > BLAKE3_CHUNK_LEN) return nobleBlake3(b);
  return hashScratch(load(-1, b));
}

/**
 * BLAKE3-256 of the byte `prefix` followed by `b`, without building the concatenation (JouleClaw
 * SPEC §22.1 domain-separates leaves with 0x00 and nodes with 0x01).
 *
 * @example blake3Prefixed(0x00, entry) // = blake3Hash(Uint8Array.of(0, ...entry))
 */
export function blake3Prefixed(prefix: number, b: Uint8Array): Uint8Array {
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 255) {
    throw new RangeError(`Cannot hash with prefix ${prefix}: not a byte`);
  }
  assertBytes(b);
  if (1 + b.length > BLAKE3_CHUNK_LEN) {
    const h = nobleBlake3.create();
    h.update(Uint8Array.of(prefix));
    h.update(b);
    return h.digest();
  }
  return hashScratch(load(prefix, b));
}
