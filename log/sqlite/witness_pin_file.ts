// The embedded witness's pin (log/c2sp/witness_pin.ts) in a file beside the witness key,
// `<key_file>.pin`: two slots of equal size, written in turn (slot = counter mod 2), each a whole
// record with its BLAKE3 checksum. A write overwrites the older slot in place and syncs it
// (fdatasync: the file's size does not change), so a torn write leaves the other slot, the pin
// before it, intact — the cosignature whose pin tore was never answered. The reader takes the
// valid slot with the larger counter. When a record outgrows its slot (a new origin), the whole
// file is rewritten beside it and renamed over it (file and directory synced). Mode 0600.
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { open } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { LogStorageError } from "../errors.ts";
import {
  decodePin,
  encodePin,
  type PinnedHead,
  type WitnessPin,
  type WitnessPinWriter,
  WitnessStartError,
} from "../c2sp/witness_pin.ts";

/** Where the pin of the witness key `keyFile` lives. */
export function witnessPinPath(keyFile: string): string {
  return `${keyFile}.pin`;
}

/** The smallest slot: a few origins fit without a resize. */
const MIN_SLOT = 1024;

/**
 * Reads the pin at `path`: undefined when there is no file. Throws WitnessStartError
 * `witness-pin-damaged` when the file exists but neither slot holds a valid record.
 */
export function readWitnessPin(path: string): WitnessPin | undefined {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return undefined;
    throw new WitnessStartError(
      "witness-pin-damaged",
      `cannot read the witness pin ${path}: ${(err as Error).message}`,
    );
  }
  const half = bytes.length / 2;
  const slots = Number.isInteger(half) && half > 0
    ? [decodePin(bytes.subarray(0, half)), decodePin(bytes.subarray(half))]
    : [];
  const valid = slots.filter((p): p is WitnessPin => p !== undefined);
  if (valid.length === 0) {
    throw new WitnessStartError(
      "witness-pin-damaged",
      `the witness pin ${path} holds no valid record (${bytes.length} bytes): it cannot say ` +
        `what this witness key cosigned. Restore it with the witness state it belongs to, or ` +
        `retire the key (docs/WITNESS.md "Lost state or key")`,
    );
  }
  return valid.reduce((a, b) => (b.counter > a.counter ? b : a));
}

function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The pin file at `path`, open for writing; `last` is what `readWitnessPin` read (if any). */
export interface WitnessPinFile extends WitnessPinWriter {
  /** The counter of the last record written (or read). */
  readonly counter: number;
  close(): Promise<void>;
}

/**
 * Opens the pin file at `path` for writing after `last` (undefined: none yet; the first write
 * creates it).
 *
 * @example
 * ```ts
 * const pin = await openWitnessPinFile("./data/witness-key.hex.pin", readWitnessPin(path));
 * await pin.write(heads);
 * ```
 */
export async function openWitnessPinFile(
  path: string,
  last: WitnessPin | undefined,
): Promise<WitnessPinFile> {
  let counter = last?.counter ?? 0;
  let fh: FileHandle | undefined;
  let slot = 0;
  if (last) {
    fh = await open(path, "r+");
    slot = (await fh.stat()).size / 2;
  }
  const rewrite = async (rec: Uint8Array) => {
    // Both slots hold the record: the file is whole or absent, never half-written (rename).
    let size = MIN_SLOT;
    while (size < rec.length * 2) size *= 2;
    const file = new Uint8Array(size * 2);
    file.set(rec, 0);
    file.set(rec, size);
    const tmp = `${path}.tmp`;
    rmSync(tmp, { force: true }); // a leftover of a crashed rewrite keeps its own mode
    writeFileSync(tmp, file, { mode: 0o600 });
    const fd = openSync(tmp, "r+");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    await fh?.close();
    fh = undefined;
    renameSync(tmp, path);
    syncDir(dirname(path));
    fh = await open(path, "r+");
    slot = size;
  };
  return {
    get counter() {
      return counter;
    },
    async write(heads: PinnedHead[]) {
      // The counter moves only once its record is durable: a failed write is retried into the
      // same slot, and the other slot (the pin before) is never overwritten meanwhile.
      const next = counter + 1;
      const rec = encodePin({ counter: next, heads });
      try {
        if (!fh || rec.length > slot) await rewrite(rec);
        else {
          const padded = new Uint8Array(slot);
          padded.set(rec);
          await fh.write(padded, 0, slot, (next % 2) * slot);
          await fh.datasync();
        }
      } catch (err) {
        // a storage fault: the request fails 503 storage-unavailable, no cosignature leaves
        throw new LogStorageError(
          "storage-fault",
          `Cannot write the witness pin ${path}: ${(err as Error)?.message ?? err}`,
          { cause: err },
        );
      }
      counter = next;
    },
    async close() {
      await fh?.close();
      fh = undefined;
    },
  };
}

/**
 * Makes `keyFile` a brand-new witness identity explicitly (`deno task witness:init`): generates
 * the key when the file is absent (or keeps one made elsewhere, e.g. to configure peers with its
 * vkey first), and pins an empty state beside it, so that the first start may begin from nothing.
 * Refuses when the key already has a pin: that key is not new.
 *
 * @example
 * ```ts
 * const { created, pinFile } = await initWitnessKey("./keys/witness-key.hex");
 * ```
 */
export async function initWitnessKey(
  keyFile: string,
): Promise<{ created: boolean; pinFile: string; secret: Uint8Array }> {
  const pinFile = witnessPinPath(keyFile);
  if (existsSync(pinFile)) {
    throw new Error(
      `Cannot initialise the witness key ${keyFile}: it already has a pin (${pinFile}); a key ` +
        `that has a state is not new`,
    );
  }
  const { loadOrCreateLogKey } = await import("./key.ts");
  let k;
  try {
    k = loadOrCreateLogKey(keyFile);
  } catch (e) {
    const cause = (e as Error).cause as Error | undefined;
    throw new Error(
      `Cannot read witness key ${keyFile}: ${
        cause?.message ?? "expected 64 hex digits (a 32-byte Ed25519 secret)"
      }`,
    );
  }
  const file = await openWitnessPinFile(pinFile, undefined);
  try {
    await file.write([]);
  } finally {
    await file.close();
  }
  return { created: k.created, pinFile, secret: k.secret };
}
