// The log's contracts (ARCHITECTURE "Storage and sequencing"; docs/CONTRACTS.md): what an append
// resolves to, the append contract, the log api/ uses (the read contract of log/reader.ts and the
// append contract), and the settings of `openLog` (log/open.ts). The embedded log is
// log/embedded.ts; the Worker's is edge/worker/r2_log.ts: both serve their reads from the one
// reader, over their own sources.
import { toHex } from "./crypto.ts";
import type { TreeHead } from "./head.ts";
import type { HeadPin } from "./pin.ts";
import type { AgentHead, AgentLink } from "./storage.ts";
import type { LogReads } from "./reader.ts";
import type { EntryFacts, RevocationStatus, StreamFinding, StreamReads } from "./streams/mod.ts";
import type { KeyOutcome } from "./keys/mod.ts";
import { sha256 } from "@noble/hashes/sha2.js";

/** Largest entry, bytes (ARCHITECTURE Decision 5). */
export const MAX_ENTRY_BYTES = 65_535;

/** What an append resolves to (API.md `POST /v1/log/entries`). */
export interface AppendResult {
  index: number;
  leaf_hash: string;
  tree_head: TreeHead;
  inclusion_proof: string[];
  /**
   * False when identical bytes, or another envelope of the same signed content, were already
   * logged: the index and leaf hash are then the logged entry's.
   */
  created: boolean;
  /** The stream findings this append caused (issue 24; docs/STREAMS.md), when it caused any. */
  findings?: StreamFinding[];
  /** Issue 25 (docs/GRANTS.md): a `jcp` allow's revocation status, as its commit checked it. */
  revocation?: RevocationStatus;
  /**
   * Issue 25 (docs/KEYS.md): the key event an entry under an identity was judged under (a key
   * event: itself; a receipt: its identity's head at its append), and a fork's evidence.
   */
  key_event?: KeyOutcome;
}

/**
 * The append contract: what only the log's writer does (the embedded sequencer, or the Worker's
 * path to its Durable Objects).
 */
export interface LogAppends {
  /**
   * Resolves once the entry is durable and covered by a signed head. `link`: the entry is an
   * agent's chained entry (a meter reading): its chain head is stored in the same commit.
   */
  append(entry: Uint8Array, link?: AgentLink, facts?: EntryFacts): Promise<AppendResult>;
  /**
   * Optional: appends several entries in one call (a bulk append, issue 29), one outcome per
   * entry in order, each what `append` would have resolved to or thrown. Absent: the caller
   * calls `append` for each in one turn (the embedded sequencer batches them alike). The Worker's
   * log sends them to its sequencer in one call (edge/worker/r2_log.ts).
   */
  appendMany?(entries: Uint8Array[]): Promise<PromiseSettledResult<AppendResult>[]>;
  /**
   * Optional: an agent's chain head, one store read. On a store written before chain heads were
   * kept, the first call folds the log once with `linkOf` (in chunks, yielding to the event
   * loop between them) and stores the result.
   */
  agentHead?(
    did: string,
    linkOf?: (entry: Uint8Array) => AgentLink | undefined,
  ): Promise<AgentHead | undefined>;
  /** Drains the sequencer, then closes the store. */
  close(): Promise<void>;
  /** Optional: streams, findings and lookups (issue 24), when the store keeps them. */
  readonly streamReads?: StreamReads;
  /**
   * Optional: the stream backfill of entries logged before the checks (log/streams_backfill.ts):
   * `done` settles when it is done, stopped or failed (`error`).
   */
  readonly streamBackfill?: { readonly done: Promise<void>; readonly error: unknown };
  /**
   * Optional: the sequencer's CPU time so far, ms, by phase: `sequence` (dedupe, tree, tiles,
   * signing), `commit` (the store's commit call; its durability runs off this thread), `answer`
   * (proofs and answers). Zero without a `cpuClock`.
   */
  phaseCpuMs?(): { sequence: number; commit: number; answer: number };
}

/**
 * The log as api/ uses it (docs/CONTRACTS.md): the read contract (log/reader.ts, implemented
 * once over a source) and the append contract.
 */
export interface Log extends LogReads, LogAppends {}

/** Sequencer settings (defaults in `SEQUENCER_DEFAULTS`, reasons in docs/DECISIONS.md). */
export interface SequencerOptions {
  /** Most entries per batch. */
  batchMax?: number;
  /** Longest a pending append waits for its batch to start, ms. */
  batchAgeMs?: number;
  /** Pending appends beyond which appends are refused with `PushbackError`. */
  pendingMax?: number;
  /** Full tiles kept in memory (with the nodes folded from them) for proofs; default 4096. */
  tileCacheTiles?: number;
  /**
   * Benchmarks only (`deno task bench log`: the "before" CPU figure): false skips the SHA-256
   * view's work. Its heads carry the empty tree's SHA-256 root and no SHA-256 tiles are written,
   * so such a store does not open again (recovery refuses it). Default true.
   */
  sha256View?: boolean;
  /**
   * `closed-after-integration` (issue 24): how far past the head that integrated it a receipt's
   * close may lie, ms (default 5 minutes; docs/CONFIG.md `closed_skew_ms`).
   */
  closedSkewMs?: number;
  /**
   * An entry's stream facts (issue 24; log/streams/read_facts.ts `entryFacts` by default), read
   * when an append hands none over; `null` turns the stream checks off. Used only with a store
   * that has `streamIndex`.
   */
  streamFacts?: ((entry: Uint8Array) => EntryFacts | undefined) | null;
}

/** Everything `openLog` needs besides the store. */
export interface LogOptions extends SequencerOptions {
  /**
   * The log's name (PUBLICATION.md P1; docs/CONFIG.md `log_name`): bound to the store on first
   * open and fixed after (another name is refused). Absent: the bound name, or on a new store
   * `defaultLogName(public key)`.
   */
  logName?: string;
  /** The log key: a 32-byte Ed25519 secret. */
  secretKey: Uint8Array;
  /** Clock, ms since the epoch (tests inject one). */
  now?: () => number;
  /**
   * The content identity of an entry, or undefined for an entry without one: entries of one
   * identity are logged once (the first; later ones answer its index). Default: the COSE_Sign1
   * envelope's (verify/content_id.ts); `null` turns the index off. Used only with a store that
   * has `contentIndex` (all of this repository's).
   */
  contentId?: ((entry: Uint8Array) => Uint8Array | undefined) | null;

  /**
   * Optional: this thread's CPU time in ms (api/deno/main.ts reads /proc/thread-self/schedstat); when
   * given, `phaseCpuMs()` reports the sequencer's CPU time by phase.
   */
  cpuClock?: () => number;
  /**
   * Optional: the signed-head pin (log/pin.ts): the store must reach it at open, and every head is
   * pinned once durable, before it is served (issue 27).
   */
  pin?: HeadPin;
}

/**
 * The name a log gets when none is configured (docs/DECISIONS.md): `jouleclaw.invalid/` and the
 * first 16 hex digits of SHA-256 of the log's public key — stable for the key, unique in
 * practice, and plainly not a URL anyone serves (RFC 2606 `.invalid`), so a public log sets its
 * own before its first start.
 */
export function defaultLogName(publicKey: Uint8Array): string {
  return `jouleclaw.invalid/${toHex(sha256(publicKey)).slice(0, 16)}`;
}

/** Defaults sized for ≥ 20,000 appends/s with one durable commit per batch. */
export const SEQUENCER_DEFAULTS = { batchMax: 4096, batchAgeMs: 5, pendingMax: 65_536 } as const;

/** A positive-integer setting, checked (its default when absent). */
export function positive(name: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isSafeInteger(v) || v < 1) {
    throw new RangeError(`Cannot open log: ${name} must be a positive integer, got ${v}`);
  }
  return v;
}

/** The sequencer's `tileCacheTiles`, checked. */
export function tileCacheTiles(o: LogOptions): number {
  return positive("tileCacheTiles", o.tileCacheTiles, 4096);
}
