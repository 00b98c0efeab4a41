// The monitor's equivocation watch (issue 24; docs/CLIENTS.md "Stream forks"): with
// `--watch-steward DID` (repeatable), each passing poll also reads the findings of those stewards
// made since the last one it read (GET /v1/streams?steward=…&after=N, every page) and alarms
// (exit 3) on a `stream-fork` — the steward signed two different entries at one seq (JCP §8.1),
// which no head check can see. What it has read is kept in the monitor's state file
// (`streams[url][steward].after`, the last finding number read): a fork alarms once, the next poll
// is quiet. Findings are numbered in the order the log made them and a fork never changes once
// made, so a poll reads only the findings that are new (O(new findings), not O(all)).
import { isNetError } from "../net/mod.ts";
import { LogClient, type NetOptions } from "./client.ts";
import type { MonitorState } from "./monitor.ts";
import { type FailureCount, reportFailedPoll } from "./monitor_report.ts";
import { streamPages } from "./streams_command.ts";

/** A fork the watch found. */
export interface WatchedFork {
  steward: string;
  /** the finding's number in the log's store */
  id: number;
  /** the second entry at the seq (the finding is about it) */
  index: number;
  /** the first */
  other?: number;
  seq?: number;
}

/** What one watch found: new forks, or why it could not read. */
export interface WatchOutcome {
  forks: WatchedFork[];
  failed?: { alarm: string; code?: string };
}

/** A watch of some stewards at one service; records what it read in the state it is given. */
export type ForkWatch = (state: MonitorState) => Promise<WatchOutcome>;

/** The watch of `stewards` at `url` (undefined when none is given). */
export function forkWatch(
  url: string,
  stewards: string[],
  net: NetOptions = {},
  fetchFn: typeof fetch = fetch,
): ForkWatch | undefined {
  if (stewards.length === 0) return undefined;
  const client = new LogClient(url, undefined, fetchFn, net);
  return async (state) => {
    const forks: WatchedFork[] = [];
    try {
      const mine = (state.streams ??= {})[url] ??= {};
      for (const steward of stewards) {
        let after = mine[steward]?.after ?? 0;
        for await (const p of streamPages(client, steward, after)) {
          const fs = [...p.streams.flatMap((s) => s.findings), ...p.findings];
          for (const f of fs) {
            after = Math.max(after, f.id);
            if (f.code !== "stream-fork") continue;
            forks.push({ steward, id: f.id, index: f.index, other: f.other, seq: f.seq });
          }
          if (fs.length === 0) break;
          if (p.next !== null && p.next !== undefined) after = Math.max(after, p.next);
        }
        mine[steward] = { after };
      }
      return { forks };
    } catch (e) {
      // proves nothing about the log (no answer, an HTTP error): reported, never an alarm; what
      // was read before it is kept, so a fork it found is still alarmed below
      const code = isNetError(e) ? e.code : undefined;
      return { forks, failed: { alarm: `cannot read streams: ${(e as Error).message}`, code } };
    }
  };
}

/**
 * Reports a watch after a passing poll: `ALARM: …` on stderr and a JSON line
 * `{ok: false, url, alarm, code: "stream-fork", forks}` on stdout, answering 3, when it found new
 * forks; a failed read as a failed poll (monitor_report.ts); undefined to go on.
 */
export function reportWatch(
  url: string,
  w: WatchOutcome | undefined,
  flags: Record<string, string | true>,
  failures: FailureCount,
): number | undefined {
  if (!w) return undefined;
  if (w.forks.length > 0) {
    const what = w.forks.map((f) =>
      `${f.steward} seq ${f.seq ?? "?"}: entries ${f.other ?? "?"} and ${f.index}`
    ).join("; ");
    const alarm = `${w.forks.length} new stream fork(s) (equivocation, JCP §8.1): ${what}`;
    console.error(`ALARM: ${url}: ${alarm}`);
    console.log(JSON.stringify({ ok: false, url, alarm, code: "stream-fork", forks: w.forks }));
    return 3;
  }
  if (w.failed) {
    return reportFailedPoll(url, w.failed, flags, failures);
  }
  return undefined;
}
