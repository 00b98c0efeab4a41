// The edge's pin (issue 27 "state that must never go backwards is pinned"; docs/EDGE.md "Pinned
// state"): the sequencer Durable Object's SQLite is checked, when the object opens and before it
// signs anything, against what the log has already published durably outside it, in R2 under the
// shard's key prefix — both views' checkpoints, the latest §22.2 head (`heads/latest`) and the
// write-once marker of a round published from the store's own size (`rounds/<size>`). A store that
// is empty, missing or behind any of them (a renamed class or binding, a deleted namespace, a
// migration mistake, a restored older state) refuses with `store-behind-signed-head`; one holding
// another root at a published size, or a tree that does not extend a published head, with
// `store-forks-signed-head`. A store ahead of R2 and consistent with it (a crash before
// its rounds were published) is fine: it publishes them again. Cost: 4 R2 reads at each open, in
// parallel, none per round (the round's own marker is one write in its upload wave, r2_storage.ts).
// Platform-neutral (tested in Deno over an in-memory bucket, in workerd over local R2).
import {
  blake3Hasher,
  LogStorageError,
  sha256Hasher,
  STORE_BEHIND_SIGNED_HEAD,
  STORE_FORKS_SIGNED_HEAD,
  type StoredHead,
  verifyConsistency,
} from "../mod.ts";
import { parseCheckpoint, parseNote, toBase64 } from "../c2sp/mod.ts";
import { bytesEqual } from "../../verify/mod.ts";
import { checkpointKey, headFromJson, LATEST_HEAD_KEY, type R2BucketLike, roundKey } from "./r2.ts";
import type { DirectoryState, FinalHead } from "./shards.ts";

/** The refusal of a store behind, missing or empty against what R2 published. */
export function storeBehind(why: string): LogStorageError {
  return new LogStorageError(
    STORE_BEHIND_SIGNED_HEAD,
    `Cannot sequence: the Durable Object's store is behind the log's published signed head (${why}); ` +
      'it signs nothing until an operator restores it (docs/EDGE.md "Pinned state")',
  );
}

/** The refusal of a store holding another root than a head R2 published. */
export function storeDiverges(why: string): LogStorageError {
  return new LogStorageError(
    STORE_FORKS_SIGNED_HEAD,
    `Cannot sequence: the Durable Object's store diverges from the log's published signed head ` +
      `(${why}); it signs nothing until an operator acts (docs/EDGE.md "Pinned state")`,
  );
}

/** One signed statement R2 publishes: a size and the root(s) it names. */
export interface PublishedClaim {
  /** Its R2 key (for messages). */
  key: string;
  /** The checkpoint's origin (undefined for `heads/latest`, which carries none). */
  origin?: string;
  size: number;
  blake3?: Uint8Array;
  sha256?: Uint8Array;
}

/** What R2 publishes that the store must not be behind. */
export interface PublishedPin {
  claims: PublishedClaim[];
  /** The signed head of a round R2 holds from the store's own size (its store is behind). */
  roundFromHere?: string;
}

async function text(b: R2BucketLike, key: string): Promise<string | undefined> {
  let o;
  try {
    o = await b.get(key);
  } catch (e) {
    throw new LogStorageError("r2-unavailable", `Cannot read ${key} from R2`, { cause: e });
  }
  return o ? await o.text() : undefined;
}

/**
 * Reads the pin from `bucket` (a shard's prefixed view): both checkpoints, `heads/latest` and the
 * marker of a round from `localSize` (the store's latest head's size; 0 for an empty store).
 * Four R2 reads, in parallel. A published object that does not parse is a claim the store cannot
 * be shown to extend: refused as diverging.
 */
export async function readPublishedPin(
  bucket: R2BucketLike,
  localSize: number,
): Promise<PublishedPin> {
  const [b3, s256, latest, round] = await Promise.all([
    text(bucket, checkpointKey("blake3")),
    text(bucket, checkpointKey("sha256")),
    text(bucket, LATEST_HEAD_KEY),
    text(bucket, roundKey(localSize)),
  ]);
  const claims: PublishedClaim[] = [];
  const checkpoint = (key: string, note: string, view: "blake3" | "sha256") => {
    try {
      const c = parseCheckpoint(parseNote(note).text);
      claims.push({ key, origin: c.origin, size: c.size, [view]: c.root });
    } catch (e) {
      throw storeDiverges(`${key} in R2 does not parse: ${(e as Error).message}`);
    }
  };
  if (b3 !== undefined) checkpoint(checkpointKey("blake3"), b3, "blake3");
  if (s256 !== undefined) checkpoint(checkpointKey("sha256"), s256, "sha256");
  if (latest !== undefined) {
    try {
      const h = headFromJson(latest);
      claims.push({ key: LATEST_HEAD_KEY, size: h.size, blake3: h.root, sha256: h.sha256Root });
    } catch (e) {
      throw storeDiverges(`${LATEST_HEAD_KEY} in R2 does not parse: ${(e as Error).message}`);
    }
  }
  return round === undefined ? { claims } : { claims, roundFromHere: round };
}

function isEmptyRoots(c: PublishedClaim): boolean {
  return (!c.blake3 || bytesEqual(c.blake3, blake3Hasher.empty())) &&
    (!c.sha256 || bytesEqual(c.sha256, sha256Hasher.empty()));
}

/**
 * Checks the store's latest head against the pin (before the log is opened: an empty store's
 * open would publish a fresh empty head). Throws the refusal; returns the claims below the
 * store's size, whose roots the opened log must still prove it extends (`proveExtends`).
 *
 * A genuinely new log (docs/EDGE.md "Pinned state"): an empty store and nothing published at
 * this prefix but, at most, the empty tree's head (no round from 0).
 */
export function checkAgainstPin(
  local: StoredHead | undefined,
  pin: PublishedPin,
  logName: string | undefined,
): PublishedClaim[] {
  const size = local?.size ?? 0;
  if (pin.roundFromHere !== undefined) {
    throw storeBehind(
      `R2 holds a round published from size ${size}, the store's ${
        local ? "latest head" : "empty state"
      }`,
    );
  }
  const below: PublishedClaim[] = [];
  for (const c of pin.claims) {
    if (!local) {
      // An empty store while R2 holds a signed head: the DO's state was lost (a fresh open would
      // sign a second history under the same key and overwrite R2's checkpoints). Only the empty
      // tree's head may be signed again: its root is fixed (RFC 6962 §2.1), so no second root;
      // anything published after it left the round marker `rounds/0` (checked above).
      if (c.size === 0 && isEmptyRoots(c)) continue;
      throw storeBehind(`the store is empty; R2's ${c.key} names size ${c.size}`);
    }
    if (logName !== undefined && c.origin !== undefined && !c.origin.startsWith(`${logName}/`)) {
      throw storeDiverges(`R2's ${c.key} has origin ${c.origin}, the store's log is ${logName}`);
    }
    if (c.size > size) {
      throw storeBehind(`the store's latest head is at size ${size}; R2's ${c.key} at ${c.size}`);
    }
    if (c.size === size) {
      const same = (!c.blake3 || bytesEqual(c.blake3, local.root)) &&
        (!c.sha256 || !local.sha256Root || bytesEqual(c.sha256, local.sha256Root));
      if (!same) throw storeDiverges(`another root than R2's ${c.key} at size ${size}`);
    } else if (c.size > 0 && c.blake3) below.push(c);
  }
  return below;
}

/**
 * The opened log's tree extends each published BLAKE3 root below its size (RFC 9162 §2.1.4.2; a
 * store ahead of R2 after a crash). `proof(first)` is the log's consistency proof from `first` to
 * `local.size`. (A SHA-256 checkpoint below the store's size is held to its size only: it is
 * signed with the BLAKE3 one at the same size, whose root is proven here.)
 */
export async function proveExtends(
  local: StoredHead,
  below: PublishedClaim[],
  proof: (first: number) => Promise<Uint8Array[]>,
): Promise<void> {
  for (const c of below) {
    const p = await proof(c.size);
    if (!verifyConsistency(blake3Hasher, c.size, local.size, p, c.blake3!, local.root)) {
      throw storeDiverges(
        `the store's tree at ${local.size} does not extend R2's ${c.key} at ${c.size}`,
      );
    }
  }
}

/** A frozen shard's record as the directory state in R2 publishes it. */
export interface PublishedFreeze {
  final: FinalHead;
  next: { id: string; public_key: string };
}

/**
 * docs/SHARDS.md, issue 27: the freeze of shard `n` as R2's directory state lists it (written
 * last in a rotation, so it outlives a Durable Object state rolled back to before the freeze).
 * Undefined while the directory lists it active (or there is none). A store whose latest head is
 * not the listed final head is refused: a frozen shard never takes appends again.
 */
export function publishedFreeze(
  state: DirectoryState | undefined,
  n: number,
  local: StoredHead | undefined,
): PublishedFreeze | undefined {
  const me = state?.shards[n];
  const next = state?.shards[n + 1];
  if (!me || me.state !== "frozen" || !me.final || !next) return undefined;
  const f = me.final;
  const size = local?.size ?? 0;
  if (!local || size < f.size) {
    throw storeBehind(
      `the directory lists this shard frozen at size ${f.size}; the store at ${size}`,
    );
  }
  const same = size === f.size && toBase64(local.root) === f.root.blake3 &&
    (!local.sha256Root || toBase64(local.sha256Root) === f.root.sha256);
  if (!same) {
    throw storeDiverges(`the directory lists this shard frozen at size ${f.size} with other roots`);
  }
  return { final: f, next: { id: next.id, public_key: next.public_key } };
}
