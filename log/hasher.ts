// RFC 6962 §2.1 tree hashing with the hash as a parameter; JouleClaw SPEC §22.1 plugs in BLAKE3
// (leaf BLAKE3(0x00 || entry), node BLAKE3(0x01 || l || r), empty tree BLAKE3("")). The SHA-256
// hasher exists so the upstream transparency-dev/merkle vectors run unchanged.
import { sha256 } from "@noble/hashes/sha2.js";
import { blake3, entryLeafHash } from "./crypto.ts";

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

const LEAF = new Uint8Array([0x00]);
const NODE = new Uint8Array([0x01]);

function nodeInput(l: Uint8Array, r: Uint8Array): Uint8Array {
  const b = new Uint8Array(1 + l.length + r.length);
  b[0] = 0x01;
  b.set(l, 1);
  b.set(r, 1 + l.length);
  return b;
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
  leaf: (entry) => entryLeafHash(entry),
  // SPEC §22.1: internal node BLAKE3(0x01 || left || right).
  node: (l, r) => blake3(nodeInput(l, r)),
  empty: () => blake3(new Uint8Array(0)),
};

/** RFC 6962 §2.1 with SHA-256, for the upstream vectors. */
export const sha256Hasher: Hasher = {
  leaf: (entry) => sha256.create().update(LEAF).update(entry).digest(),
  node: (l, r) => sha256.create().update(NODE).update(l).update(r).digest(),
  empty: () => sha256(new Uint8Array(0)),
};
