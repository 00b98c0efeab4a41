// Migration of a store written before the SHA-256 view existed (PUBLICATION.md P1; docs/STORAGE.md
// "Migration"): rebuilds the SHA-256 view (RFC 6962 §2.1 over the same entries) from the stored
// entries, in order, writing its tiles and the SHA-256 root of every existing head through the
// store's `ViewMigration` extension (`commitViewBackfill`, idempotent). The latest head's root is written last, so
// a store whose latest head has a SHA-256 root is migrated, and an interrupted run is run again
// from the start. Pure: storage is injected.
import { sha256Hasher } from "./hasher.ts";
import type { LogStorage, ViewMigration } from "./storage.ts";
import { TreeEdge } from "./edge.ts";
import type { Tile } from "./tiles.ts";

/** Entries read (and hashed) per storage call. */
const CHUNK = 1024;
/** Heads read per storage call. */
const HEAD_PAGE = 1024;

/**
 * Builds the SHA-256 view of the first `size` entries of `s` (the latest head's size) and stores
 * its tiles and every head's SHA-256 root through `m`. Returns the number of entries hashed.
 */
export async function backfillSha256View(
  s: LogStorage,
  m: ViewMigration,
  size: number,
): Promise<number> {
  const h = sha256Hasher;
  const edge = TreeEdge.empty(h);
  let tiles = new Map<string, Tile>();
  let roots: { size: number; sha256Root: Uint8Array }[] = [];
  const flush = async () => {
    if (tiles.size === 0 && roots.length === 0) return;
    await m.commitViewBackfill({ sha256Tiles: [...tiles.values()], roots });
    tiles = new Map();
    roots = [];
  };
  let heads = await s.heads(0, HEAD_PAGE);
  let k = 0;
  const nextHead = async (): Promise<number | undefined> => {
    if (k === heads.length && heads.length === HEAD_PAGE) {
      heads = await s.heads(heads[heads.length - 1].size + 1, HEAD_PAGE);
      k = 0;
    }
    return heads[k]?.size;
  };
  for (let hs = await nextHead(); hs !== undefined && hs <= size; hs = await nextHead()) {
    while (edge.size < hs) {
      const batch = await s.entries(edge.size, Math.min(CHUNK, hs - edge.size));
      if (batch.length === 0) {
        throw new Error(`Cannot migrate the SHA-256 view: entry ${edge.size} is missing`);
      }
      for (const t of edge.append(batch.map((e) => h.leaf(e)))) {
        tiles.set(`${t.level}/${t.index}`, t);
      }
      if (tiles.size >= CHUNK / 16) await flush();
    }
    roots.push({ size: hs, sha256Root: await edge.root() });
    k++;
    if (hs === size) break;
  }
  await flush();
  return edge.size;
}
