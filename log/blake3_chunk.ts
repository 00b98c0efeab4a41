// BLAKE3 of inputs that fit one chunk (≤ 1024 bytes), specialised for the log's hot path: every
// interior node is BLAKE3(0x01 || l || r), 65 bytes (JouleClaw SPEC §22.1). The BLAKE3 paper
// §2.2-2.5 (compression function, 7 rounds, flags CHUNK_START/CHUNK_END/ROOT) on 32-bit locals,
// with no allocation besides the output: about an order of magnitude faster than the general
// implementation for these sizes. Longer inputs go to verify/'s blake3 (log/hasher.ts).
// Cross-checked against verify's blake3 and the official vectors in log/blake3_chunk_test.ts.

const IV = new Uint32Array([
  0x6a09e667,
  0xbb67ae85,
  0x3c6ef372,
  0xa54ff53a,
  0x510e527f,
  0x9b05688c,
  0x1f83d9ab,
  0x5be0cd19,
]);
const CHUNK_START = 1, CHUNK_END = 2, ROOT = 8; // BLAKE3 §2.1 domain flags

// Message word order of each of the 7 rounds (the permutation applied round after round).
const PERM = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];
const SCHEDULE: number[][] = [];
for (let r = 0, order = [...Array(16).keys()]; r < 7; r++) {
  SCHEDULE.push(order);
  order = PERM.map((p) => order[p]);
}

/** Largest input `blake3Chunk` hashes. */
export const CHUNK_LEN = 1024;

const m = new Uint32Array(16);
const v = new Uint32Array(16);
const cv = new Uint32Array(8);

function g(a: number, b: number, c: number, d: number, x: number, y: number): void {
  v[a] = (v[a] + v[b] + x) | 0;
  let t = v[d] ^ v[a];
  v[d] = (t >>> 16) | (t << 16);
  v[c] = (v[c] + v[d]) | 0;
  t = v[b] ^ v[c];
  v[b] = (t >>> 12) | (t << 20);
  v[a] = (v[a] + v[b] + y) | 0;
  t = v[d] ^ v[a];
  v[d] = (t >>> 8) | (t << 24);
  v[c] = (v[c] + v[d]) | 0;
  t = v[b] ^ v[c];
  v[b] = (t >>> 7) | (t << 25);
}

/** BLAKE3 §2.2 compression of block `m` into `cv` (counter 0: the only chunk). */
function compress(blockLen: number, flags: number): void {
  v.set(cv, 0);
  v[8] = IV[0], v[9] = IV[1], v[10] = IV[2], v[11] = IV[3];
  v[12] = 0, v[13] = 0, v[14] = blockLen, v[15] = flags;
  for (let r = 0; r < 7; r++) {
    const s = SCHEDULE[r];
    g(0, 4, 8, 12, m[s[0]], m[s[1]]);
    g(1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(2, 6, 10, 14, m[s[4]], m[s[5]]);
    g(3, 7, 11, 15, m[s[6]], m[s[7]]);
    g(0, 5, 10, 15, m[s[8]], m[s[9]]);
    g(1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(2, 7, 8, 13, m[s[12]], m[s[13]]);
    g(3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (let i = 0; i < 8; i++) cv[i] = v[i] ^ v[i + 8];
}

function loadBlock(b: Uint8Array, off: number, len: number): void {
  m.fill(0);
  for (let i = 0; i < len; i++) m[i >> 2] |= b[off + i] << ((i & 3) * 8); // little-endian words
}

/**
 * BLAKE3-256 of `input` (at most 1024 bytes: one chunk, counter 0).
 *
 * @example
 * ```ts
 * blake3Chunk(new Uint8Array(0)); // af1349b9... = BLAKE3("")
 * ```
 */
export function blake3Chunk(input: Uint8Array): Uint8Array {
  const n = input.length;
  if (n > CHUNK_LEN) throw new RangeError(`Cannot hash ${n} bytes as one BLAKE3 chunk`);
  cv.set(IV);
  const blocks = Math.max(1, Math.ceil(n / 64));
  for (let k = 0; k < blocks; k++) {
    const len = k === blocks - 1 ? n - 64 * k : 64;
    loadBlock(input, 64 * k, len);
    let flags = k === 0 ? CHUNK_START : 0;
    if (k === blocks - 1) flags |= CHUNK_END | ROOT;
    compress(len, flags);
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const w = cv[i];
    out[4 * i] = w, out[4 * i + 1] = w >>> 8, out[4 * i + 2] = w >>> 16, out[4 * i + 3] = w >>> 24;
  }
  return out;
}
