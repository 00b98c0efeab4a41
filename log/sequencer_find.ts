// The sequencer's dedup lookup (log/sequencer.ts): which pending entries the log already holds,
// as the same bytes (the leaf index, confirmed against the level-0 tile) or as the same signed
// content (the content index; docs/DECISIONS.md "One entry per signed content").
import type { LogStorage, StorageCapabilities } from "./storage.ts";
import type { TileNodeReader } from "./tiles.ts";
import { bytesEqual } from "./crypto.ts";

/** The stored index (below `size`) of each pending entry (undefined: not stored). */
export async function findStored(
  s: LogStorage,
  caps: StorageCapabilities,
  size: number,
  batch: { leafHash: Uint8Array; contentId: Uint8Array | undefined }[],
  reader: TileNodeReader,
): Promise<(number | undefined)[]> {
  const hashes = batch.map((p) => p.leafHash);
  const many = caps.leafLookupMany;
  const cands = many
    ? await many.leafCandidatesMany(hashes)
    : await Promise.all(hashes.map((x) => s.leafCandidates(x)));
  const out: (number | undefined)[] = new Array(batch.length);
  for (let k = 0; k < batch.length; k++) {
    for (const i of cands[k]) {
      if (i >= size) continue;
      const [stored] = await reader.read([{ level: 0, index: i }]);
      if (bytesEqual(stored, hashes[k])) {
        out[k] = i;
        break;
      }
    }
  }
  // Not stored as these bytes: is the same signed content stored (another envelope of it)?
  const ask = batch.flatMap((p, k) => out[k] === undefined && p.contentId ? [k] : []);
  if (ask.length && caps.contentIndex) {
    const at = await caps.contentIndex.contentIndex(ask.map((k) => batch[k].contentId!));
    ask.forEach((k, j) => {
      const i = at[j];
      if (i !== undefined && i < size) out[k] = i;
    });
  }
  return out;
}
