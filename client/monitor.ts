// A log monitor (RFC 6962 §5.3 / RFC 9162 §8.3 "Monitor"): remembers every signed head it has
// seen per log key, and on each poll checks that the log's new head is signed by that key and
// extends the last head seen (consistency proof), alarming on anything else: a bad signature,
// a rollback, two roots at one size, a failed proof. Heads are remembered per *signer*, not per
// URL, so two services answering for the same key with different trees — a split view — are
// caught as soon as one monitor sees both. Pure: the CLI loads and saves the state.
import type { TreeHead } from "../log/mod.ts";
import { isNetError } from "../net/mod.ts";
import { HttpError, LogClient, type NetOptions, VerificationFailure } from "./client.ts";

/** What the monitor remembers between runs. */
export interface MonitorState {
  version: 1;
  /** URL → the signer it answered for the first time. */
  urls: Record<string, string>;
  /** signer → heads seen, in the order seen (the last one is the largest). */
  heads: Record<string, TreeHead[]>;
  /**
   * Sharded services (docs/CLIENTS.md "Shards"; absent in files from before shards, which still
   * load): service root → the last directory accepted and each shard's own state.
   */
  services?: Record<string, ServiceState>;
  /**
   * The stream-fork watch (`--watch-steward`, client/monitor_forks.ts; absent in older files):
   * URL → steward → the last finding number read.
   */
  streams?: Record<string, Record<string, { after: number }>>;
}

/** What the monitor keeps of one sharded service. */
export interface ServiceState {
  /** The operator vkey (pinned, or trusted on first use): a later different one is an alarm. */
  operator_vkey: string;
  /** The last directory note accepted, verbatim (the next must succeed it). */
  note: string;
  /** Per shard id: the views' binding so far (bind_views.ts; checkpoints are kept per vkey). */
  shards: Record<string, { bind?: unknown }>;
}

/** Most heads remembered per signer. */
export const MAX_REMEMBERED = 1000;

/** A fresh state. */
export function emptyState(): MonitorState {
  return { version: 1, urls: {}, heads: {} };
}

/** Outcome of one poll. */
export type PollResult =
  | { ok: true; head: TreeHead; previous?: TreeHead; message: string }
  | { ok: false; alarm: string; transient: boolean; code?: string };

/**
 * Polls `url` once (pinned to `signer` when given), checking its latest head against `state`, which
 * is updated in place only
 * when the poll passes. `transient` marks failures that prove nothing (network, 5xx); a
 * transport failure (net/: timeout, oversize body, redirect loop, bad UTF-8/JSON, no connection)
 * also carries its NetError `code`.
 */
export async function poll(
  url: string,
  state: MonitorState,
  fetchFn: typeof fetch = fetch,
  net: NetOptions = {},
  signer?: string,
): Promise<PollResult> {
  const known = state.urls[url];
  // `signer`: a shard's key from the signed directory (a head by any other is a failed check).
  const client = new LogClient(url, signer, fetchFn, net);
  try {
    const signer = await client.signer();
    if (known && known !== signer) {
      return alarm(`log key changed at ${url}: was ${known}, now ${signer}`);
    }
    const head = await client.head();
    const seen = state.heads[signer] ?? [];
    const previous = seen.at(-1);
    if (previous) {
      // Same size seen before with another root is equivocation, whatever came after.
      const twin = seen.find((h) => h.size === head.size && h.root !== head.root);
      if (twin) {
        return alarm(
          `two signed roots at size ${head.size} for ${signer}: ${twin.root} and ${head.root}`,
        );
      }
      await client.checkConsistency(previous, head);
    }
    state.urls[url] = signer;
    if (!previous || previous.size !== head.size || previous.root !== head.root) {
      state.heads[signer] = [...seen, head].slice(-MAX_REMEMBERED);
    }
    return {
      ok: true,
      head,
      previous,
      message: previous
        ? `head ${head.size} (root ${head.root}) is consistent with ${previous.size}`
        : `first head seen: ${head.size} (root ${head.root})`,
    };
  } catch (e) {
    if (e instanceof VerificationFailure) return alarm(e.message);
    if (isNetError(e)) return { ok: false, alarm: e.message, transient: true, code: e.code };
    if (e instanceof HttpError && e.status >= 400 && e.status < 500 && e.status !== 429) {
      return alarm(`the log refused a proof it owes: ${e.message}`);
    }
    return { ok: false, alarm: (e as Error).message, transient: true };
  }
}

function alarm(message: string): PollResult {
  return { ok: false, alarm: message, transient: false };
}

/** Parses a saved state, refusing anything that is not one. */
export function parseState(text: string): MonitorState {
  const s = JSON.parse(text);
  if (!s || s.version !== 1 || typeof s.urls !== "object" || typeof s.heads !== "object") {
    throw new Error("Cannot load the monitor state: not a version 1 monitor state file");
  }
  return s as MonitorState;
}
