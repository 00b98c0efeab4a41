// Proof verification, RFC 9162 §2.1.3.2 (inclusion) and §2.1.4.2 (consistency), with the hash as a
// parameter. A cryptographic mismatch or a malformed proof is a `false`, never an exception. Index
// arithmetic uses division, not 32-bit bit operators, so every safe integer size works.
import { HASH_SIZE, type Hasher } from "./hasher.ts";

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}

const odd = (x: number) => x % 2 === 1;
const half = (x: number) => Math.floor(x / 2);
const isSize = (x: number) => Number.isSafeInteger(x) && x >= 0;
/**
 * Longest proof accepted: a tree of at most 2^53 leaves (safe integers) has proofs of at most 53
 * hashes (RFC 9162 §2.1.3.1, §2.1.4.1), and 64 bounds every u64 size. A longer proof is refused
 * before any hashing (issue 18: a hostile server's 100,000-hash proof costs nothing).
 */
export const MAX_PROOF_HASHES = 64;

const allHashes = (p: Uint8Array[]) =>
  p.length <= MAX_PROOF_HASHES && p.every((x) => x instanceof Uint8Array && x.length === HASH_SIZE);

/**
 * Verifies an inclusion proof, RFC 9162 §2.1.3.2.
 *
 * @example
 * ```ts
 * verifyInclusion(blake3Hasher, 0, 1, leaf, [], leaf); // true: a one-leaf tree's root is its leaf
 * ```
 */
export function verifyInclusion(
  h: Hasher,
  index: number,
  size: number,
  leafHash: Uint8Array,
  proof: Uint8Array[],
  root: Uint8Array,
): boolean {
  // §2.1.3.2 step 1: "Compare leaf_index from the inclusion_proof against tree_size ... fail if >=".
  if (!isSize(index) || !isSize(size) || index >= size) return false;
  if (!(leafHash instanceof Uint8Array) || leafHash.length !== HASH_SIZE) return false;
  if (!Array.isArray(proof) || !allHashes(proof)) return false;
  if (!(root instanceof Uint8Array) || root.length !== HASH_SIZE) return false;
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of proof) {
    if (sn === 0) return false; // §2.1.3.2 step 5.1: "If sn is 0, then stop the iteration and fail"
    if (odd(fn) || fn === sn) {
      r = h.node(p, r);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      r = h.node(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  // §2.1.3.2 step 6: "compare sn to 0. Compare r against the root_hash".
  return sn === 0 && equal(r, root);
}

/**
 * Verifies a consistency proof, RFC 9162 §2.1.4.2. Equal sizes verify with an empty proof and equal
 * roots; a proof from the empty tree proves nothing and is refused (as transparency-dev/merkle).
 *
 * @example
 * ```ts
 * verifyConsistency(blake3Hasher, 3, 7, proof, root3, root7);
 * ```
 */
export function verifyConsistency(
  h: Hasher,
  size1: number,
  size2: number,
  proof: Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): boolean {
  if (!isSize(size1) || !isSize(size2) || size1 > size2 || size1 === 0) return false;
  if (!Array.isArray(proof) || !(root1 instanceof Uint8Array) || !(root2 instanceof Uint8Array)) {
    return false;
  }
  if (size1 === size2) return proof.length === 0 && equal(root1, root2);
  // §2.1.4.2 step 1: "If consistency_path is an empty array, stop and fail the proof verification."
  if (proof.length === 0 || !allHashes(proof)) return false;
  if (root1.length !== HASH_SIZE || root2.length !== HASH_SIZE) return false;
  // Step 2: "If first is an exact power of 2, then prepend first_hash to the consistency_path".
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : proof;
  let fn = size1 - 1;
  let sn = size2 - 1;
  // Step 4: "If LSB(fn) is set, then right-shift both fn and sn equally until LSB(fn) is not set."
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false; // step 6.1
    if (odd(fn) || fn === sn) {
      fr = h.node(c, fr);
      sr = h.node(c, sr);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      sr = h.node(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  // Step 7: "verify that fr is equal to first_hash, sr is equal to second_hash and sn is 0".
  return sn === 0 && equal(fr, root1) && equal(sr, root2);
}

function isPowerOfTwo(x: number): boolean {
  while (x > 1 && x % 2 === 0) x /= 2;
  return x === 1;
}
