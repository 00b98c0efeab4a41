// The witness's pinned state (docs/WITNESS.md "Lost state or key", issue 27): a witness that forgot
// what it cosigned would cosign a fork of a log it witnesses, so its state may never go backwards.
// The latest (size, root) of every origin it witnesses is also recorded in a small pin kept apart
// from the state store (beside the witness key on the embedded service), written durably after each
// state change and before the cosignature is answered; at start the state must hold at least what
// the pin says, or the witness refuses to run. Pure (web APIs only): the pin's record (canonical
// body, counter, BLAKE3 checksum), the start rule both deployments apply, and the state store
// wrapper that writes the pin; where the pin's bytes live is the caller's.
import { blake3, bytesEqual, fromHex, toHex } from "../../verify/mod.ts";
import type { CosignedRecord, OriginHead, WitnessStateStore } from "./witness_state.ts";

/** The latest cosigned (size, root) of one origin, as pinned. */
export type PinnedHead = OriginHead;

/** A pin: every origin's latest cosigned head, and how many pins were written before it. */
export interface WitnessPin {
  counter: number;
  heads: PinnedHead[];
}

/** Stable codes of a witness that refuses to start. */
export type WitnessStartCode =
  | "witness-state-behind"
  | "witness-key-missing"
  | "witness-pin-missing"
  | "witness-pin-damaged";

/** The witness refuses to start: its state, its key and its pin do not belong together. */
export class WitnessStartError extends Error {
  constructor(readonly code: WitnessStartCode, detail: string) {
    super(`Cannot start the witness (${code}): ${detail}`);
    this.name = "WitnessStartError";
  }
}

const MAGIC = new TextEncoder().encode("JCWITPIN");
const HEADER = MAGIC.length + 8 + 4; // magic, counter (u64 BE), body length (u32 BE)
const CHECKSUM = 32;

function utf8Order(a: string, b: string): number {
  const x = new TextEncoder().encode(a), y = new TextEncoder().encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/**
 * The canonical serialization of a state: one line `<size> <root hex> <origin>` per origin, sorted
 * by the origin's UTF-8 bytes (the origin last: a checkpoint's origin line never holds a newline).
 */
export function canonicalPinBody(heads: PinnedHead[]): Uint8Array {
  const sorted = [...heads].sort((a, b) => utf8Order(a.origin, b.origin));
  return new TextEncoder().encode(
    sorted.map((h) => `${h.size} ${toHex(h.root)} ${h.origin}\n`).join(""),
  );
}

/** A pin's record: magic, counter, body length, the canonical body, BLAKE3 of all before it. */
export function encodePin(pin: WitnessPin): Uint8Array {
  const body = canonicalPinBody(pin.heads);
  const out = new Uint8Array(HEADER + body.length + CHECKSUM);
  out.set(MAGIC, 0);
  const dv = new DataView(out.buffer);
  dv.setBigUint64(MAGIC.length, BigInt(pin.counter));
  dv.setUint32(MAGIC.length + 8, body.length);
  out.set(body, HEADER);
  out.set(blake3(out.subarray(0, HEADER + body.length)), HEADER + body.length);
  return out;
}

/**
 * The pin in `bytes` (a record, then anything), or undefined when it is not a whole record with a
 * matching checksum (a torn or damaged slot).
 */
export function decodePin(bytes: Uint8Array): WitnessPin | undefined {
  if (bytes.length < HEADER + CHECKSUM || !bytesEqual(bytes.subarray(0, MAGIC.length), MAGIC)) {
    return undefined;
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const counter = Number(dv.getBigUint64(MAGIC.length));
  const len = dv.getUint32(MAGIC.length + 8);
  if (HEADER + len + CHECKSUM > bytes.length) return undefined;
  const sum = blake3(bytes.subarray(0, HEADER + len));
  if (!bytesEqual(sum, bytes.subarray(HEADER + len, HEADER + len + CHECKSUM))) return undefined;
  const text = new TextDecoder("utf-8", { fatal: true }).decode(
    bytes.subarray(HEADER, HEADER + len),
  );
  const heads: PinnedHead[] = [];
  for (const line of text.split("\n").slice(0, -1)) {
    const m = /^(0|[1-9]\d{0,15}) ([0-9a-f]{64}) (.+)$/.exec(line);
    if (!m) return undefined;
    heads.push({ origin: m[3], size: Number(m[1]), root: fromHex(m[2]) });
  }
  return { counter, heads };
}

/** What a witness does at start, once `decideWitnessStart` accepted its files. */
export type WitnessStart =
  /** No key, no state, no pin: generate the key; the (empty) state is pinned. */
  | { kind: "create" }
  /** Key and state written before pins existed: the pin is written from the state, once. */
  | { kind: "adopt" }
  /** The state holds what the pin says; `ahead`: origins stored past their pin (see below). */
  | { kind: "resume"; ahead: string[] };

/** What a start finds: the files are named for the refusals' messages. */
export interface WitnessStartFacts {
  keyFile: string;
  stateFile: string;
  pinFile: string;
  keyPresent: boolean;
  /** The state store existed (non-empty) before this start opened it. */
  statePresent: boolean;
  /** The state store records that it was pinned once (so its pin may not just vanish). */
  statePinned: boolean;
  /** Every origin's head in the state store. */
  heads: PinnedHead[];
  /** The pin, undefined when there is none. */
  pin: WitnessPin | undefined;
}

const OPTIONS = 'docs/WITNESS.md "Lost state or key"';

/**
 * The start rule (issue 27: "the witness refuses to run when its key exists but its state does not
 * match a pinned digest"; "a missing key file is an error, never a new identity"). Throws
 * WitnessStartError:
 * - `witness-key-missing`: no key but a state with heads (or marked pinned), or a pin — a new key
 *   would be a new identity silently replacing the one the logs and policies list;
 * - `witness-pin-missing`: a key and a state marked pinned, but no pin: the state may be an older
 *   copy, and only the pin could tell;
 * - `witness-state-behind`: a key with a pin, and an origin whose stored head is missing, smaller,
 *   or at the pinned size with another root; or a key with neither pin nor state (the state lost
 *   before pins existed: nothing to adopt).
 * A stored head past its pin is accepted: the pin is written after the state's swap and before the
 * answer, so a crash between the two leaves the state ahead with that cosignature never answered.
 */
export function decideWitnessStart(f: WitnessStartFacts): WitnessStart {
  if (!f.keyPresent) {
    if (f.pin || f.heads.length > 0 || f.statePinned) {
      const held = f.pin ? `its pin ${f.pinFile}` : `its state ${f.stateFile}`;
      throw new WitnessStartError(
        "witness-key-missing",
        `the witness key ${f.keyFile} is missing while ${held} remains (${
          Math.max(f.heads.length, f.pin?.heads.length ?? 0)
        } origin(s) cosigned); a new key would be a new witness identity. Restore the witness ` +
          `key file, or retire this witness by moving ${f.stateFile} and ${f.pinFile} aside ` +
          `(the next start generates a new witness key: a new identity to announce). ${OPTIONS}`,
      );
    }
    return { kind: "create" };
  }
  if (!f.pin) {
    if (f.statePresent && f.statePinned) {
      throw new WitnessStartError(
        "witness-pin-missing",
        `the witness pin ${f.pinFile} is missing while the state ${f.stateFile} was pinned ` +
          `before: the state may be an older copy, and only the pin could tell. Put the pin ` +
          `back beside the witness key ${f.keyFile} (the newest copy), or retire the key by ` +
          `moving ${f.keyFile} aside (a new witness identity). ${OPTIONS}`,
      );
    }
    if (f.statePresent) return { kind: "adopt" };
    throw new WitnessStartError(
      "witness-state-behind",
      `the witness key ${f.keyFile} exists but its state ${f.stateFile} is missing or empty and ` +
        `there is no pin ${f.pinFile}: this key may have cosigned checkpoints this witness no ` +
        `longer remembers. Restore ${f.stateFile} (the newest copy), or retire the key by moving ` +
        `${f.keyFile} aside (a new witness identity). ${OPTIONS}`,
    );
  }
  const stored = new Map(f.heads.map((h) => [h.origin, h]));
  const behind: string[] = [];
  for (const p of f.pin.heads) {
    const s = stored.get(p.origin);
    if (!s) behind.push(`${p.origin}: cosigned size ${p.size}, none stored`);
    else if (s.size < p.size) behind.push(`${p.origin}: cosigned size ${p.size}, stored ${s.size}`);
    else if (s.size === p.size && !bytesEqual(s.root, p.root)) {
      behind.push(`${p.origin}: another root stored at cosigned size ${p.size}`);
    }
  }
  if (behind.length > 0) {
    throw new WitnessStartError(
      "witness-state-behind",
      `the state ${f.stateFile} is behind what the witness key ${f.keyFile} cosigned (pin ` +
        `${f.pinFile}, #${f.pin.counter}): ${behind.slice(0, 5).join("; ")}${
          behind.length > 5 ? `; and ${behind.length - 5} more` : ""
        }. Cosigning from it could cosign a fork. Restore the newest ${f.stateFile}, or retire ` +
        `the key by moving ${f.keyFile} and ${f.pinFile} aside (a new witness identity). ${OPTIONS}`,
    );
  }
  const pinned = new Map(f.pin.heads.map((h) => [h.origin, h]));
  const ahead = f.heads.filter((h) => {
    const p = pinned.get(h.origin);
    return !p || h.size > p.size;
  }).map((h) => h.origin);
  return { kind: "resume", ahead };
}

/** Durable storage of the pin: resolves once `heads` is the pin a restart reads. */
export interface WitnessPinWriter {
  write(heads: PinnedHead[]): Promise<void>;
}

/**
 * `inner` with the pin kept: every successful compare-and-swap updates the pinned heads and
 * resolves only after `pin` wrote them (so the caller answers the cosignature after both). Writes
 * are serialized; the swaps that complete while one is under way share the next (group commit).
 * A failed write rejects the swaps waiting on it (nothing is answered); the next swap retries.
 */
export function pinnedWitnessState(
  inner: WitnessStateStore,
  pin: WitnessPinWriter,
  heads: PinnedHead[],
): WitnessStateStore {
  const current = new Map(heads.map((h) => [h.origin, h]));
  let version = 0; // changes made to `current`
  let written = 0; // the version the last successful write covered
  let writing: Promise<void> | undefined;
  const flush = async (want: number) => {
    while (written < want) {
      if (!writing) {
        const v = version;
        const snapshot = [...current.values()];
        writing = pin.write(snapshot).then(() => {
          written = Math.max(written, v);
        }).finally(() => writing = undefined);
      }
      await writing;
    }
  };
  return {
    get: (origin) => inner.get(origin),
    heads: () => inner.heads(),
    getCollector: (w) => inner.getCollector(w),
    putCollector: (w, rec) => inner.putCollector(w, rec),
    close: () => inner.close(),
    async compareAndSwap(origin, expected, next: CosignedRecord) {
      if (!(await inner.compareAndSwap(origin, expected, next))) return false;
      // Sizes only grow under the swap; swaps of one origin may resolve out of order elsewhere.
      const had = current.get(origin);
      if (!had || next.size >= had.size) {
        current.set(origin, { origin, size: next.size, root: next.root.slice() });
      }
      await flush(++version);
      return true;
    },
  };
}
