// `client streams DID` (issue 24; docs/STREAMS.md): a steward's hash-chained streams and every
// finding about them (all pages of GET /v1/streams), as one JSON object. With `--state FILE` it
// remembers the forks it has seen and alarms (exit 3) on a `stream-fork` it had not: the
// equivocation watch for the stewards an auditor follows (run beside `client monitor`).
// `client get CONTENT_ID` resolves a content id through GET /v1/log/content/{id} (`indexOf`).
import type { LogClient } from "./client.ts";

/** One finding as the service answers it. */
export interface Finding {
  id: number;
  code: string;
  index: number;
  seq?: number;
  other?: number;
  cleared_by?: number;
}

/** What `streams` prints. */
export interface StewardStreams {
  steward: string;
  streams: { key: string; length: number; last_seq: number; findings: Finding[] }[];
  findings: Finding[];
  checked_from: number | "all";
  /** With --state: the forks not seen before (an alarm when any). */
  new_forks?: Finding[];
}

/** One page of GET /v1/streams. */
export type StreamsPage = StewardStreams & { next: number | null };

/** The pages of a steward's streams and findings past finding `after`, in order (every page). */
export async function* streamPages(
  c: LogClient,
  steward: string,
  after = 0,
): AsyncGenerator<StreamsPage> {
  const q = `steward=${encodeURIComponent(steward)}`;
  for (;;) {
    const p = await c.getJson(`/v1/streams?${q}&after=${after}`) as unknown as StreamsPage;
    yield p;
    if (p.next === null || p.next === undefined) return;
    after = p.next;
  }
}

/** Every page of a steward's streams and findings, as one object. */
export async function stewardStreams(c: LogClient, steward: string): Promise<StewardStreams> {
  let all: StewardStreams | undefined;
  for await (const p of streamPages(c, steward)) {
    if (!all) all = { ...p, streams: p.streams.map((s) => ({ ...s, findings: [...s.findings] })) };
    else {
      for (const s of p.streams) {
        const mine = all.streams.find((x) => x.key === s.key);
        if (mine) mine.findings.push(...s.findings);
        else all.streams.push(s);
      }
      all.findings.push(...p.findings);
    }
  }
  delete (all as { next?: unknown }).next;
  return all!;
}

/**
 * The forks of `s` not in the state file (read, then rewritten with all of them): the file holds
 * `{forks: {steward: [finding ids]}}`.
 */
export async function newForks(s: StewardStreams, stateFile: string): Promise<Finding[]> {
  let state: { forks: Record<string, number[]> } = { forks: {} };
  try {
    state = JSON.parse(await Deno.readTextFile(stateFile));
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  const seen = new Set(state.forks[s.steward] ?? []);
  const forks = [...s.streams.flatMap((x) => x.findings), ...s.findings]
    .filter((f) => f.code === "stream-fork");
  const fresh = forks.filter((f) => !seen.has(f.id));
  state.forks[s.steward] = forks.map((f) => f.id);
  const tmp = `${stateFile}.${Deno.pid}.part`;
  await Deno.writeTextFile(tmp, JSON.stringify(state) + "\n");
  await Deno.rename(tmp, stateFile);
  return fresh;
}

/** The index of the entry with content id `cid` (64 lowercase hex; JCP §3). */
export async function indexOf(c: LogClient, cid: string): Promise<number> {
  const r = await c.getJson(`/v1/log/content/${cid}`);
  return Number(r.index);
}
