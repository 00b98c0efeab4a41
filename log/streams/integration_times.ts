// Issue 30 (docs/ACCOUNTING.md "The same sums in SPARQL and in the export"): the integration
// times of consecutive entries, for the RDF of the export and the SPARQL store. JCP §11: an
// entry's time is the timestamp of the first signed head that covers it. One read serves every
// entry up to that head: if S is the first head size above i, it is the first above every j in
// [i, S) too (a head of a size in (j, S) would cover i before S), so a scan costs one point read
// per head crossed, not per entry.
import type { Integration, StreamReads } from "./query.ts";

/**
 * A reader of integration times in ms (undefined where the log keeps none: a store without
 * stream state). Best read in ascending index order; any order is answered correctly.
 */
export function integrationTimes(
  reads: Pick<StreamReads, "integratedIn"> | undefined,
): (index: number) => Promise<number | undefined> {
  let last: { from: number; at: Integration } | undefined;
  return async (index) => {
    if (!reads) return undefined;
    if (last && last.from <= index && index < last.at.size) return last.at.timestamp;
    const at = await reads.integratedIn(index);
    if (!at) return undefined;
    last = { from: index, at };
    return at.timestamp;
  };
}
