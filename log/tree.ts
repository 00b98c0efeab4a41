// RFC 6962 §2.1 Merkle tree structure: the tree hash of any size (§2.1, split at the largest power
// of two strictly below n), and which subtrees an inclusion proof (§2.1.1) or a consistency proof
// (§2.1.2) consists of. Pure: proof generation names the nodes it needs and reading them is
// injected (a `NodeReader`), as in transparency-dev/merkle's proof.Inclusion.
import type { Hasher } from "./hasher.ts";

/** A complete (perfect) subtree: leaves [index·2^level, (index+1)·2^level). */
export interface NodeId {
  level: number;
  index: number;
}

/** A run of leaves [begin, end) whose RFC 6962 tree hash MTH(D[begin:end]) is one proof element. */
export interface LeafRange {
  begin: number;
  end: number;
}

/** Reads the hashes of complete subtrees, in the order asked. */
export type NodeReader = (ids: NodeId[]) => Promise<Uint8Array[]>;

/** Largest power of two strictly less than n (n >= 2): RFC 6962 §2.1's split point k. */
export function splitPoint(n: number): number {
  if (!Number.isSafeInteger(n) || n < 2) throw new RangeError(`Cannot split tree: size ${n} < 2`);
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The complete subtrees that make up MTH(D[begin:end]), left to right, for a range that is a
 * subtree of the RFC 6962 recursion (begin is a multiple of the largest power of two ≤ end-begin).
 */
export function rangeNodes(r: LeafRange): NodeId[] {
  const out: NodeId[] = [];
  let begin = r.begin;
  let rest = r.end - r.begin;
  while (rest > 0) {
    let size = 1;
    let level = 0;
    while (size * 2 <= rest) {
      size *= 2;
      level++;
    }
    if (begin % size !== 0) throw new RangeError(`Cannot split range [${r.begin}, ${r.end})`);
    out.push({ level, index: begin / size });
    begin += size;
    rest -= size;
  }
  return out;
}

/** Folds the complete subtrees of one range into its RFC 6962 hash: H(c1, H(c2, ... cn)). */
export function foldRange(h: Hasher, hashes: Uint8Array[]): Uint8Array {
  let acc = hashes[hashes.length - 1];
  for (let i = hashes.length - 2; i >= 0; i--) acc = h.node(hashes[i], acc);
  return acc;
}

/** RFC 6962 §2.1.1 PATH(m, D[n]): the ranges of an inclusion proof, leaf-side first. */
export function inclusionRanges(index: number, size: number): LeafRange[] {
  if (!Number.isSafeInteger(size) || !Number.isSafeInteger(index) || index < 0 || index >= size) {
    throw new RangeError(`Cannot prove inclusion: index ${index} not in a tree of size ${size}`);
  }
  const out: LeafRange[] = [];
  let lo = 0;
  let n = size;
  let m = index;
  while (n > 1) {
    const k = splitPoint(n);
    if (m < k) {
      out.push({ begin: lo + k, end: lo + n });
      n = k;
    } else {
      out.push({ begin: lo, end: lo + k });
      lo += k;
      m -= k;
      n -= k;
    }
  }
  return out.reverse();
}

/** RFC 6962 §2.1.2 PROOF(m, D[n]) = SUBPROOF(m, D[n], true), for 0 < m < n; leaf-side first. */
export function consistencyRanges(first: number, second: number): LeafRange[] {
  if (
    !Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first <= 0 ||
    first >= second
  ) {
    throw new RangeError(
      `Cannot prove consistency: need 0 < first < second, got ${first}, ${second}`,
    );
  }
  const out: LeafRange[] = [];
  let lo = 0;
  let n = second;
  let m = first;
  let b = true;
  while (m !== n) {
    const k = splitPoint(n);
    if (m <= k) {
      out.push({ begin: lo + k, end: lo + n });
      n = k;
    } else {
      out.push({ begin: lo, end: lo + k });
      lo += k;
      m -= k;
      n -= k;
      b = false;
    }
  }
  // SUBPROOF(m, D[m], b): [] when b, else [MTH(D[m])].
  if (!b) out.push({ begin: lo, end: lo + n });
  return out.reverse();
}

/** The complete subtrees whose hashes give the tree head of `size` leaves. */
export function rootNodes(size: number): NodeId[] {
  return size === 0 ? [] : rangeNodes({ begin: 0, end: size });
}

/** Range hashes already computed, keyed "begin:end" (a sequencer batch shares one). */
export type RangeMemo = Map<string, Uint8Array>;

/** Hashes a list of ranges with one batched read of all the nodes they need. */
export async function hashRanges(
  h: Hasher,
  ranges: LeafRange[],
  read: NodeReader,
  memo?: RangeMemo,
): Promise<Uint8Array[]> {
  const todo = memo ? ranges.filter((r) => !memo.has(`${r.begin}:${r.end}`)) : ranges;
  const parts = todo.map(rangeNodes);
  const hashes = await read(parts.flat());
  const done = new Map<LeafRange, Uint8Array>();
  let at = 0;
  parts.forEach((p, i) => {
    const hash = foldRange(h, hashes.slice(at, at + p.length));
    at += p.length;
    done.set(todo[i], hash);
    memo?.set(`${todo[i].begin}:${todo[i].end}`, hash);
  });
  return ranges.map((r) => done.get(r) ?? memo!.get(`${r.begin}:${r.end}`)!);
}

/** RFC 6962 §2.1 MTH of the tree of `size` leaves, from stored nodes. */
export async function treeRoot(h: Hasher, size: number, read: NodeReader): Promise<Uint8Array> {
  if (size === 0) return h.empty(); // §2.1: MTH({}) = HASH()
  const [root] = await hashRanges(h, [{ begin: 0, end: size }], read);
  return root;
}

/** RFC 6962 §2.1.1 inclusion proof of leaf `index` in the tree of `size` leaves. */
export function inclusionProof(
  h: Hasher,
  index: number,
  size: number,
  read: NodeReader,
  memo?: RangeMemo,
): Promise<Uint8Array[]> {
  return hashRanges(h, inclusionRanges(index, size), read, memo);
}

/** RFC 6962 §2.1.2 consistency proof from `first` to `second` leaves ([] when first == second). */
export function consistencyProof(
  h: Hasher,
  first: number,
  second: number,
  read: NodeReader,
): Promise<Uint8Array[]> {
  if (first === second && Number.isSafeInteger(first) && first >= 0) return Promise.resolve([]);
  return hashRanges(h, consistencyRanges(first, second), read);
}

/** Naive recursive RFC 6962 §2.1 MTH over leaf hashes: the reference the tests compare against. */
export function referenceRoot(h: Hasher, leafHashes: Uint8Array[]): Uint8Array {
  const n = leafHashes.length;
  if (n === 0) return h.empty();
  if (n === 1) return leafHashes[0];
  const k = splitPoint(n);
  return h.node(referenceRoot(h, leafHashes.slice(0, k)), referenceRoot(h, leafHashes.slice(k)));
}
