// `client mirror <url> <dir>`: a verified static copy of both views of a tiled log (C2SP
// tlog-tiles; docs/PUBLICATION.md "Mirroring"). For each view it opens the remote checkpoint with
// the log's vkey, checks that it extends the checkpoint mirrored before (a consistency proof from
// the remote's tiles; anything else is a MirrorAlarm, exit 3, and nothing is written), then stores
// every tile and bundle the new tree has that the old one did not, each checked against the new
// signed root before it is written, and the checkpoint last. Files are written atomically, so a
// run interrupted anywhere leaves a mirror that is still complete at its old checkpoint; the next
// run reads what is already there instead of fetching it (and checks it again). Bundles are the
// same bytes under both views: the SHA-256 view reuses the BLAKE3 view's, checking them against
// its own level-0 tiles, which binds the two views (Decision P3). Pure: storage is injected.
import { c2sp, verifyConsistency } from "../log/mod.ts";
import { toHex } from "../verify/mod.ts";
import { VerificationFailure } from "./client.ts";
import { type TileClient, type View, VIEW_NAMES, type ViewCheckpoint, VIEWS } from "./tiles.ts";

/** Where the mirror lives: paths relative to its root, e.g. `log/sha256/tile/0/000`. */
export interface MirrorStore {
  read(path: string): Promise<Uint8Array | undefined>;
  /** Writes the whole file or nothing (write to a temporary name, then rename). */
  write(path: string, bytes: Uint8Array): Promise<void>;
  /** Removes what a killed run left half-written (temporary files), if the store has any. */
  cleanup?(): Promise<void>;
}

/** The remote log is inconsistent with what was mirrored before: a split view or a rewrite. */
export class MirrorAlarm extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MirrorAlarm";
  }
}

/** What one run did, per view. */
export interface MirrorViewReport {
  from: number;
  size: number;
  root: string;
  /** Tiles and bundles fetched from the remote. */
  fetched: number;
  /** Files written. */
  written: number;
}

/** What one run did. */
export interface MirrorReport {
  views: Record<View, MirrorViewReport>;
  /** Both views at one size, with every bundle checked against both views' level-0 tiles. */
  bound: boolean;
}

const enc = new TextEncoder();
const CONCURRENCY = 8;

/**
 * Brings the mirror in `store` up to the remote's current checkpoints (both views).
 *
 * @example
 * ```ts
 * await mirrorLog(new TileClient(url, vkey), fsStore("./mirror"));
 * ```
 */
export async function mirrorLog(client: TileClient, store: MirrorStore): Promise<MirrorReport> {
  const views = {} as Record<View, MirrorViewReport>;
  await store.cleanup?.();
  for (const view of VIEW_NAMES) views[view] = await mirrorView(client, store, view);
  const bound = views.blake3.size === views.sha256.size;
  return { views, bound };
}

async function mirrorView(
  client: TileClient,
  store: MirrorStore,
  view: View,
): Promise<MirrorViewReport> {
  const cpPath = `log/${view}/checkpoint`;
  const saved = await store.read(cpPath);
  let old: ViewCheckpoint | undefined;
  if (saved) {
    try {
      old = await client.open(view, saved);
    } catch (e) {
      throw new Error(
        `Cannot resume the mirror: its own ${cpPath} does not verify (${(e as Error).message})`,
      );
    }
  }
  const cur = await client.checkpoint(view);
  const before = client.fetches;
  if (old) await checkExtends(client, old, cur);
  const from = old?.checkpoint.size ?? 0;
  const report: MirrorViewReport = {
    from,
    size: cur.checkpoint.size,
    root: toHex(cur.checkpoint.root),
    fetched: 0,
    written: 0,
  };
  const remote = client.fetcher(view);
  const other: View = view === "blake3" ? "sha256" : "blake3";
  const fetched = new Map<string, Uint8Array>();
  const pathOf = (v: View, t: c2sp.TileId) => `log/${v}/${c2sp.tilePath(t)}`;
  // Local first (a resumed run, or the other view's identical bundle), then the remote.
  const fetcher: c2sp.TileFetcher = async (t) => {
    const own = pathOf(view, t);
    const mine = await store.read(own);
    if (mine) return mine;
    const twin = t.level === c2sp.ENTRIES ? await store.read(pathOf(other, t)) : undefined;
    if (twin) {
      fetched.set(own, twin);
      return twin;
    }
    const b = await remote(t);
    fetched.set(own, b);
    return b;
  };
  const reader = new c2sp.TileHashReader(VIEWS[view], cur.checkpoint, fetcher, { maxTiles: 64 });
  const todo = [...c2sp.newTiles(from, cur.checkpoint.size)];
  try {
    for (let i = 0; i < todo.length; i += CONCURRENCY) {
      await Promise.all(
        todo.slice(i, i + CONCURRENCY).map((t) =>
          t.level === c2sp.ENTRIES ? reader.entries(t.index) : reader.tile(t.level, t.index)
        ),
      );
      // Everything fetched so far was checked against the signed root: store it, in order.
      const done = [...fetched].sort(([a], [b]) => (a < b ? -1 : 1));
      fetched.clear();
      for (const [p, b] of done) {
        await store.write(p, b);
        report.written++;
      }
    }
  } catch (e) {
    if (e instanceof c2sp.C2spError) {
      throw new VerificationFailure(`Cannot mirror the ${view} view: ${e.code}: ${e.message}`);
    }
    throw e;
  }
  if (!old || old.note !== cur.note) {
    await store.write(cpPath, enc.encode(cur.note)); // the checkpoint last: the mirror is complete
    report.written++;
  }
  report.fetched = client.fetches - before;
  return report;
}

/** Alarms unless `cur` extends `old`, with a consistency proof from the remote's tiles. */
async function checkExtends(client: TileClient, old: ViewCheckpoint, cur: ViewCheckpoint) {
  const a = old.checkpoint, b = cur.checkpoint;
  const evidence = `mirrored:\n${old.note}\nremote:\n${cur.note}`;
  if (b.size < a.size) {
    throw new MirrorAlarm(
      `the ${cur.view} checkpoint went back from ${a.size} to ${b.size}\n${evidence}`,
    );
  }
  if (b.size === a.size) {
    if (toHex(a.root) !== toHex(b.root)) {
      throw new MirrorAlarm(
        `two signed ${cur.view} roots at size ${a.size}: equivocation\n${evidence}`,
      );
    }
    return;
  }
  if (a.size === 0) return;
  let proof: Uint8Array[];
  try {
    proof = await client.reader(cur).consistencyProof(a.size);
  } catch (e) {
    if (e instanceof c2sp.C2spError) {
      throw new VerificationFailure(
        `Cannot check the ${cur.view} checkpoint: ${e.code}: ${e.message}`,
      );
    }
    throw e;
  }
  if (!verifyConsistency(VIEWS[cur.view], a.size, b.size, proof, a.root, b.root)) {
    throw new MirrorAlarm(
      `the ${cur.view} checkpoint ${b.size} does not extend the mirrored ${a.size}: split view or rewrite\n${evidence}`,
    );
  }
}
