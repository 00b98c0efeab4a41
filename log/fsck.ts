// fsck: re-verifies a whole stored log (JouleClaw SPEC §22.1-§22.2): every entry's leaf hash and
// the leaf index, every tile rebuilt from the leaves, every signed head's signature under the log
// key, its root against the stored nodes, and each head's consistency with the one before
// (RFC 9162 §2.1.4.2). Reports what is wrong instead of stopping at the first fault.
import { blake3Hasher, type Hasher, sha256Hasher } from "./hasher.ts";
import { toHex } from "./crypto.ts";
import type { LogStorage, StoredHead, TreeView } from "./storage.ts";
import { TreeEdge } from "./edge.ts";
import { TILE_WIDTH, TileNodeReader } from "./tiles.ts";
import { consistencyProof, treeRoot } from "./tree.ts";
import { verifyConsistency } from "./proof.ts";
import { headSignatureValid } from "./recover.ts";

/** What fsck found. */
export interface FsckReport {
  ok: boolean;
  /** Entries found. */
  entries: number;
  /** Tiles compared. */
  tiles: number;
  /** Signed heads checked. */
  heads: number;
  /** Size of the latest head (-1 when none). */
  latestSize: number;
  /** One line per problem ("<what>: <why>"); empty when ok. */
  problems: string[];
}

const PAGE = 1024;
const MAX_PROBLEMS = 100;

/**
 * Re-verifies the whole log in `s` against the log key `pub`.
 *
 * @example
 * ```ts
 * const report = await fsckLog(store, log.publicKey());
 * if (!report.ok) console.error(report.problems.join("\n"));
 * ```
 */
export async function fsckLog(
  s: LogStorage,
  pub: Uint8Array,
  h: Hasher = blake3Hasher,
): Promise<FsckReport> {
  const problems: string[] = [];
  const problem = (p: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(p);
  };
  const edge = TreeEdge.empty(h);
  const seen = new Map<string, number>();
  let tiles = 0;
  const shaEdge = TreeEdge.empty(sha256Hasher);
  const compareTile = async (
    level: number,
    index: number,
    want: Uint8Array,
    view: TreeView = "blake3",
  ) => {
    tiles++;
    const got = await s.tile(level, index, view);
    const at = `${view === "sha256" ? "sha256 " : ""}tile ${level}/${index}`;
    if (got === undefined) problem(`${at}: missing`);
    else if (toHex(got) !== toHex(want)) {
      problem(
        `${at}: stored hashes differ from the ones rebuilt from the entries`,
      );
    }
  };
  // 1. Entries, leaf index and every full tile, rebuilt from the leaves.
  let n = 0;
  for (;;) {
    const page = await s.entries(n, PAGE);
    if (page.length === 0) break;
    const leaves = page.map((e) => h.leaf(e));
    for (const [i, lh] of leaves.entries()) {
      const key = toHex(lh);
      const dup = seen.get(key);
      if (dup !== undefined) {
        problem(`entry ${n + i}: same bytes as entry ${dup} (leaf index not unique)`);
      } else seen.set(key, n + i);
      if (!(await s.leafCandidates(lh)).includes(n + i)) {
        problem(`entry ${n + i}: missing from the leaf-hash index`);
      }
    }
    for (const t of edge.append(leaves)) {
      if (t.hashes.length === TILE_WIDTH * 32) await compareTile(t.level, t.index, t.hashes);
    }
    for (const t of shaEdge.append(page.map((e) => sha256Hasher.leaf(e)))) {
      if (t.hashes.length === TILE_WIDTH * 32) {
        await compareTile(t.level, t.index, t.hashes, "sha256");
      }
    }
    n += page.length;
    if (page.length < PAGE) break;
  }
  // The partial tiles at the right edge, compared exactly.
  for (let level = 0; n > 0 && 16 ** level <= n; level++) {
    const index = Math.floor(Math.floor(n / 16 ** level) / TILE_WIDTH);
    const want = edge.tile(level, index);
    if (want) await compareTile(level, index, want);
    const wantSha = shaEdge.tile(level, index);
    if (wantSha) await compareTile(level, index, wantSha, "sha256");
  }
  // 2. Heads: signature, root against the stored nodes, consistency with the previous head.
  const reader = new TileNodeReader(h, (t, i) => s.tile(t, i));
  const shaReader = new TileNodeReader(sha256Hasher, (t, i) => s.tile(t, i, "sha256"));
  let heads = 0;
  let prev: StoredHead | undefined;
  let latestSize = -1;
  for (let from = 0;;) {
    const page = await s.heads(from, 256);
    for (const head of page) {
      heads++;
      latestSize = head.size;
      const at = `head ${head.size}`;
      if (!(await headSignatureValid(head, pub))) {
        problem(`${at}: signature does not verify under the log key`);
      }
      if (head.size > n) {
        problem(`${at}: covers ${head.size} entries, only ${n} are stored`);
        continue;
      }
      let root: Uint8Array | undefined;
      try {
        root = await treeRoot(h, head.size, reader.read);
      } catch (e) {
        problem(`${at}: cannot rebuild its root (${(e as Error).message})`);
      }
      if (root && toHex(root) !== toHex(head.root)) {
        problem(`${at}: root differs from the stored tree's`);
      }
      // PUBLICATION.md P1: the SHA-256 view's root at the same size, from its stored tiles.
      if (head.sha256Root === undefined) problem(`${at}: no SHA-256 view root (not migrated)`);
      else {
        try {
          const sr = head.size === 0
            ? sha256Hasher.empty()
            : await treeRoot(sha256Hasher, head.size, shaReader.read);
          if (toHex(sr) !== toHex(head.sha256Root)) {
            problem(`${at}: SHA-256 root differs from the stored SHA-256 tree's`);
          }
        } catch (e) {
          problem(`${at}: cannot rebuild its SHA-256 root (${(e as Error).message})`);
        }
      }
      if (prev) {
        if (head.timestamp < prev.timestamp) {
          problem(`${at}: timestamp earlier than head ${prev.size}'s`);
        }
        if (prev.size > 0) {
          try {
            const proof = await consistencyProof(h, prev.size, head.size, reader.read);
            if (!verifyConsistency(h, prev.size, head.size, proof, prev.root, head.root)) {
              problem(`${at}: not consistent with head ${prev.size}`);
            }
          } catch (e) {
            problem(
              `${at}: cannot prove consistency with head ${prev.size} (${(e as Error).message})`,
            );
          }
        }
      }
      prev = head;
    }
    if (page.length < 256) break;
    from = page[page.length - 1].size + 1;
  }
  if (latestSize === -1) problem("log: no signed tree head is stored");
  else if (latestSize !== n) {
    problem(`log: the latest head covers ${latestSize} entries, ${n} are stored`);
  }
  return { ok: problems.length === 0, entries: n, tiles, heads, latestSize, problems };
}
