// The monitor binds the two views (PUBLICATION.md Decision P3, docs/WITNESS.md): the BLAKE3 view is
// not witnessed, so at each SHA-256 checkpoint it checks, the monitor recomputes BOTH roots from the
// entry bundles (read once, tailing the log: the state keeps each view's compact range, the
// complete subtrees of the size's binary decomposition) and compares them with the SHA-256
// checkpoint's root and with the BLAKE3 statement at the same size (the BLAKE3 checkpoint when it
// is at that size, else the §22.2 signed head at that size). Both are signed by the log key, so a
// BLAKE3 head that is not the tree over the entries the (witnessed) SHA-256 checkpoint commits to
// is attributable equivocation: the alarm saves both signed statements as evidence.
import { BatchTree } from "../log/mod.ts";
import { blake3Hasher, c2sp, checkTreeHead, type Hasher, sha256Hasher } from "../log/mod.ts";
import { didKeyFromPublicKey, fromHex, toHex } from "../verify/mod.ts";
import { VerificationFailure } from "./client.ts";
import { getBytes, type TileClient, type View, type ViewCheckpoint } from "./tiles.ts";

/** What the monitor keeps between polls: the size bound so far and each view's compact range. */
export interface BindState {
  size: number;
  /** Per view, level → hex hash of the complete subtree of that level in size's decomposition. */
  ranges: Record<View, Record<string, string>>;
}

/** Where the evidence of a disagreement is written (`--evidence DIR`). */
export const DEFAULT_EVIDENCE_DIR = "./.jc-monitor-evidence";

const HASHERS: Record<View, Hasher> = { blake3: blake3Hasher, sha256: sha256Hasher };

// Extends one view's compact range over `leaves` (at indices base..): the new decomposition and
// the root, by log/batch_tree.ts.
function extend(
  h: Hasher,
  base: number,
  range: Record<string, string>,
  leaves: Uint8Array[],
): { range: Record<string, string>; root: Uint8Array } {
  const old: (Uint8Array | undefined)[] = [];
  for (const [l, hex] of Object.entries(range)) old[Number(l)] = fromHex(hex);
  const t = new BatchTree(h, base, old, leaves);
  const size = t.size;
  const out: Record<string, string> = {};
  for (let l = 0; 2 ** l <= size; l++) {
    if (Math.floor(size / 2 ** l) % 2 === 1) {
      const node = t.node(l, Math.floor(size / 2 ** l) - 1) ?? old[l];
      if (!node) throw new Error(`Cannot bind the views: no subtree at level ${l}`);
      out[l] = toHex(node);
    }
  }
  return { range: out, root: t.root() };
}

/** The BLAKE3 statement at `size`: the checkpoint when at that size, else the signed §22.2 head. */
async function blake3At(
  client: TileClient,
  cur: ViewCheckpoint,
  size: number,
): Promise<{ root: string; statement: string; kind: string }> {
  if (cur.checkpoint.size === size) {
    return { root: toHex(cur.checkpoint.root), statement: cur.note, kind: "blake3-checkpoint.txt" };
  }
  const bytes = await getBytes(
    `${client.base}/v1/log/tree-heads/${size}`,
    "checkpoint",
    client.net,
  );
  const text = new TextDecoder().decode(bytes);
  const head = JSON.parse(text);
  const signer = didKeyFromPublicKey(c2sp.parseVkey(client.vkeys.blake3).publicKey);
  const check = await checkTreeHead(head, signer);
  if (!check.ok) {
    throw new VerificationFailure(`Cannot trust the §22.2 head at ${size}: ${check.detail}`);
  }
  if (head.size !== size) {
    throw new VerificationFailure(`Cannot trust the §22.2 head: asked ${size}, got ${head.size}`);
  }
  return { root: head.root, statement: text, kind: "blake3-head.json" };
}

async function saveEvidence(dir: string, files: Record<string, string>): Promise<string> {
  const at = `${dir.replace(/\/+$/, "")}/${new Date().toISOString().replace(/[:.]/g, "-")}`;
  await Deno.mkdir(at, { recursive: true });
  for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(`${at}/${name}`, text);
  return at;
}

/**
 * Binds the views up to the SHA-256 checkpoint `cur.sha256`: reads the bundles from the bound size
 * to its size (each checked against the SHA-256 tiles), extends both compact ranges, and checks
 * the SHA-256 root against that checkpoint and the BLAKE3 root against the BLAKE3 statement at the
 * same size. Updates `state` only when both agree; on a disagreement throws VerificationFailure
 * naming the evidence directory. Returns a line for the monitor's message.
 */
export async function bindViews(
  client: TileClient,
  cur: Record<View, ViewCheckpoint>,
  state: { bind?: BindState },
  evidenceDir = DEFAULT_EVIDENCE_DIR,
): Promise<string> {
  const target = cur.sha256.checkpoint.size;
  const bound = state.bind ?? { size: 0, ranges: { blake3: {}, sha256: {} } };
  if (target <= bound.size) return `views bound at ${bound.size}`;
  const reader = client.reader(cur.sha256);
  let size = bound.size;
  const ranges = { ...bound.ranges };
  const roots: Partial<Record<View, Uint8Array>> = {};
  for (let n = Math.floor(size / c2sp.TILE_WIDTH); size < target; n++) {
    const entries = (await reader.entries(n)).slice(size - n * c2sp.TILE_WIDTH);
    for (const view of ["blake3", "sha256"] as View[]) {
      const r = extend(
        HASHERS[view],
        size,
        ranges[view],
        entries.map((e) => HASHERS[view].leaf(e)),
      );
      ranges[view] = r.range;
      roots[view] = r.root;
    }
    size += entries.length;
  }
  const shaRoot = toHex(roots.sha256!);
  const b3 = await blake3At(client, cur.blake3, target);
  const b3Root = toHex(roots.blake3!);
  if (shaRoot !== toHex(cur.sha256.checkpoint.root) || b3Root !== b3.root) {
    const where = await saveEvidence(evidenceDir, {
      "sha256-checkpoint.txt": cur.sha256.note,
      [b3.kind]: b3.statement,
      "recomputed.json": JSON.stringify(
        { size: target, blake3_root: b3Root, sha256_root: shaRoot },
        null,
        1,
      ),
    });
    throw new VerificationFailure(
      `Cannot trust the log: at size ${target} its BLAKE3 statement (root ${b3.root}) and its ` +
        `SHA-256 checkpoint (root ${
          toHex(cur.sha256.checkpoint.root)
        }) do not commit to the same ` +
        `entries (recomputed BLAKE3 ${b3Root}, SHA-256 ${shaRoot}); both signed statements are ` +
        `saved in ${where}`,
    );
  }
  state.bind = { size: target, ranges };
  return `views bound at ${target}`;
}
