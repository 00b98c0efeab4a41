// RFC 6962 §2.1 tree hashing with the hash as a parameter; JouleClaw SPEC §22.1 plugs in BLAKE3
// (leaf BLAKE3(0x00 || entry), node BLAKE3(0x01 || l || r), empty tree BLAKE3("")). The SHA-256
// hasher exists so the upstream transparency-dev/merkle vectors run unchanged. BLAKE3 is verify/'s
// (verify/blake3.ts via log/crypto.ts); SHA-256 is verify/sha256.ts's (FIPS 180-4, the one the
// tool-receipt HMACs use), which costs the append path about a third of @noble/hashes' per leaf.
import { blake3, entryLeafHash, sha256 } from "./crypto.ts";

/** Bytes per hash for every hasher of this log (BLAKE3-256, SHA-256). */
export const HASH_SIZE = 32;

/** The three hashes of an RFC 6962 tree. */
export interface Hasher {
  /** Leaf hash: H(0x00 || entry). */
  leaf(entry: Uint8Array): Uint8Array;
  /** Interior node hash: H(0x01 || l || r). */
  node(l: Uint8Array, r: Uint8Array): Uint8Array;
  /** Root of the empty tree: H(""). */
  empty(): Uint8Array;
}

// 0x00 || entry and 0x01 || l || r for the SHA-256 view, assembled in a reused scratch (the hash
// runs synchronously, so calls never interleave).
let scratch = new Uint8Array(1024);

function prefixed(tag: number, a: Uint8Array, b?: Uint8Array): Uint8Array {
  const n = 1 + a.length + (b ? b.length : 0);
  if (scratch.length < n) scratch = new Uint8Array(Math.max(n, 2 * scratch.length));
  scratch[0] = tag;
  scratch.set(a, 1);
  if (b) scratch.set(b, 1 + a.length);
  return scratch.subarray(0, n);
}

// 0x01 || l || r for 32-byte children, assembled in place; verify/'s BLAKE3 (one chunk, no
// allocation but the output) hashes it. One implementation of BLAKE3 in the project.
const nodeInput = new Uint8Array(1 + 2 * HASH_SIZE);
nodeInput[0] = 0x01;

// SPEC §22.1: internal node BLAKE3(0x01 || left || right).
function blake3Node(l: Uint8Array, r: Uint8Array): Uint8Array {
  if (l.length !== HASH_SIZE || r.length !== HASH_SIZE) {
    return blake3(Uint8Array.of(0x01, ...l, ...r));
  }
  nodeInput.set(l, 1);
  nodeInput.set(r, 1 + HASH_SIZE);
  return blake3(nodeInput);
}

/**
 * The log's hasher, JouleClaw SPEC §22.1.
 *
 * @example
 * ```ts
 * const root1 = blake3Hasher.leaf(new TextEncoder().encode("receipt"));
 * ```
 */
export const blake3Hasher: Hasher = {
  leaf: entryLeafHash, // SPEC §22.1: leaf BLAKE3(0x00 || entry)
  node: blake3Node,
  empty: () => blake3(new Uint8Array(0)),
};

/** RFC 6962 §2.1 with SHA-256, for the upstream vectors. */
export const sha256Hasher: Hasher = {
  leaf: (entry) => sha256(prefixed(0x00, entry)),
  node: (l, r) => sha256(prefixed(0x01, l, r)),
  empty: () => sha256(new Uint8Array(0)),
};
