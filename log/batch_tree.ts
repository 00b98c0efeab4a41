// One sequencer batch's part of the RFC 6962 tree (§2.1), built bottom-up in memory so that every
// new leaf's inclusion proof (§2.1.1) is read off, not recomputed. Level ℓ holds the nodes
// (ℓ, j) covering leaves [j·2^ℓ, min((j+1)·2^ℓ, size)) from the first node touching the batch to
// the right border; a border node without a right child takes its left child's hash, which makes
// every node equal to RFC 6962's MTH of its range (the "ephemeral node" view of transparency-dev/
// merkle). Left of the batch, a node whose sibling holds only old leaves gets that sibling from the
// old tree's decomposition (the complete subtrees of `base`, one per set bit), so a batch of B
// leaves costs about B node hashes in all, whatever the tree's size. Pure.
import type { Hasher } from "./hasher.ts";
import { toHex } from "./crypto.ts";

/** The tree of `base + leaves.length` leaves, as far as the batch's leaves need it. */
export class BatchTree {
  /** Leaves before the batch. */
  readonly base: number;
  /** Leaves after it. */
  readonly size: number;
  readonly #levels: Uint8Array[][] = [];
  readonly #offsets: number[] = [];
  readonly #hex: (string | undefined)[][] = [];
  readonly #old: (Uint8Array | undefined)[];
  readonly #oldHex: (string | undefined)[] = [];

  /**
   * @param oldRoots the old tree's decomposition by level: `oldRoots[ℓ]` is the hash of the
   *   complete subtree (ℓ, ⌊base/2^ℓ⌋ − 1) for every set bit ℓ of `base` (RFC 6962 §2.1).
   * @param leaves the batch's leaf hashes, for indices base, base+1, ...
   */
  constructor(h: Hasher, base: number, oldRoots: (Uint8Array | undefined)[], leaves: Uint8Array[]) {
    if (leaves.length === 0) throw new RangeError("Cannot build a batch tree: no leaves");
    this.base = base;
    this.size = base + leaves.length;
    this.#old = oldRoots;
    let row = leaves;
    let off = base;
    for (let level = 0;; level++) {
      this.#levels.push(row);
      this.#offsets.push(off);
      this.#hex.push(new Array(row.length));
      if (off === 0 && row.length === 1) break; // node (level, 0) covers [0, size): the root
      const next: Uint8Array[] = [];
      let k = 0;
      if (off % 2 === 1) {
        next.push(h.node(this.#oldAt(level), row[0]));
        k = 1;
      }
      for (; k < row.length; k += 2) {
        next.push(k + 1 < row.length ? h.node(row[k], row[k + 1]) : row[k]);
      }
      row = next;
      off = Math.floor(off / 2);
    }
  }

  #oldAt(level: number): Uint8Array {
    const x = this.#old[level];
    if (!x) {
      throw new RangeError(`Cannot build a batch tree: no old subtree at level ${level}`);
    }
    return x;
  }

  /** RFC 6962 §2.1 MTH of the whole tree. */
  root(): Uint8Array {
    return this.#levels[this.#levels.length - 1][0];
  }

  /**
   * The hash of node (level, index) when it lies in the batch's part of the tree (undefined
   * otherwise): for a complete subtree, its perfect hash.
   */
  node(level: number, index: number): Uint8Array | undefined {
    const row = this.#levels[level];
    if (!row) return undefined;
    const k = index - this.#offsets[level];
    return k >= 0 && k < row.length ? row[k] : undefined;
  }

  /** The sibling of node (level, j) on a path, as (row, position) or the old subtree. */
  #walk(index: number, visit: (level: number, k: number) => void): void {
    if (!Number.isSafeInteger(index) || index < this.base || index >= this.size) {
      throw new RangeError(`Cannot prove inclusion: index ${index} is not in this batch`);
    }
    let j = index;
    for (let level = 0; level < this.#levels.length - 1; level++) {
      const s = j % 2 === 0 ? j + 1 : j - 1;
      const k = s - this.#offsets[level];
      if (k < 0) visit(level, -1); // the old complete subtree left of the batch
      else if (k < this.#levels[level].length) visit(level, k);
      // else: no right sibling at the border; the node is promoted (RFC 6962 §2.1 split)
      j = Math.floor(j / 2);
    }
  }

  /** RFC 6962 §2.1.1 PATH(index, D[size]), leaf-side first. */
  proof(index: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    this.#walk(index, (level, k) => out.push(k < 0 ? this.#oldAt(level) : this.#levels[level][k]));
    return out;
  }

  /** The same proof as lowercase hex; each node's hex is computed once per batch and shared. */
  hexProof(index: number): string[] {
    const out: string[] = [];
    this.#walk(index, (level, k) => {
      if (k < 0) out.push(this.#oldHex[level] ??= toHex(this.#oldAt(level)));
      else {
        const hex = this.#hex[level];
        out.push(hex[k] ??= toHex(this.#levels[level][k]));
      }
    });
    return out;
  }
}
