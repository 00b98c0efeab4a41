// Proofs from the log's own published tiles (PUBLICATION.md "What stays true": one pure
// implementation, log/c2sp/tile_proofs.ts, in the service, the CLI, the Worker and the browser).
// One TileHashReader per (view, size), kept in a small LRU per log: a reader checks each tile it
// reads against the signed root once, so the proofs asked against one tree share that work.
// Tiles come from `Log.tile`/`Log.bundle`, which read the store (or, on the Worker, the Durable
// Object). Platform-neutral.
import {
  ENTRIES,
  parseCheckpoint,
  parseNote,
  TileHashReader,
  type TileId,
} from "../../log/c2sp/mod.ts";
import {
  blake3Hasher,
  type Hasher,
  LogIntegrityError,
  type LogReads,
  sha256Hasher,
  type TreeView,
} from "../../log/mod.ts";
import { fromHex } from "../../verify/mod.ts";
import { checkpointToServe } from "./witness_collector.ts";

/** Readers kept per log. */
const READERS = 16;
/** Full tiles each reader keeps verified. */
const READER_TILES = 256;

export const HASHERS: Record<TreeView, Hasher> = { blake3: blake3Hasher, sha256: sha256Hasher };

/** Fetches a view's tile or bundle from the log (never undefined for a tile of a signed tree). */
export function logTileFetcher(log: LogReads, view: TreeView): (t: TileId) => Promise<Uint8Array> {
  return async (t) => {
    const b = t.level === ENTRIES
      ? await log.bundle(t.index, t.width)
      : await log.tile(view, t.level, t.index, t.width);
    if (b === undefined) {
      throw new LogIntegrityError(`Cannot read ${view} tile ${t.level}/${t.index}: not served`);
    }
    return b;
  };
}

const byLog = new WeakMap<LogReads, Map<string, TileHashReader>>();

/** The reader of `view`'s tree of `size` leaves with signed `root` (cached per log). */
export function tileReader(
  log: LogReads,
  view: TreeView,
  size: number,
  root: Uint8Array,
): TileHashReader {
  let m = byLog.get(log);
  if (!m) byLog.set(log, m = new Map());
  const key = `${view}:${size}`;
  let r = m.get(key);
  if (r) {
    m.delete(key);
    m.set(key, r);
    return r;
  }
  r = new TileHashReader(HASHERS[view], { size, root }, logTileFetcher(log, view), {
    maxTiles: READER_TILES,
  });
  m.set(key, r);
  if (m.size > READERS) m.delete(m.keys().next().value!);
  return r;
}

/** The BLAKE3 view's reader at a signed head's size (the §22.2 head carries its root). */
export async function headReader(log: LogReads, size: number): Promise<TileHashReader> {
  const latest = await log.latestHead();
  const head = latest.size === size ? latest : await log.headAt(size);
  if (!head) throw new LogIntegrityError(`Cannot prove: no signed head at size ${size}`);
  return tileReader(log, "blake3", size, fromHex(head.root));
}

/** A view's latest checkpoint note, its size and root, and a reader of its tree. */
export async function latestCheckpoint(
  log: LogReads,
  view: TreeView,
  services?: Parameters<typeof checkpointToServe>[0],
): Promise<{ note: string; size: number; reader: TileHashReader }> {
  // docs/WITNESS.md: with witnesses configured, the newest cosigned SHA-256 checkpoint.
  const note = await checkpointToServe(services, view, await log.checkpoint(view));
  const c = parseCheckpoint(parseNote(note).text);
  return { note, size: c.size, reader: tileReader(log, view, c.size, c.root) };
}
