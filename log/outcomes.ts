// JCP §5.3 at append: an `efficiency/1` outcome's named activities are resolved from the log by
// content id, re-added and compared (verify's `traceOutcome`), and each is bound to one outcome:
// "An activity bound twice MUST be refused before the sum". Run by the sequencer on a batch's new
// entries before they are sequenced, so a refused outcome never reaches the tree; the bindings
// are written by the stream checks in the outcome's own commit (log/streams/check.ts, the SQL
// store's `activity_bindings`), so they move exactly with the log and survive restarts. Cost per
// outcome: for each activity, one content lookup, one entry read and one binding read (point
// reads at any log size). docs/DECISIONS.md "intercept/1 and efficiency/1".
import {
  type ActivityFigure,
  activityFigure,
  type CborMap,
  decodeCbor,
  parseCoseSign1,
  toHex,
  traceOutcome,
} from "../verify/mod.ts";
import { LogInputError } from "./errors.ts";
import type { ContentIndex, LogStorage, StorageCapabilities, StreamIndex } from "./storage.ts";
import { type EntryFacts, findContentEntry } from "./streams/mod.ts";

/**
 * The codes an outcome is refused with at append (verify/codes.ts): the HTTP answer is 422, as a
 * receipt that does not verify (api/http/errors.ts).
 */
export const OUTCOME_REFUSALS: ReadonlySet<string> = new Set([
  "activity-unresolved",
  "activity-not-activity",
  "activities-sum-mismatch",
  "provenance-above-floor",
  "coverage-above-floor",
  "activity-bound-twice",
]);

/** What the check needs of one new entry of the batch. */
export interface OutcomeCandidate {
  entry: Uint8Array;
  facts: EntryFacts | undefined;
}

function coreOf(entry: Uint8Array): CborMap | undefined {
  try {
    const core = decodeCbor(parseCoseSign1(entry).payload);
    return core instanceof Map ? core : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks the outcomes among `batch` (in order: a later one sees the earlier ones' bindings) against
 * the log below `size`. Answers the refusal of each refused position; sets `facts.bound` on each
 * admitted outcome.
 */
export async function checkOutcomes(
  s: LogStorage,
  x: StreamIndex,
  c: ContentIndex | undefined,
  size: number,
  batch: OutcomeCandidate[],
): Promise<Map<number, LogInputError>> {
  const refused = new Map<number, LogInputError>();
  const taken = new Map<number, number>(); // activity index → batch position binding it
  for (let k = 0; k < batch.length; k++) {
    const f = batch[k].facts;
    if (!f?.activities) continue;
    const core = coreOf(batch[k].entry);
    if (!core) continue; // not an outcome the verifier admitted: never reached here by a route
    const found = await Promise.all(
      f.activities.map((cid) => findContentEntry(s, x, c, size, cid)),
    );
    const at = found.map((r) => r?.index);
    const figures: (ActivityFigure | undefined | null)[] = [];
    for (const r of found) {
      if (r === undefined) {
        figures.push(undefined);
        continue;
      }
      const e = r.entry ?? await s.entry(r.index);
      const ac = e && coreOf(e);
      figures.push((ac && activityFigure(ac)) ?? null);
    }
    const bad = traceOutcome(core, figures);
    if (bad) {
      refused.set(k, new LogInputError(bad.code, `Cannot append the outcome: ${bad.detail}`));
      continue;
    }
    const idx = at as number[];
    // two content ids of one entry (its envelope's and its signed content's) are one activity
    const dup = idx.findIndex((i, j) => idx.indexOf(i) !== j);
    const stored = await x.boundOutcomes(idx);
    const twice = dup >= 0 ? dup : idx.findIndex((i, j) => stored[j] !== undefined || taken.has(i));
    if (twice >= 0) {
      const other = stored[twice];
      refused.set(
        k,
        new LogInputError(
          "activity-bound-twice",
          `Cannot append the outcome: activity ${toHex(f.activities[twice])} (entry ${
            idx[twice]
          }) is already bound to ${
            other !== undefined ? `the outcome at entry ${other}` : "another outcome"
          } (JCP §5.3: an activity bound twice MUST be refused)`,
        ),
      );
      continue;
    }
    for (const i of idx) taken.set(i, k);
    f.bound = idx;
  }
  return refused;
}

/**
 * The sequencer's step: refuses (`reject`) the batch's new outcomes that do not trace, and answers
 * the rest of the batch with their `found` (the stored index of each, undefined when new).
 */
export async function refuseOutcomes<P extends OutcomeCandidate>(
  s: LogStorage,
  caps: StorageCapabilities,
  size: number,
  b: { batch: P[]; found: (number | undefined)[] },
  reject: (p: P, e: LogInputError) => void,
): Promise<{ batch: P[]; found: (number | undefined)[] }> {
  const x = caps.streamIndex;
  const fresh = b.batch.map((p, k) => ({
    entry: p.entry,
    facts: b.found[k] === undefined ? p.facts : undefined,
  }));
  if (!x || !fresh.some((c) => c.facts?.activities)) return b;
  const refused = await checkOutcomes(s, x, caps.contentIndex, size, fresh);
  for (const [k, e] of refused) reject(b.batch[k], e);
  const keep = (_: unknown, k: number) => !refused.has(k);
  return { batch: b.batch.filter(keep), found: b.found.filter(keep) };
}
