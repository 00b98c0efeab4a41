// Recovery on open (ARCHITECTURE "Storage and sequencing"; SPEC §22.2): before serving, the store
// proves that its latest signed head matches its stored nodes and entries. O(log n) reads: the
// head's signature under the log key, the root refolded from the edge tiles, the last level-0
// tile against the last entries rehashed, entry 0 against the first leaf, and nothing stored
// past the head.
import type { Hasher } from "./hasher.ts";
import { ed25519Verify, toHex } from "./crypto.ts";
import { treeHeadBytes } from "./head.ts";
import { LogIntegrityError } from "./errors.ts";
import type { LogStorage, StoredHead, TreeView } from "./storage.ts";
import { sha256Hasher } from "./hasher.ts";
import { TreeEdge } from "./edge.ts";
import { treeRoot } from "./tree.ts";
import { TILE_WIDTH, tileHashes, TileNodeReader } from "./tiles.ts";

/** The proven state of a store: its latest head and both views' right edges. */
export interface Recovered {
  head: StoredHead;
  edge: TreeEdge;
  /**
   * The SHA-256 view's right edge (PUBLICATION.md P1), proven against `head.sha256Root`;
   * undefined when the store predates the view and needs its migration (log/view_backfill.ts).
   */
  sha256Edge: TreeEdge | undefined;
}

function broken(why: string, cause?: unknown): never {
  throw new LogIntegrityError(`Cannot open log: ${why}`, cause ? { cause } : undefined);
}

/** True when the head's signature verifies under `pub` (SPEC §22.2 bytes). */
export function headSignatureValid(head: StoredHead, pub: Uint8Array): Promise<boolean> {
  return ed25519Verify(head.signature, treeHeadBytes(head.size, head.root, head.timestamp), pub);
}

/**
 * Proves the store's latest head against its nodes and entries; undefined for a store never
 * written. Throws `LogIntegrityError` with what disagrees.
 */
export async function recover(
  s: LogStorage,
  h: Hasher,
  pub: Uint8Array,
): Promise<Recovered | undefined> {
  const head = await s.latestHead();
  if (head === undefined) {
    if ((await s.entry(0)) !== undefined || (await s.tile(0, 0)) !== undefined) {
      broken("the store holds entries or tree nodes but no signed tree head");
    }
    return undefined;
  }
  const n = head.size;
  if (!(await headSignatureValid(head, pub))) {
    broken(`the latest tree head (size ${n}) is not signed by the configured log key`);
  }
  let edge: TreeEdge;
  try {
    edge = await TreeEdge.load(h, n, (t, i) => s.tile(t, i));
  } catch (e) {
    broken(`the tree nodes at the right edge of size ${n} are missing or short`, e);
  }
  const reader = new TileNodeReader(h, (t, i) => Promise.resolve(edge.tile(t, i)));
  let root: Uint8Array;
  try {
    root = await treeRoot(h, n, reader.read);
  } catch (e) {
    broken(`the tree nodes do not give a root for size ${n}`, e);
  }
  if (toHex(root) !== toHex(head.root)) {
    broken(
      `the stored tree nodes give root ${toHex(root)}, the latest head says ${toHex(head.root)}`,
    );
  }
  const last = Math.floor((n - 1) / TILE_WIDTH);
  const entries = n > 0 ? await s.entries(last * TILE_WIDTH, n - last * TILE_WIDTH) : [];
  if (n > 0) await checkLastLeaves(s, h, edge, "blake3", n, entries);
  if ((await s.entry(n)) !== undefined) broken(`an entry is stored past the head's size ${n}`);
  const first = n > TILE_WIDTH ? await s.entry(0) : undefined; // the other end (issue 27)
  if (n > TILE_WIDTH) await checkFirstLeaf(s, h, "blake3", first);
  if (head.sha256Root === undefined) return { head, edge, sha256Edge: undefined };
  // The SHA-256 view: the same proof against the head's SHA-256 root (PUBLICATION.md P1).
  let sha256Edge: TreeEdge;
  try {
    sha256Edge = await TreeEdge.load(sha256Hasher, n, (t, i) => s.tile(t, i, "sha256"));
  } catch (e) {
    broken(`the SHA-256 view's tree nodes at the right edge of size ${n} are missing or short`, e);
  }
  const shaRoot = await sha256Edge.root();
  if (toHex(shaRoot) !== toHex(head.sha256Root)) {
    broken(
      `the stored SHA-256 view gives root ${toHex(shaRoot)}, the latest head says ${
        toHex(head.sha256Root)
      }`,
    );
  }
  if (n > 0) await checkLastLeaves(s, sha256Hasher, sha256Edge, "sha256", n, entries);
  if (n > TILE_WIDTH) await checkFirstLeaf(s, sha256Hasher, "sha256", first);
  return { head, edge, sha256Edge };
}

/**
 * The quick check of the tree's other end (issue 27; docs/DECISIONS.md "A read inside the signed
 * size"): entry 0 against the first leaf of a view's first tile: two more reads, whatever the size.
 */
async function checkFirstLeaf(
  s: LogStorage,
  h: Hasher,
  view: TreeView,
  entry: Uint8Array | undefined,
): Promise<void> {
  const tile = await s.tile(0, 0, view);
  if (!entry || !tile || tile.length < 32) {
    broken(`entry 0 or the first ${view} tile is not stored`);
  }
  if (toHex(h.leaf(entry)) !== toHex(tile.subarray(0, 32))) {
    broken(
      `entry 0 does not hash to its stored leaf hash${view === "sha256" ? " (SHA-256 view)" : ""}`,
    );
  }
}

/** The last level-0 tile of a view against the last entries rehashed. */
async function checkLastLeaves(
  s: LogStorage,
  h: Hasher,
  edge: TreeEdge,
  view: TreeView,
  n: number,
  entries: Uint8Array[],
): Promise<void> {
  const last = Math.floor((n - 1) / TILE_WIDTH);
  const tile = edge.tile(0, last) ?? (await s.tile(0, last, view));
  const hashes = tile ? tileHashes(tile) : [];
  if (entries.length !== n - last * TILE_WIDTH || hashes.length < entries.length) {
    broken(`entries ${last * TILE_WIDTH}..${n - 1} are not all stored`);
  }
  entries.forEach((e, i) => {
    if (toHex(h.leaf(e)) !== toHex(hashes[i])) {
      broken(
        `entry ${last * TILE_WIDTH + i} does not hash to its stored leaf hash${
          view === "sha256" ? " (SHA-256 view)" : ""
        }`,
      );
    }
  });
}
