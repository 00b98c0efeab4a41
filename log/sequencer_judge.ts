// The sequencer's judging step (log/sequencer.ts): before anything of a batch is sequenced, which
// pending entries the log already holds (sequencer_find.ts), then which are refused: outcomes
// whose activities do not trace or are bound already (JCP §5.3, log/outcomes.ts), and key events
// and receipts under identities judged against the key state the previous batch committed, in
// log order (issue 25, log/keys/judge.ts). A refused entry is answered by `reject` and leaves the
// batch; it is never sequenced. Pure: storage is injected.
import type { AgentLink, LogStorage, StorageCapabilities } from "./storage.ts";
import type { TileNodeReader } from "./tiles.ts";
import type { AppendResult } from "./log.ts";
import type { EntryFacts } from "./streams/mod.ts";
import { findStored } from "./sequencer_find.ts";
import { refuseOutcomes } from "./outcomes.ts";
import { judgeBatch } from "./keys/mod.ts";

/** A caller waiting on a pending entry it sent again. */
export interface Waiter {
  resolve(r: AppendResult): void;
  reject(e: unknown): void;
}

/**
 * One pending entry: its first caller's promise functions inline, callers who sent the same bytes
 * while it was pending in `more` (no per-append waiter objects on the hot path).
 */
export interface Pending {
  entry: Uint8Array;
  leafHash: Uint8Array;
  key: string;
  /** The content identity and its hex, when the entry has one. */
  contentId: Uint8Array | undefined;
  cid: string | undefined;
  resolve(r: AppendResult): void;
  reject(e: unknown): void;
  more: Waiter[] | undefined;
  link: AgentLink | undefined;
  /** Its stream facts (issue 24), when the store checks streams. */
  facts: EntryFacts | undefined;
}

/** A judged batch: what is left of it, each entry's stored index, the key judgement. */
export interface Judged {
  batch: Pending[];
  /** The stored index (below the log's size) of each entry left; undefined: new. */
  found: (number | undefined)[];
  keys: Awaited<ReturnType<typeof judgeBatch<Pending>>>;
}

/** Judges `batch` against the log of `size` entries; `reject` answers a refused entry. */
export async function judgeStep(
  s: LogStorage,
  caps: StorageCapabilities,
  reader: TileNodeReader,
  size: number,
  pending: Pending[],
  reject: (p: Pending, e: unknown) => void,
): Promise<Judged> {
  let found = await findStored(s, caps, size, pending, reader);
  let batch = pending;
  ({ batch, found } = await refuseOutcomes(s, caps, size, { batch, found }, reject));
  const keyIx = caps.keyIndex;
  const keys = keyIx &&
    await judgeBatch(keyIx, batch.filter((_, k) => found[k] === undefined), size);
  if (keys?.refused.size) {
    for (const [p, e] of keys.refused) reject(p, e);
    found = found.filter((_, k) => !keys.refused.has(batch[k]));
    batch = batch.filter((p) => !keys.refused.has(p));
  }
  return { batch, found, keys };
}
