// The edge witness's guard (issue 27: "the witness refuses to run when its key exists but its state
// does not match"; docs/EDGE.md "Witnessing at the edge", docs/DECISIONS.md "Witness state pinned").
// At the edge the witness state lives in s0's sequencer Durable Object, in the same SQLite database
// as the log's store, while its key is the JC_WITNESS_KEY secret: a lost or rolled-back object
// forgets what the witness cosigned and keeps the key. A pin per cosignature in R2 is not
// affordable (R2 takes about one write per second per key), so two cheaper guards:
// - **The log's own guard.** The object's storage is lost or rolled back as a whole, and the log's
//   store in it is checked at every open against what R2 published (published_pin.ts). Every access
//   to the witness state first awaits that open; its refusal (`store-behind-signed-head`,
//   `store-forks-signed-head`) is the witness's refusal too. Any other failure of the open
//   propagates as it is: an unchecked state is never used.
// - **The witness's mark.** A log that never published a round (a witness-only deployment) or has
//   not since the loss passes its guard, so the witness's first cosignature under a key also puts a
//   write-once object in R2, `witness-cosigned/<witness public key hex>`; a state holding no
//   cosignature while R2 holds the mark of its key is refused. One R2 read per object instance (at
//   its first witness call), one write per witness key, ever.
// Both refuse with the embedded witness's code `witness-state-behind`: nothing is read from the
// state, nothing cosigned, nothing swapped. Residual risk: a state rolled back (not emptied) while
// the log published nothing since is not detected (docs/EDGE.md).
import { WitnessStartError } from "../c2sp/mod.ts";
import type { WitnessStateStore } from "../c2sp/mod.ts";
import { isPinnedHeadRefusal, LogStorageError } from "../mod.ts";
import type { CodedError } from "../../net/mod.ts";
import { ed25519PublicKey, toHex } from "../../verify/mod.ts";
import type { R2BucketLike } from "./r2.ts";

/** The stable code of the edge witness's refusal (the embedded witness's start code). */
export const WITNESS_STATE_BEHIND = "witness-state-behind";

const ACTS = 'the witness cosigns nothing until an operator acts (docs/EDGE.md "Pinned state")';

/** The witness's refusal when the object's log refuses its store (`cause`). */
export function witnessStateBehind(cause: CodedError): WitnessStartError {
  return new WitnessStartError(
    WITNESS_STATE_BEHIND,
    `the Durable Object that holds the witness state refuses its log's store (${cause.code}): ` +
      `the object's storage was lost or rolled back, and the witness state with it; ${ACTS}`,
  );
}

/** The R2 key of the mark of the witness whose public key is `publicKey`. */
export const witnessMarkKey = (publicKey: Uint8Array) => `witness-cosigned/${toHex(publicKey)}`;

/** Where the witness's mark lives: the log's bucket (s0's keys) and the witness key. */
export interface WitnessMark {
  bucket(): R2BucketLike;
  witnessKey(): Uint8Array;
}

function r2Fault(what: string, cause: unknown): LogStorageError {
  return new LogStorageError("r2-unavailable", `Cannot ${what} the witness's mark in R2`, {
    cause,
  });
}

/**
 * The witness state over `open()` (opened once, lazily), every call first awaiting `logOpened`
 * (the object's log core: its open checks the store against R2) and refused as
 * `witness-state-behind` when that open is refused as a pinned head; with `mark`, the witness's
 * calls (`get`, `compareAndSwap`) also check and keep its mark in R2.
 *
 * @example
 * ```ts
 * const ws = guardedWitnessState(() => openDurableWitnessState(storage), () => core.log());
 * ```
 */
export function guardedWitnessState(
  open: () => WitnessStateStore,
  logOpened: () => Promise<unknown>,
  mark?: WitnessMark,
): WitnessStateStore {
  let raw: WitnessStateStore | undefined;
  /** Whether this instance knows the mark is in R2 (read, or put after a cosignature). */
  let marked = false;
  const state = async (): Promise<WitnessStateStore> => {
    try {
      await logOpened();
    } catch (e) {
      throw isPinnedHeadRefusal(e) ? witnessStateBehind(e) : e;
    }
    return raw ??= open();
  };
  const put = async (s: WitnessStateStore, key: string) => {
    const first = (await s.heads())[0];
    const body = JSON.stringify(first && { origin: first.origin, size: first.size });
    try {
      await mark!.bucket().put(key, body, { onlyIf: { etagDoesNotMatch: "*" } }); // write-once
    } catch (e) {
      throw r2Fault("write", e);
    }
    marked = true;
  };
  /** The state, checked against the mark (at this instance's first witness call). */
  const witnessState = async (): Promise<WitnessStateStore> => {
    const s = await state();
    if (!mark || marked) return s;
    const key = witnessMarkKey(ed25519PublicKey(mark.witnessKey()));
    let found;
    try {
      found = await (await mark.bucket().get(key))?.text();
    } catch (e) {
      throw r2Fault("read", e);
    }
    const cosigned = (await s.heads()).length > 0;
    if (found !== undefined && !cosigned) {
      throw new WitnessStartError(
        WITNESS_STATE_BEHIND,
        `the witness state holds no cosignature, but R2's ${key} says this witness key cosigned ` +
          `(first: ${found}): the Durable Object's storage was lost; ${ACTS}`,
      );
    }
    if (found !== undefined) marked = true;
    else if (cosigned) await put(s, key); // a cosignature whose mark was never put: put it now
    return s;
  };
  return {
    get: async (origin) => (await witnessState()).get(origin),
    heads: async () => (await state()).heads(),
    compareAndSwap: async (origin, expected, next) => {
      const s = await witnessState();
      const swapped = await s.compareAndSwap(origin, expected, next);
      // The first cosignature under this key: its mark is in R2 before it is answered.
      if (swapped && mark && !marked) {
        await put(s, witnessMarkKey(ed25519PublicKey(mark.witnessKey())));
      }
      return swapped;
    },
    getCollector: async (w) => (await state()).getCollector(w),
    putCollector: async (w, rec) => (await state()).putCollector(w, rec),
    close: () => raw?.close() ?? Promise.resolve(),
  };
}
