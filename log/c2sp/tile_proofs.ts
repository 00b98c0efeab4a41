// Proofs from C2SP tlog-tiles (height 8), the one pure implementation: inclusion proofs (RFC 6962
// §2.1.1), consistency proofs (§2.1.2) and tree roots computed from tiles fetched through an
// injected async fetcher, with the hash as a parameter (log/hasher.ts: BLAKE3 for the JouleClaw
// view, SHA-256 for the RFC 6962 view). Every tile used is checked against the signed root first,
// as Go's golang.org/x/mod/sumdb/tlog TileHashReader does: the rightmost partial tiles (one per
// level) must fold to the checkpoint's root, and each full tile must hash to its entry in the tile
// above, up to a partial one. Which nodes a proof needs is log/tree.ts's; this file only reads
// them from tiles.
import type { Hasher } from "../hasher.ts";
import { HASH_SIZE } from "../hasher.ts";
import {
  consistencyProof,
  foldRange,
  inclusionProof,
  type NodeId,
  type NodeReader,
  rootNodes,
  treeRoot,
} from "../tree.ts";
import { bytesEqual } from "../../verify/mod.ts";
import { parseBundle } from "./bundle.ts";
import { C2spError } from "./errors.ts";
import {
  ENTRIES,
  partialTiles,
  TILE_HEIGHT,
  TILE_WIDTH,
  type TileId,
  tilePath,
  tileWidthAt,
} from "./tile_path.ts";

/** Fetches one tile or bundle's bytes (HTTP, a file, R2, SQLite...): injected, never trusted. */
export type TileFetcher = (tile: TileId) => Promise<Uint8Array>;

/** The tree a checkpoint signs: its size and root. */
export interface SignedTree {
  size: number;
  root: Uint8Array;
}

/** Options of `TileHashReader`. */
export interface TileHashReaderOptions {
  /** Full tiles kept verified (least recently used out first); partial tiles are always kept. */
  maxTiles?: number;
}

// A tile's verified hashes and the perfect subtrees folded from them: level s holds
// floor(width / 2^s) hashes, contiguous.
type Pyramid = Uint8Array[];

function pyramid(h: Hasher, bytes: Uint8Array, width: number): Pyramid {
  const out: Pyramid = [bytes];
  let row = bytes;
  for (let n = width >> 1; n > 0 && out.length <= TILE_HEIGHT; n >>= 1) {
    const next = new Uint8Array(n * HASH_SIZE);
    for (let k = 0; k < n; k++) {
      const l = row.subarray(2 * k * HASH_SIZE, (2 * k + 1) * HASH_SIZE);
      const r = row.subarray((2 * k + 1) * HASH_SIZE, (2 * k + 2) * HASH_SIZE);
      next.set(h.node(l, r), k * HASH_SIZE);
    }
    out.push(next);
    row = next;
  }
  return out;
}

const at = (row: Uint8Array, k: number) => row.subarray(k * HASH_SIZE, (k + 1) * HASH_SIZE);
const key = (level: number, index: number) => `${level}/${index}`;

/**
 * Reads verified tree hashes of one signed tree from its tiles. One reader per checkpoint; it keeps
 * the tiles it verified, so many proofs against one checkpoint fetch and hash each tile once.
 *
 * @example
 * ```ts
 * const r = new TileHashReader(sha256Hasher, { size, root }, fetchTile);
 * const proof = await r.inclusionProof(7);
 * verifyInclusion(sha256Hasher, 7, size, await r.leafHash(7), proof, root); // true
 * ```
 */
export class TileHashReader {
  /** Tiles and bundles fetched so far (the cost of the proofs asked). */
  fetches = 0;
  readonly hasher: Hasher;
  readonly tree: SignedTree;
  readonly #fetch: TileFetcher;
  readonly #max: number;
  readonly #partial = new Map<string, Pyramid>();
  readonly #full = new Map<string, Pyramid>();
  #rootChecked = false;

  constructor(h: Hasher, tree: SignedTree, fetch: TileFetcher, opts: TileHashReaderOptions = {}) {
    if (!Number.isSafeInteger(tree.size) || tree.size < 0) {
      throw new C2spError("tile-bad-tree", `Cannot read tiles: tree size ${tree.size}`);
    }
    if (!(tree.root instanceof Uint8Array) || tree.root.length !== HASH_SIZE) {
      throw new C2spError("tile-bad-tree", "Cannot read tiles: root is not 32 bytes");
    }
    this.hasher = h;
    this.tree = tree;
    this.#fetch = fetch;
    this.#max = opts.maxTiles ?? 1024;
  }

  /** A log/tree.ts `NodeReader` over verified tiles: complete subtrees of this tree only. */
  readonly read: NodeReader = async (ids: NodeId[]) => {
    const view = await this.#ensure(ids.map(tileOfNode));
    return ids.map((id) => this.#node(view, id.level, id.index).slice());
  };

  /** RFC 6962 §2.1.1 inclusion proof of leaf `index`, from verified tiles. */
  inclusionProof(index: number): Promise<Uint8Array[]> {
    return this.#inTree(index, index + 1, "prove inclusion") ??
      inclusionProof(this.hasher, index, this.tree.size, this.read);
  }

  /** RFC 6962 §2.1.2 consistency proof from the tree of `first` leaves (0 < first) to this tree. */
  consistencyProof(first: number): Promise<Uint8Array[]> {
    return this.#inTree(first, Math.max(first, 1), "prove consistency") ??
      consistencyProof(this.hasher, first, this.tree.size, this.read);
  }

  /** The root of the tree of the first `size` leaves (≤ this tree's), from verified tiles. */
  rootAt(size: number): Promise<Uint8Array> {
    return this.#inTree(size, size, "compute root") ?? treeRoot(this.hasher, size, this.read);
  }

  // A rejection `tile-beyond-tree` unless 0 ≤ x and end ≤ the tree's size.
  #inTree(x: number, end: number, what: string): Promise<never> | undefined {
    if (Number.isSafeInteger(x) && x >= 0 && end <= this.tree.size) return undefined;
    return Promise.reject(
      new C2spError(
        "tile-beyond-tree",
        `Cannot ${what}: ${x} is not in the tree of ${this.tree.size}`,
      ),
    );
  }

  /** The leaf hash at `index`, from the verified level-0 tile. */
  async leafHash(index: number): Promise<Uint8Array> {
    await this.#inTree(index, index + 1, "read leaf");
    const [x] = await this.read([{ level: 0, index }]);
    return x;
  }

  /**
   * The bytes of hash tile (level, index) of this tree (full, or partial at this size), checked
   * against the signed root: what a mirror stores.
   */
  async tile(level: number, index: number): Promise<Uint8Array> {
    const ok = Number.isSafeInteger(level) && level >= 0 && Number.isSafeInteger(index) &&
      index >= 0 && tileWidthAt(this.tree.size, level, index) > 0;
    if (!ok) {
      throw new C2spError(
        "tile-beyond-tree",
        `Cannot read tile ${level}/${index}: not in the tree`,
      );
    }
    const view = await this.#ensure([[level, index]]);
    return view.get(key(level, index))![0].slice();
  }

  /** Checks the signed root against the rightmost partial tiles (idempotent). */
  async checkRoot(): Promise<void> {
    await this.#ensure([]);
  }

  /**
   * Entry bundle `n` (tlog-tiles §Log entries), each entry checked against the verified level-0
   * tile: code `bundle-hash-mismatch` when one does not hash to its leaf.
   */
  async entries(n: number): Promise<Uint8Array[]> {
    const width = Number.isSafeInteger(n) && n >= 0 ? tileWidthAt(this.tree.size, 0, n) : 0;
    if (width === 0) {
      throw new C2spError("tile-beyond-tree", `Cannot read bundle ${n}: not in the tree`);
    }
    const view = await this.#ensure([[0, n]]);
    const tile = view.get(key(0, n))![0];
    this.fetches++;
    const bytes = await this.#fetch({ level: ENTRIES, index: n, width });
    const entries = parseBundle(bytes, width);
    entries.forEach((e, k) => {
      if (!bytesEqual(this.hasher.leaf(e), at(tile, k))) {
        throw new C2spError(
          "bundle-hash-mismatch",
          `Cannot read bundle ${n}: entry ${n * TILE_WIDTH + k} does not hash to its leaf`,
        );
      }
    });
    return entries;
  }

  // `view`: the verified tiles one #ensure call answered with (the shared caches may evict them
  // while other calls run; the view keeps what this call checked).
  #node(view: Map<string, Pyramid>, level: number, index: number): Uint8Array {
    const s = level % TILE_HEIGHT;
    const [l, n] = tileOfNode({ level, index });
    const p = view.get(key(l, n));
    if (!p) throw new Error(`Cannot read node ${level}/${index}: its tile was not checked`);
    const row = p[s];
    const k = index % (TILE_WIDTH >> s);
    if (!row || (k + 1) * HASH_SIZE > row.length) {
      throw new C2spError("tile-beyond-tree", `Cannot read node ${level}/${index}: not in tree`);
    }
    return at(row, k);
  }

  // Fetches and checks every tile of `wanted` not yet checked (and the tiles above them up to a
  // partial one); answers with all of them, checked.
  async #ensure(wanted: [number, number][]): Promise<Map<string, Pyramid>> {
    const size = this.tree.size;
    const view = new Map<string, Pyramid>();
    const todo = new Map<string, TileId>();
    if (!this.#rootChecked) {
      for (const t of partialTiles(size)) {
        todo.set(key(t.level, t.index), t);
      }
    }
    for (let [l, n] of wanted) {
      for (;;) {
        const k = key(l, n);
        const part = this.#partial.get(k);
        if (part) {
          view.set(k, part);
          break;
        }
        if (todo.has(k) || view.has(k)) break;
        const hit = this.#full.get(k);
        if (hit) {
          this.#full.delete(k); // least recently used order
          this.#full.set(k, hit);
          view.set(k, hit);
          break;
        }
        const width = tileWidthAt(size, l, n);
        if (width === 0) {
          throw new C2spError("tile-beyond-tree", `Cannot read tile ${l}/${n}: not in the tree`);
        }
        todo.set(k, { level: l, index: n, width });
        if (width < TILE_WIDTH) break; // a partial tile is checked against the root
        l += 1; // a full tile is checked against its hash in the tile above
        n = Math.floor(n / TILE_WIDTH);
      }
    }
    if (todo.size === 0) return view;
    const got = new Map<string, Pyramid>();
    await Promise.all([...todo].map(async ([k, t]) => {
      this.fetches++;
      const bytes = await this.#fetch(t);
      if (!(bytes instanceof Uint8Array) || bytes.length !== t.width * HASH_SIZE) {
        throw new C2spError(
          "tile-bad-length",
          `Cannot read tile ${tilePath(t)}: ${bytes?.length} bytes, expected ${
            t.width * HASH_SIZE
          }`,
        );
      }
      got.set(k, pyramid(this.hasher, bytes, t.width));
    }));
    if (!this.#rootChecked) {
      // The rightmost partial tile of each level holds exactly the root's complete subtrees of
      // levels 8L..8L+7: fold them to the root and compare with the signed one.
      const nodes = rootNodes(size).map((id) => {
        const [l, n] = tileOfNode(id);
        const s = id.level % TILE_HEIGHT;
        return at(got.get(key(l, n))![s], id.index % (TILE_WIDTH >> s));
      });
      const root = size === 0 ? this.hasher.empty() : foldRange(this.hasher, nodes);
      if (!bytesEqual(root, this.tree.root)) {
        throw new C2spError(
          "tile-root-mismatch",
          `Cannot read tiles: the partial tiles of size ${size} do not hash to the signed root`,
        );
      }
      for (const t of partialTiles(size)) {
        const k = key(t.level, t.index);
        this.#partial.set(k, got.get(k)!);
      }
      this.#rootChecked = true;
    }
    // Partial tiles asked here are the ones checked against the root (by this call or another).
    for (const [k, t] of todo) if (t.width < TILE_WIDTH) view.set(k, this.#partial.get(k)!);
    // Full tiles top-down: each one's parent is verified before it is compared.
    const full = [...todo.values()].filter((t) => t.width === TILE_WIDTH)
      .sort((a, b) => b.level - a.level);
    for (const t of full) {
      const p = got.get(key(t.level, t.index))!;
      const pk = key(t.level + 1, Math.floor(t.index / TILE_WIDTH));
      const parent = (view.get(pk) ?? this.#partial.get(pk)!)[0];
      if (!bytesEqual(p[TILE_HEIGHT], at(parent, t.index % TILE_WIDTH))) {
        throw new C2spError(
          "tile-hash-mismatch",
          `Cannot read tile ${tilePath(t)}: it does not hash to its entry in the tile above`,
        );
      }
      this.#full.set(key(t.level, t.index), p);
      view.set(key(t.level, t.index), p);
    }
    while (this.#full.size > this.#max) this.#full.delete(this.#full.keys().next().value!);
    return view;
  }
}

/** The tile (level L, index N) whose hashes a node folds from. */
export function tileOfNode(id: NodeId): [number, number] {
  const l = Math.floor(id.level / TILE_HEIGHT);
  const s = id.level - l * TILE_HEIGHT;
  return [l, Math.floor((id.index * 2 ** s) / TILE_WIDTH)];
}
