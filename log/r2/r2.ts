// The published log in R2 (docs/EDGE.md "R2"): the bucket's key layout and the slice of
// Cloudflare's R2 binding the edge uses, declared here so the code type-checks under Deno and a
// test can hand it a fault-injecting wrapper. Keys are the public URL paths (so a public bucket
// domain serves the same bytes at the same paths as the Worker), plus the write-once objects the
// sequencer and the read side need: a signed head per published size, a leaf index per entry.
import { ENTRIES, type TileId, tilePath } from "../c2sp/mod.ts";
import { LogIntegrityError, LogStorageError, type StoredHead, type TreeView } from "../mod.ts";
import { fromHex, toHex } from "../../verify/mod.ts";

/** One stored object (the parts of `R2ObjectBody` used). */
export interface R2ObjectLike {
  arrayBuffer(): Promise<ArrayBuffer>;
  text(): Promise<string>;
}

/** `put` options used: a conditional put (`etagDoesNotMatch: "*"`: only if absent). */
export interface R2PutOptions {
  onlyIf?: { etagDoesNotMatch?: string };
  httpMetadata?: { contentType?: string; cacheControl?: string };
}

/** `get` options used: a byte range (index segments, log/r2/index_segments.ts). */
export interface R2GetOptions {
  range?: { offset: number; length: number };
}

/** The R2 bucket binding (the parts used). `put` resolves null when a condition failed. */
export interface R2BucketLike {
  get(key: string, options?: R2GetOptions): Promise<R2ObjectLike | null>;
  put(
    key: string,
    value: Uint8Array | string,
    options?: R2PutOptions,
  ): Promise<unknown | null>;
}

/** A view's checkpoint (the C2SP path `/log/<view>/checkpoint`): rewritten at most once a second. */
export const checkpointKey = (view: TreeView) => `log/${view}/checkpoint`;

/**
 * A hash tile of a view, or an entry bundle: `log/<view>/tile/...`. Bundles are the same bytes
 * under both views and are stored once, under the `blake3` view's path (the Worker serves both).
 */
export function tileKey(view: TreeView, t: TileId): string {
  return `log/${t.level === ENTRIES ? "blake3" : view}/${tilePath(t)}`;
}

/** The signed §22.2 head at a published size (immutable, JSON). */
export const headKey = (size: number) => `heads/${size}`;
/** The latest published head (JSON; written with the checkpoints, at most once a second). */
export const LATEST_HEAD_KEY = "heads/latest";
/**
 * The round published from `from` leaves (issue 27, docs/EDGE.md "Pinned state"): write-once, it
 * holds that round's signed head (JSON). A sequencer opening at size `from` finds it only if a
 * later history was published past the size its store holds: its store is behind.
 */
export const roundKey = (from: number) => `rounds/${from}`;
/**
 * The index of a leaf hash: written once by the builds before issue 29's index segments
 * (log/r2/index_segments.ts), still read for the entries they published.
 */
export const leafKey = (leafHash: Uint8Array) => `leaves/${toHex(leafHash)}`;

/** The index of a content identity (docs/DECISIONS.md "One entry per signed content"), as leafKey. */
export const contentKey = (contentId: Uint8Array) => `contents/${toHex(contentId)}`;

/** The RFC 3339 UTC time of the head of the log's first round (docs/SHARDS.md `first_time`): write-once. */
export const FIRST_TIME_KEY = "first-time";

/** A StoredHead as JSON (hex bytes). */
export function headToJson(h: StoredHead): string {
  return JSON.stringify({
    size: h.size,
    root: toHex(h.root),
    timestamp: h.timestamp,
    signature: toHex(h.signature),
    sha256_root: h.sha256Root ? toHex(h.sha256Root) : null,
  });
}

/** Reads `headToJson`'s form back. */
export function headFromJson(text: string): StoredHead {
  const o = JSON.parse(text);
  return {
    size: o.size,
    root: fromHex(o.root),
    timestamp: o.timestamp,
    signature: fromHex(o.signature),
    sha256Root: o.sha256_root ? fromHex(o.sha256_root) : undefined,
  };
}

/**
 * Runs `jobs` with at most `limit` in flight (a Worker invocation has 6 simultaneous outgoing
 * connections; R2 calls count). Rejects with the first failure once all started jobs settled.
 */
export async function limited(jobs: (() => Promise<unknown>)[], limit = 6): Promise<void> {
  let next = 0;
  let failed: unknown;
  const worker = async () => {
    while (next < jobs.length && failed === undefined) {
      const job = jobs[next++];
      try {
        await job();
      } catch (e) {
        failed ??= e ?? new Error("R2 job failed");
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  if (failed !== undefined) throw failed;
}

/**
 * A bucket's reader of whole objects or byte ranges (undefined when absent; a range past the end
 * comes back short); `count` is told of each read. A failed read throws `r2-unavailable`.
 */
export function r2RangeRead(
  r2: R2BucketLike,
  count: () => void = () => {},
): (key: string, range?: { offset: number; length: number }) => Promise<Uint8Array | undefined> {
  return async (key, range) => {
    count();
    try {
      if (range?.length === 0) return new Uint8Array(0);
      const o = await (range ? r2.get(key, { range }) : r2.get(key));
      return o ? new Uint8Array(await o.arrayBuffer()) : undefined;
    } catch (e) {
      throw new LogStorageError("r2-unavailable", `Cannot read ${key} in R2`, { cause: e });
    }
  };
}

/**
 * Puts `key` → `value` unless it exists (a conditional put); an existing one must hold the same
 * bytes (read back with `read`), else `conflict` (default log-integrity) is thrown.
 */
export async function putOnce(
  r2: R2BucketLike,
  key: string,
  value: string | Uint8Array,
  read: () => Promise<Uint8Array | undefined>,
  conflict = (was: string | undefined): Error =>
    new LogIntegrityError(`Cannot publish ${key}: R2 holds other bytes there (${was})`),
): Promise<void> {
  const text = typeof value === "string";
  const put = await r2.put(key, value, {
    onlyIf: { etagDoesNotMatch: "*" },
    httpMetadata: { contentType: text ? "text/plain" : "application/octet-stream" },
  }).catch((e) => {
    throw new LogStorageError("r2-unavailable", `Cannot write ${key} in R2`, { cause: e });
  });
  if (put !== null) return;
  const old = await read();
  const bytes = text ? new TextEncoder().encode(value) : value;
  if (old?.length === bytes.length && old.every((x, i) => x === bytes[i])) return;
  throw conflict(old && (text ? new TextDecoder().decode(old) : `${old.length} bytes`));
}
