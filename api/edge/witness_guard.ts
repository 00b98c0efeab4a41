// The edge witness's guard (issue 27: "the witness refuses to run when its key exists but its state
// does not match"; docs/EDGE.md "Pinned state", docs/DECISIONS.md "Witness state pinned"). At the
// edge the witness state lives in s0's sequencer Durable Object, in the same SQLite database as the
// log's own store, while its key is the JC_WITNESS_KEY secret: a lost or rolled-back object forgets
// what the witness cosigned and keeps the key. A pin per cosignature in R2 is not affordable (R2
// takes about one write per second per key), but the object's storage is lost or rolled back as a
// whole, and the log's store in it is checked at every open against what R2 published
// (published_pin.ts). So every access to the witness state first awaits that open, and a refusal of
// the log's store (`store-behind-signed-head`, `store-diverges-from-signed-head`) is the witness's
// refusal too, with the embedded witness's code `witness-state-behind`: nothing is read from the
// state, nothing cosigned, nothing swapped. Any other failure of the open propagates as it is (an
// unchecked state is never used). Residual risk (docs/EDGE.md "Witnessing at the edge"): the guard
// sees only what the log published after the state was lost; a log that published nothing since
// (an idle log, or one that never took an entry) leaves the witness's loss undetected.
import { WitnessStartError } from "../../log/c2sp/witness_pin.ts";
import type { WitnessStateStore } from "../../log/c2sp/witness_state.ts";
import { isPinnedHeadRefusal, type LogStorageError } from "../../log/mod.ts";

/** The stable code of the edge witness's refusal (the embedded witness's start code). */
export const WITNESS_STATE_BEHIND = "witness-state-behind";

/** The witness's refusal when the object's log refuses its store (`cause`). */
export function witnessStateBehind(cause: LogStorageError): WitnessStartError {
  return new WitnessStartError(
    WITNESS_STATE_BEHIND,
    `the Durable Object that holds the witness state refuses its log's store (${cause.code}): ` +
      "the object's storage was lost or rolled back, and the witness state with it; the witness " +
      'cosigns nothing until an operator acts (docs/EDGE.md "Pinned state")',
  );
}

/**
 * The witness state over `open()` (opened once, lazily), every call first awaiting `logOpened`
 * (the object's log core: its open checks the store against R2) and refused as
 * `witness-state-behind` when that open is refused as a pinned head.
 *
 * @example
 * ```ts
 * const ws = guardedWitnessState(() => openDurableWitnessState(storage), () => core.log());
 * ```
 */
export function guardedWitnessState(
  open: () => WitnessStateStore,
  logOpened: () => Promise<unknown>,
): WitnessStateStore {
  let raw: WitnessStateStore | undefined;
  const state = async (): Promise<WitnessStateStore> => {
    try {
      await logOpened();
    } catch (e) {
      throw isPinnedHeadRefusal(e) ? witnessStateBehind(e) : e;
    }
    return raw ??= open();
  };
  return {
    get: async (origin) => (await state()).get(origin),
    heads: async () => (await state()).heads(),
    compareAndSwap: async (origin, expected, next) =>
      (await state()).compareAndSwap(origin, expected, next),
    getCollector: async (w) => (await state()).getCollector(w),
    putCollector: async (w, rec) => (await state()).putCollector(w, rec),
    close: () => raw?.close() ?? Promise.resolve(),
  };
}
