// A small in-memory SHA-256 (or any hasher) tree for tests: roots and consistency proofs through
// log/tree.ts's own functions over a NodeReader of leaf hashes.
import { consistencyProof, type Hasher, type NodeId, referenceRoot } from "../../log/mod.ts";

/** A tree over `n` leaves whose entries are "leaf <i>" (or `entry(i)`). */
export function testTree(h: Hasher, entry: (i: number) => string = (i) => `leaf ${i}`) {
  const leaves: Uint8Array[] = [];
  const grow = (n: number) => {
    while (leaves.length < n) leaves.push(h.leaf(new TextEncoder().encode(entry(leaves.length))));
  };
  const read = (ids: NodeId[]) =>
    Promise.resolve(
      ids.map(({ level, index }) =>
        referenceRoot(h, leaves.slice(index * 2 ** level, (index + 1) * 2 ** level))
      ),
    );
  return {
    root(n: number): Uint8Array {
      grow(n);
      return referenceRoot(h, leaves.slice(0, n));
    },
    proof(a: number, b: number): Promise<Uint8Array[]> {
      grow(b);
      return consistencyProof(h, a, b, read);
    },
  };
}
