// The full independent check of a log published by the edge (issue 12 "Faults": each fault test
// ends with it), over plain HTTP from outside the Worker: both views' checkpoints open under the
// log's vkeys (GET /v1/log/key); every tile of both views is read through the pure TileHashReader
// and checked against its checkpoint's root; every entry of every bundle hashes to its leaf in
// both views; every acknowledged entry is present, byte-exact, at its index; the signed §22.2 head
// at the checkpoint's size has the BLAKE3 view's root.
import assert from "node:assert/strict";
import {
  openCheckpoint,
  TileHashReader,
  type TileId,
  tilePath,
  tileWidthAt,
} from "../../log/c2sp/mod.ts";
import { blake3Hasher, sha256Hasher, type TreeView } from "../../log/mod.ts";
import { toHex } from "../../verify/mod.ts";

/** What the check saw. */
export interface PublishedLog {
  size: number;
  entries: Uint8Array[];
}

/** Where the check reads: a shard's prefix below the service (docs/SHARDS.md) and its vkeys. */
export interface CheckOptions {
  /** The shard's prefix (`/shards/s1`); default the service root (s0). */
  prefix?: string;
  /** The vkeys to open the checkpoints under (the directory's); default GET <prefix>/v1/log/key. */
  vkeys?: { blake3: string; sha256: string };
}

async function bytesAt(base: string, path: string): Promise<Uint8Array> {
  const res = await fetch(`${base}${path}`);
  const b = new Uint8Array(await res.arrayBuffer());
  if (res.status !== 200) {
    throw new Error(`GET ${path}: ${res.status} ${new TextDecoder().decode(b)}`);
  }
  return b;
}

/**
 * Checks the published log of the shard at `opts.prefix` of `service`; `acked` maps each acknowledged index to its entry's bytes.
 * Returns the size and entries it read (the BLAKE3 view's).
 */
export async function checkPublished(
  service: URL,
  acked: Map<number, Uint8Array>,
  opts: CheckOptions = {},
): Promise<PublishedLog> {
  const prefix = opts.prefix && opts.prefix !== "/" ? opts.prefix : "";
  // Every path below is the log route's own, below the shard's base.
  const base = service.origin + prefix;
  const at = (p: string) => new URL(base + p);
  const key = opts.vkeys ? { vkeys: opts.vkeys } : await (await fetch(at("/v1/log/key"))).json();
  const json = { headers: { accept: "application/json" } };
  const head = await (await fetch(at("/v1/log/tree-head"), json)).json();
  assert.equal(typeof head.size, "number");
  let out: PublishedLog | undefined;
  const sizes: number[] = [];
  for (const view of ["blake3", "sha256"] as TreeView[]) {
    const note = new TextDecoder().decode(await bytesAt(base, `/log/${view}/checkpoint`));
    const { checkpoint } = await openCheckpoint(note, key.vkeys[view]);
    sizes.push(checkpoint.size);
    const h = view === "blake3" ? blake3Hasher : sha256Hasher;
    const reader = new TileHashReader(
      h,
      { size: checkpoint.size, root: checkpoint.root },
      (t: TileId) => bytesAt(base, `/log/${view}/${tilePath(t)}`),
      { maxTiles: 1 << 16 },
    );
    await reader.checkRoot();
    const entries: Uint8Array[] = [];
    for (let n = 0; tileWidthAt(checkpoint.size, 0, n) > 0; n++) {
      entries.push(...(await reader.entries(n))); // each entry checked against its leaf
    }
    // Every hash tile of every level, checked against the root through the tiles above it.
    for (let l = 1; tileWidthAt(checkpoint.size, l, 0) > 0; l++) {
      for (let n = 0; tileWidthAt(checkpoint.size, l, n) > 0; n++) await reader.tile(l, n);
    }
    assert.equal(entries.length, checkpoint.size, `${view}: every entry of the tree`);
    if (view === "blake3") {
      if (head.size === checkpoint.size) assert.equal(head.root, toHex(checkpoint.root));
      const signed = await (await fetch(
        at(`/v1/log/tree-heads/${checkpoint.size}`),
        json,
      )).json();
      assert.equal(signed.root, toHex(checkpoint.root), "the §22.2 head signs the same root");
      out = { size: checkpoint.size, entries };
    } else {
      assert.deepEqual(entries, out!.entries, "both views hold the same entries");
    }
  }
  assert.equal(sizes[0], sizes[1], "both views' checkpoints at one size");
  for (const [i, bytes] of acked) {
    assert.ok(i < out!.size, `acknowledged entry ${i} is in the published tree of ${out!.size}`);
    assert.deepEqual(out!.entries[i], bytes, `acknowledged entry ${i} at its index`);
  }
  return out!;
}
