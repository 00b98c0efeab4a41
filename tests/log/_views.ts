// Checks a log's two published views against each other and against what was acknowledged
// (PUBLICATION.md P1), through the same C2SP reads any client makes: both checkpoints open under
// the published vkeys at one size, the BLAKE3 one with the §22.2 head's root; every bundle is
// read through each view's TileHashReader (each entry checked against that view's level-0 tile,
// every tile against the signed root); the two views' bundles are the same bytes and give both
// roots (RFC 6962 over the same entries); every acknowledged entry is at its index; and each view
// is consistent with the checkpoint seen before. Used by the crash tests after every restart.
import assert from "node:assert/strict";
import {
  ENTRIES,
  openCheckpoint,
  TILE_WIDTH,
  TileHashReader,
  type TileId,
} from "../../log/c2sp/mod.ts";
import {
  blake3Hasher,
  referenceRoot,
  sha256Hasher,
  type TreeView,
  verifyConsistency,
} from "../../log/mod.ts";
import { toHex } from "../../verify/mod.ts";

/** What a view's checkpoint said. */
export interface ViewState {
  size: number;
  root: Uint8Array;
}

/** How to read one log's publication (in process or over HTTP). */
export interface Publication {
  checkpoint(view: TreeView): Promise<string>;
  tile(view: TreeView, t: TileId): Promise<Uint8Array>;
  vkeys: Record<TreeView, string>;
}

const HASHERS = { blake3: blake3Hasher, sha256: sha256Hasher };

/** Over HTTP: `<base>/log/<view>/...`, with the vkeys of `<base>/v1/log/key`. */
export async function httpPublication(base: string): Promise<Publication> {
  const key = await (await fetch(`${base}/v1/log/key`)).json();
  const get = async (url: string) => {
    const r = await fetch(url);
    if (r.status !== 200) throw new Error(`GET ${url}: ${r.status} ${await r.text()}`);
    return new Uint8Array(await r.arrayBuffer());
  };
  return {
    vkeys: key.vkeys,
    checkpoint: async (view) =>
      new TextDecoder().decode(await get(`${base}/log/${view}/checkpoint`)),
    tile: (view, t) => {
      const l = t.level === ENTRIES ? "entries" : String(t.level);
      let n = String(t.index % 1000).padStart(3, "0");
      for (let r = Math.floor(t.index / 1000); r > 0; r = Math.floor(r / 1000)) {
        n = `x${String(r % 1000).padStart(3, "0")}/${n}`;
      }
      return get(`${base}/log/${view}/tile/${l}/${n}${t.width === 256 ? "" : `.p/${t.width}`}`);
    },
  };
}

/** Each view's checkpoint as it is now (opened under its vkey), without checking them together. */
export async function viewStates(p: Publication): Promise<Record<TreeView, ViewState>> {
  const out = {} as Record<TreeView, ViewState>;
  for (const view of ["blake3", "sha256"] as const) {
    const { checkpoint } = await openCheckpoint(await p.checkpoint(view), p.vkeys[view]);
    out[view] = { size: checkpoint.size, root: checkpoint.root };
  }
  return out;
}

/**
 * Checks both views; `acked` maps index → the entry's BLAKE3 leaf hash (hex) as acknowledged;
 * `headRoot` is the §22.2 head's root (hex) at the checkpoints' size when known. Returns the
 * views' states, to pass as `prev` next time.
 */
export async function checkViews(
  p: Publication,
  acked: Map<number, string>,
  prev?: Record<TreeView, ViewState>,
  head?: { size: number; root: string },
): Promise<Record<TreeView, ViewState>> {
  const out = {} as Record<TreeView, ViewState>;
  const readers = {} as Record<TreeView, TileHashReader>;
  for (const view of ["blake3", "sha256"] as const) {
    const { checkpoint } = await openCheckpoint(await p.checkpoint(view), p.vkeys[view]);
    out[view] = { size: checkpoint.size, root: checkpoint.root };
    readers[view] = new TileHashReader(HASHERS[view], out[view], (t) => p.tile(view, t));
  }
  const size = out.blake3.size;
  // Both views' heads are signed in one step: the checkpoints always agree on the size (the
  // two requests may straddle a batch only while appends run; the crash tests read a quiet log).
  assert.equal(out.sha256.size, size, "the two views' checkpoints are at one size");
  if (head) {
    assert.equal(size, head.size, "checkpoint size = the §22.2 head's");
    assert.equal(toHex(out.blake3.root), head.root, "BLAKE3 checkpoint root = the §22.2 head's");
  }
  const all: Uint8Array[] = [];
  for (let n = 0; n * TILE_WIDTH < size; n++) {
    const b3 = await readers.blake3.entries(n); // each entry against the BLAKE3 level-0 tile
    const sha = await readers.sha256.entries(n); // ... and against the SHA-256 one
    assert.deepEqual(sha.map(toHex), b3.map(toHex), `bundle ${n}: same entries in both views`);
    all.push(...b3);
  }
  assert.equal(all.length, size);
  for (const view of ["blake3", "sha256"] as const) {
    const h = HASHERS[view];
    assert.equal(
      toHex(referenceRoot(h, all.map((e) => h.leaf(e)))),
      toHex(out[view].root),
      `${view} root = RFC 6962 over the entries of the bundles`,
    );
  }
  for (const [index, leaf] of acked) {
    assert.ok(index < size, `acknowledged entry ${index} is in the tree of ${size}`);
    assert.equal(toHex(blake3Hasher.leaf(all[index])), leaf, `acknowledged entry ${index}`);
  }
  if (prev) {
    for (const view of ["blake3", "sha256"] as const) {
      const was = prev[view];
      assert.ok(was.size <= size, `${view} went back from ${was.size} to ${size}`);
      if (was.size === 0) continue;
      const proof = await readers[view].consistencyProof(was.size);
      assert.ok(
        verifyConsistency(HASHERS[view], was.size, size, proof, was.root, out[view].root),
        `${view}: checkpoint ${size} is not consistent with ${was.size}`,
      );
    }
  }
  return out;
}
