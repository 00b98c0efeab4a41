// The log's two Merkle views as data (PUBLICATION.md Decision P1): one entry sequence, two trees —
// `blake3`, the JouleClaw tree whose root the §22.2 head signs (SPEC §22.1), and `sha256`, the
// RFC 6962 tree C2SP clients and witnesses read. Everything done per view (its checkpoint, its
// vkey, growing its tree by a batch) is written once here, with the view's hasher and the head
// field that carries its root as parameters.
import { blake3Hasher, type Hasher, sha256Hasher } from "./hasher.ts";
import { LogInputError, LogIntegrityError } from "./errors.ts";
import type { StoredHead, TreeView } from "./storage.ts";
import type { TreeEdge } from "./edge.ts";
import type { Tile } from "./tiles.ts";
import { type NodeReader, rootNodes } from "./tree.ts";
import { BatchTree } from "./batch_tree.ts";
import { encodeVkey, SIG_ED25519, signCheckpoint } from "./c2sp/mod.ts";

/** One view: its name, its hasher, and its root in a stored head. */
export interface ViewSpec {
  view: TreeView;
  /** The view's name in messages. */
  label: string;
  hasher: Hasher;
  /** The view's root at the head's size (undefined: a store that predates the view). */
  root(head: StoredHead): Uint8Array | undefined;
}

/** Both views, in the order the service lists them. */
export const VIEWS: readonly ViewSpec[] = [
  { view: "blake3", label: "BLAKE3", hasher: blake3Hasher, root: (head) => head.root },
  { view: "sha256", label: "SHA-256", hasher: sha256Hasher, root: (head) => head.sha256Root },
];

/** The view named `view`, or `bad-view` (`what`: what was being read). */
export function viewOf(view: string, what: string): ViewSpec {
  const v = VIEWS.find((x) => x.view === view);
  if (!v) throw new LogInputError("bad-view", `Cannot read ${what}: no view ${view}`);
  return v;
}

/** Each view's value of `f`, keyed by view. */
function perView<T>(f: (v: ViewSpec) => T): Record<TreeView, T> {
  return Object.fromEntries(VIEWS.map((v) => [v.view, f(v)])) as Record<TreeView, T>;
}

/** Both views' C2SP vkeys (`<name>/<view>+<key ID>+<base64(0x01 || public key)>`). */
export function vkeysOf(name: string, publicKey: Uint8Array): Record<TreeView, string> {
  return perView((v) => encodeVkey(`${name}/${v.view}`, SIG_ED25519, publicKey));
}

/**
 * The views' checkpoints of a head (C2SP tlog-checkpoint; key name = origin, PUBLICATION.md P2).
 * Ed25519 signatures are deterministic, so the same head always gives the same bytes: they are
 * not stored, only re-signed from the stored head on open.
 */
export function checkpointsOf(
  name: string,
  head: StoredHead,
  secret: Uint8Array,
): Record<TreeView, string> {
  return perView((v) => {
    const root = v.root(head);
    if (root === undefined) {
      throw new LogIntegrityError(
        `Cannot sign checkpoints: head ${head.size} has no ${v.label} root`,
      );
    }
    return signCheckpoint({ origin: `${name}/${v.view}`, size: head.size, root }, secret);
  });
}

/** One view's tree grown by a batch: its new right edge, the tiles that changed, the batch tree. */
export interface GrownView {
  edge: TreeEdge;
  tiles: Tile[];
  tree: BatchTree;
}

/**
 * Grows a view's tree of `edge.size` leaves by `leaves` (this view's leaf hashes of a batch's
 * entries): `read` reads the old tree's root nodes; the edge is cloned, never changed.
 */
export async function growView(
  v: ViewSpec,
  edge: TreeEdge,
  leaves: Uint8Array[],
  read: NodeReader,
): Promise<GrownView> {
  const base = edge.size;
  const ids = rootNodes(base);
  const old: Uint8Array[] = [];
  (await read(ids)).forEach((x, k) => old[ids[k].level] = x);
  const tree = new BatchTree(v.hasher, base, old, leaves);
  const grown = edge.clone();
  const tiles = grown.append(leaves, (level, index) => tree.node(level, index));
  return { edge: grown, tiles, tree };
}
