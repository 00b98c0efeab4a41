// RFC 6962 §2.1 tree hashing with the hash as a parameter; JouleClaw SPEC §22.1 plugs in BLAKE3
// (leaf BLAKE3(0x00 || entry), node BLAKE3(0x01 || l || r), empty tree BLAKE3("")). The SHA-256
// hasher exists so the upstream transparency-dev/merkle vectors run unchanged.
import { sha256 } from "@noble/hashes/sha2.js";
import { blake3, entryLeafHash } from "./crypto.ts";
import { blake3Chunk, CHUNK_LEN } from "./blake3_chunk.ts";

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

const scratch = new Uint8Array(CHUNK_LEN);

// SPEC §22.1: internal node BLAKE3(0x01 || left || right), one chunk, no allocation for the input.
function blake3Node(l: Uint8Array, r: Uint8Array): Uint8Array {
  if (1 + l.length + r.length > CHUNK_LEN) return blake3(Uint8Array.of(0x01, ...l, ...r));
  scratch[0] = 0x01;
  scratch.set(l, 1);
  scratch.set(r, 1 + l.length);
  return blake3Chunk(scratch.subarray(0, 1 + l.length + r.length));
}

// SPEC §22.1: leaf BLAKE3(0x00 || entry); entries over one chunk go to verify/'s entryLeafHash.
function blake3Leaf(entry: Uint8Array): Uint8Array {
  if (1 + entry.length > CHUNK_LEN) return entryLeafHash(entry);
  scratch[0] = 0x00;
  scratch.set(entry, 1);
  return blake3Chunk(scratch.subarray(0, 1 + entry.length));
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
  leaf: blake3Leaf,
  node: blake3Node,
  empty: () => blake3(new Uint8Array(0)),
};

/** RFC 6962 §2.1 with SHA-256, for the upstream vectors. */
export const sha256Hasher: Hasher = {
  leaf: (entry) => sha256.create().update(LEAF).update(entry).digest(),
  node: (l, r) => sha256.create().update(NODE).update(l).update(r).digest(),
  empty: () => sha256(new Uint8Array(0)),
};
