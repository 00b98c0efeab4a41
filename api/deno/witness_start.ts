// The embedded witness's start (docs/WITNESS.md "Lost state or key", issue 27): its key, its state
// (`<data_dir>/witness.sqlite`) and its pin (`<key_file>.pin`) are checked together by the rule of
// log/c2sp/witness_pin.ts before the role may cosign: a key whose state is missing or behind its
// pin refuses to start (`witness-state-behind`), a missing key beside a state or a pin is never
// replaced by a new one (`witness-key-missing`), and a new key is generated only with a brand-new
// state. With `store: "memory"` the state dies with the process, so the key does too: it is
// generated in memory for the run, never read from or written to a file.
import { existsSync, statSync } from "node:fs";
import { decideWitnessStart, type PinnedHead, pinnedWitnessState } from "../../log/c2sp/mod.ts";
import { memoryWitnessState, type WitnessStateStore } from "../../log/c2sp/mod.ts";
import { ed25519GenerateSecret } from "../../verify/mod.ts";

/** The witness state on the embedded store, with its mark of having been pinned. */
export interface MarkedWitnessState extends WitnessStateStore {
  pinned(): boolean;
  markPinned(): void;
}

/** The witness role's key and state: `state` pinned (for the role), `raw` (for the collector). */
export interface WitnessIdentity {
  secret: Uint8Array;
  state: WitnessStateStore;
  raw: WitnessStateStore;
  /** Closes the pin (the caller closes `raw`). */
  close(): Promise<void>;
}

/** Whether the state file existed with content before this start opened it. */
export function stateFilePresent(path: string): boolean {
  try {
    return statSync(path).size > 0;
  } catch {
    return false;
  }
}

// The witness key's file: private to its owner (key-file-permissions), 64 hex digits.
async function readWitnessKey(keyFile: string): Promise<Uint8Array> {
  const { keyFileMode, readLogKey } = await import("../../log/sqlite/key.ts");
  keyFileMode(keyFile, "witness key");
  return readLogKey(keyFile, "witness key");
}

async function createWitnessKey(keyFile: string): Promise<Uint8Array> {
  const { loadOrCreateLogKey } = await import("../../log/sqlite/key.ts");
  return loadOrCreateLogKey(keyFile, { what: "witness key" }).secret;
}

/**
 * Opens the witness role's identity: its key and its state (`openState`, or memory), checked
 * against the pin. Throws WitnessStartError with a stable code when they do not belong together;
 * a missing or empty state file is judged before it is opened, so a refused start creates nothing.
 *
 * @example
 * ```ts
 * const id = await openWitnessIdentity({ keyFile, stateFile, openState, checkKey });
 * ```
 */
export async function openWitnessIdentity(o: {
  keyFile: string;
  stateFile: string;
  /** Opens (creating) the state file; undefined: `store: "memory"`. */
  openState: (() => MarkedWitnessState) | undefined;
  /** Throws when `secret` may not be the witness key (it is the log key). */
  checkKey(secret: Uint8Array): void;
}): Promise<WitnessIdentity> {
  if (!o.openState) {
    const raw = memoryWitnessState();
    const none = () => Promise.resolve();
    return { secret: ed25519GenerateSecret(), state: raw, raw, close: none };
  }
  // A key file that exists is read (and refused if it is the log key) before the state is judged.
  const keyPresent = existsSync(o.keyFile);
  const existing = keyPresent ? await readWitnessKey(o.keyFile) : undefined;
  if (existing) o.checkKey(existing);
  const { openWitnessPinFile, readWitnessPin, witnessPinPath } = await import(
    "../../log/sqlite/witness_pin_file.ts"
  );
  const pinFile = witnessPinPath(o.keyFile);
  const pin = readWitnessPin(pinFile);
  const statePresent = stateFilePresent(o.stateFile);
  const facts = {
    keyFile: o.keyFile,
    stateFile: o.stateFile,
    pinFile,
    keyPresent,
    statePresent,
    statePinned: false,
    heads: [] as PinnedHead[],
    pin,
  };
  if (!statePresent) decideWitnessStart(facts); // refused before the state file is created
  const raw = o.openState();
  let start;
  try {
    facts.heads = await raw.heads();
    facts.statePinned = statePresent && raw.pinned();
    start = decideWitnessStart(facts);
  } catch (e) {
    await raw.close();
    throw e;
  }
  const heads = facts.heads;
  const secret = existing ?? await createWitnessKey(o.keyFile);
  const file = await openWitnessPinFile(pinFile, pin).catch(async (e) => {
    await raw.close();
    throw e;
  });
  try {
    // Pinned now whatever the case: a new or adopted state gets its first pin, a state ahead of
    // its pin (a crash between the swap and the pin write) is re-pinned, and a pin that cannot
    // be written stops the start rather than the first cosignature.
    await file.write(heads);
  } catch (e) {
    await file.close();
    await raw.close();
    throw e;
  }
  raw.markPinned();
  if (start.kind === "adopt") {
    console.error(
      `witness: pinned the existing state ${o.stateFile} (${heads.length} origin(s)) in ` +
        `${pinFile}; from now on a state behind it refuses to start (docs/WITNESS.md)`,
    );
  } else if (start.kind === "resume" && start.ahead.length > 0) {
    console.error(
      `witness: the state was ahead of its pin for ${start.ahead.join(", ")} (a cosignature ` +
        `stored but never answered); re-pinned`,
    );
  }
  return { secret, state: pinnedWitnessState(raw, file, heads), raw, close: () => file.close() };
}
