// Shards at the edge (docs/SHARDS.md, docs/EDGE.md "Shards"): where each shard lives and the
// directory state the stateless Worker signs. Shard n has one sequencer Durable Object (s0: the
// object named "log" of every deployment before shards, class LogSequencer; sN: "shard-sN", class
// LogShardSequencer) and its own key space in the bucket (s0: the bucket's root, as before; sN:
// `shards/sN/`). The directory state — the list of shards, their keys and, for frozen ones, their
// final heads — is one R2 object, `directory.json`, written only by the active shard's sequencer
// at the last step of a rotation; the Worker answers `GET /v1/logs` from it and the active
// shard's latest head in R2, without calling any Durable Object. Platform-neutral.
import {
  type Directory,
  type ShardEntry,
  shardId,
  shardLogName,
  shardPrefix,
} from "../shards/mod.ts";
import { encodeVkey, SIG_ED25519, toBase64 } from "../c2sp/mod.ts";
import type { StoredHead } from "../mod.ts";
import { LogIntegrityError } from "../mod.ts";
import { didKeyFromPublicKey, fromHex } from "../../verify/mod.ts";
import type { R2BucketLike, R2PutOptions } from "./r2.ts";
export { FIRST_TIME_KEY } from "./r2.ts";

/** The directory state's key in the bucket (outside every shard's key space). */
export const DIRECTORY_STATE_KEY = "directory.json";
/** Name of shard 0's sequencer object: the one every deployment before shards has. */
export const LOG_OBJECT_NAME = "log";

/** The bucket key prefix of shard n: s0 keeps the bucket's root (its keys never move). */
export function shardKeyPrefix(n: number): string {
  return n === 0 ? "" : `shards/${shardId(n)}/`;
}

/** The name of shard n's sequencer object (`idFromName`). */
export function sequencerName(n: number): string {
  return n === 0 ? LOG_OBJECT_NAME : `shard-${shardId(n)}`;
}

/** The shard number of an id `s<n>` (undefined: not a shard id). */
export function shardNumber(id: string): number | undefined {
  const m = /^s(0|[1-9][0-9]{0,8})$/.exec(id);
  return m ? Number(m[1]) : undefined;
}

/** A bucket seen through one shard's key prefix (s0: the bucket itself). */
export function prefixedBucket(b: R2BucketLike, prefix: string): R2BucketLike {
  if (prefix === "") return b;
  return {
    get: (key: string) => b.get(prefix + key),
    put: (key: string, value: Uint8Array | string, o?: R2PutOptions) =>
      b.put(prefix + key, value, o),
  };
}

/** A frozen shard's final head, as the directory publishes it. */
export interface FinalHead {
  size: number;
  /** Base64 roots of the final checkpoints of both views. */
  root: { blake3: string; sha256: string };
  first_time: string | null;
  last_time: string | null;
}

/** One shard in the directory state. */
export interface ShardRecord {
  id: string;
  log_name: string;
  /** Hex of the shard's Ed25519 public key. */
  public_key: string;
  state: "active" | "frozen";
  final?: FinalHead;
}

/** `directory.json`: every shard in order; absent means one shard, s0, active. */
export interface DirectoryState {
  v: 1;
  shards: ShardRecord[];
}

/** The state of a deployment that never rotated: its first shard, active. */
export function initialState(logName: string, publicKeyHex: string): DirectoryState {
  return {
    v: 1,
    shards: [{ id: "s0", log_name: logName, public_key: publicKeyHex, state: "active" }],
  };
}

/** RFC 3339 UTC of a head's timestamp (ms since the epoch). */
export function headTime(h: { timestamp: number }): string {
  return new Date(h.timestamp).toISOString();
}

/** A head's final record (a frozen shard's size, roots and times). */
export function finalOf(h: StoredHead, firstTime: string | null): FinalHead {
  if (!h.sha256Root) {
    throw new LogIntegrityError("Cannot freeze: the final head has no SHA-256 root");
  }
  const empty = h.size === 0;
  return {
    size: h.size,
    root: { blake3: toBase64(h.root), sha256: toBase64(h.sha256Root) },
    first_time: empty ? null : firstTime ?? headTime(h),
    last_time: empty ? null : headTime(h),
  };
}

/** Reads `directory.json`; undefined while the deployment never rotated. */
export async function readDirectoryState(b: R2BucketLike): Promise<DirectoryState | undefined> {
  const o = await b.get(DIRECTORY_STATE_KEY);
  if (!o) return undefined;
  const s = JSON.parse(await o.text()) as DirectoryState;
  if (s?.v !== 1 || !Array.isArray(s.shards) || s.shards.length === 0) {
    throw new LogIntegrityError(`Cannot read ${DIRECTORY_STATE_KEY}: not a directory state`);
  }
  s.shards.forEach((r, n) => {
    if (r.id !== shardId(n) || typeof r.public_key !== "string" || typeof r.log_name !== "string") {
      throw new LogIntegrityError(`Cannot read ${DIRECTORY_STATE_KEY}: shard ${n} malformed`);
    }
  });
  return s;
}

/** Writes `directory.json` (the last step of a rotation). */
export async function writeDirectoryState(b: R2BucketLike, s: DirectoryState): Promise<void> {
  await b.put(DIRECTORY_STATE_KEY, JSON.stringify(s), {
    httpMetadata: { contentType: "application/json" },
  });
}

/** The next state: `active` frozen at `final`, `next` (a fresh shard) active after it. */
export function rotatedState(
  s: DirectoryState,
  final: FinalHead,
  nextPublicKeyHex: string,
): DirectoryState {
  const n = s.shards.length;
  const shards = s.shards.map((r, k) =>
    k === n - 1 ? { ...r, state: "frozen" as const, final } : r
  );
  shards.push({
    id: shardId(n),
    log_name: shardLogName(s.shards[0].log_name, n),
    public_key: nextPublicKeyHex,
    state: "active",
  });
  return { v: 1, shards };
}

/** What the directory says of the active shard now: its latest head and first time in R2. */
export interface ActiveNow {
  head: { size: number; timestamp: number } | undefined;
  firstTime: string | undefined;
}

/** The directory (docs/SHARDS.md) of a state, issued now, the active shard as of `active`. */
export function directoryOf(s: DirectoryState, issued: string, active: ActiveNow): Directory {
  const shards: ShardEntry[] = s.shards.map((r, n) => {
    const pub = fromHex(r.public_key);
    const base = {
      id: r.id,
      log_name: r.log_name,
      prefix: shardPrefix(n),
      state: r.state,
      signer: didKeyFromPublicKey(pub),
      vkeys: {
        blake3: encodeVkey(`${r.log_name}/blake3`, SIG_ED25519, pub),
        sha256: encodeVkey(`${r.log_name}/sha256`, SIG_ED25519, pub),
      },
    };
    if (r.state === "frozen" && r.final) {
      const f = r.final;
      return {
        ...base,
        first_time: f.first_time,
        last_time: f.last_time,
        size: f.size,
        root: f.root,
      };
    }
    const size = active.head?.size ?? 0;
    const last = size > 0 && active.head ? headTime(active.head) : null;
    return {
      ...base,
      first_time: size > 0 ? active.firstTime ?? last : null,
      last_time: last,
      size,
    };
  });
  return { operator: s.shards[0].log_name, issued, shards };
}
