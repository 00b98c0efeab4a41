// The signed-head pin of the embedded default (log/pin.ts; docs/STORAGE.md "Signed-head pin"): a
// small file beside the log key (`<key file>.pin`, or `pin_file`), so that losing or rolling back
// the data directory never loses it. Two fixed 256-byte slots, written alternately, each one
// record with a checksum: one positioned write and one fdatasync per pin (no rename, no directory
// sync after the first), and a write torn by a crash leaves the other slot, the previous pin, in
// force. The newest valid slot wins; a file with none is refused, never read as "no pin".
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { sha256 } from "@noble/hashes/sha2.js";
import { LogStateError } from "../errors.ts";
import type { HeadPin, PinnedHead } from "../pin.ts";

/** The pin file of a key file: beside it. */
export function pinFileOf(keyFile: string): string {
  return `${keyFile}.pin`;
}

const MAGIC = new TextEncoder().encode("JCPIN\x001\n"); // 8 bytes: name, version 1
const SLOT = 256;
// magic 8 | sequence u64 8 | size u64 8 | blake3 root 32 | sha256 root 32 | public key 32 | sha256 32
const BODY = 8 + 8 + 8 + 32 + 32 + 32;
const RECORD = BODY + 32;

interface Slot {
  seq: number;
  head: PinnedHead;
  publicKey: Uint8Array;
}

function encode(seq: number, head: PinnedHead, publicKey: Uint8Array): Uint8Array {
  const b = new Uint8Array(RECORD);
  const v = new DataView(b.buffer);
  b.set(MAGIC, 0);
  v.setBigUint64(8, BigInt(seq));
  v.setBigUint64(16, BigInt(head.size));
  b.set(head.root, 24);
  b.set(head.sha256Root, 56);
  b.set(publicKey, 88);
  b.set(sha256(b.subarray(0, BODY)), BODY);
  return b;
}

function decode(b: Uint8Array): Slot | undefined {
  if (b.length < RECORD) return undefined;
  for (let i = 0; i < 8; i++) if (b[i] !== MAGIC[i]) return undefined;
  const sum = sha256(b.subarray(0, BODY));
  for (let i = 0; i < 32; i++) if (sum[i] !== b[BODY + i]) return undefined;
  const v = new DataView(b.buffer, b.byteOffset, RECORD);
  return {
    seq: Number(v.getBigUint64(8)),
    head: {
      size: Number(v.getBigUint64(16)),
      root: b.slice(24, 56),
      sha256Root: b.slice(56, 88),
    },
    publicKey: b.slice(88, 120),
  };
}

/** A pin file for the log whose key's public key is `publicKey`; `store` names what it guards. */
export function openPinFile(path: string, publicKey: Uint8Array, store: string): HeadPin & {
  close(): void;
} {
  let seq = 0;
  let file: Deno.FsFile | undefined;
  const sameKey = (k: Uint8Array) => k.every((x, i) => x === publicKey[i]);
  const readNow = (): PinnedHead | undefined => {
    if (!existsSync(path)) return undefined;
    const b = readFileSync(path);
    const slots = [decode(b.subarray(0, SLOT)), decode(b.subarray(SLOT, 2 * SLOT))]
      .filter((s): s is Slot => s !== undefined);
    if (slots.length === 0) {
      throw new LogStateError(
        "signed-head-pin-unreadable",
        `Cannot open the log: its signed-head pin ${path} holds no valid record (${b.length} ` +
          'bytes); restore it from a backup (docs/OPERATIONS.md "When the log refuses to open")',
      );
    }
    const top = slots.reduce((a, s) => s.seq > a.seq ? s : a);
    if (!sameKey(top.publicKey)) {
      throw new LogStateError(
        "signed-head-pin-other-key",
        `Cannot open the log: the signed-head pin ${path} was written for another log key`,
      );
    }
    seq = top.seq;
    return top.head;
  };
  return {
    where: path,
    store,
    read() {
      try {
        return Promise.resolve(readNow());
      } catch (e) {
        return Promise.reject(e);
      }
    },
    async write(head) {
      if (!file) {
        const created = !existsSync(path);
        try {
          file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
        } catch (e) {
          throw new LogStateError(
            "signed-head-pin-unwritable",
            `Cannot pin the log's signed head: ${path}: ${(e as Error).message}; when the key ` +
              "sits on a read-only mount, set pin_file (JC_PIN_FILE) to a durable, writable path " +
              "that is not in the data directory",
            { cause: e },
          );
        }
        if (created) {
          await file.syncData();
          const dir = await Deno.open(dirname(path), { read: true });
          try {
            await dir.sync(); // the new file's directory entry, once
          } finally {
            dir.close();
          }
        }
      }
      seq++;
      const rec = encode(seq, head, publicKey);
      await file.seek((seq % 2) * SLOT, Deno.SeekMode.Start);
      for (let off = 0; off < rec.length;) off += await file.write(rec.subarray(off));
      await file.syncData();
    },
    close() {
      file?.close();
      file = undefined;
    },
  };
}

function fsyncPath(p: string): void {
  const fd = openSync(p, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The name a pin moved into `pin_dir` leaves at its former place (kept, never read). */
export function movedPinName(former: string): string {
  return `${former}.moved`;
}

/**
 * Moves a log's pin from its former place `former` (beside its key) to `path` (in `pin_dir`),
 * when an existing deployment sets `pin_dir` (docs/STORAGE.md "Signed-head pin", "pin_dir"):
 * both are read first (a pin for another key, or with no valid slot, stops it); the newer one
 * (the larger size) ends at `path`, copied durably (a `.partial` file, fsync, rename, fsync of
 * the directory) before the former is renamed `<former>.moved`, so a crash anywhere leaves a pin
 * in force. Never two roots at one size: that is `store-forks-signed-head`. Nothing at `former`:
 * nothing to do (a pinned store without any pin still fails as `signed-head-pin-missing`).
 */
export async function adoptPin(
  former: string,
  path: string,
  publicKey: Uint8Array,
): Promise<"none" | "adopted" | "kept"> {
  if (!existsSync(former)) return "none";
  const read = async (p: string) => {
    const f = openPinFile(p, publicKey, p);
    try {
      return await f.read();
    } finally {
      f.close();
    }
  };
  const old = await read(former);
  const cur = existsSync(path) ? await read(path) : undefined;
  if (old && cur && old.size === cur.size && !old.root.every((x, i) => x === cur.root[i])) {
    throw new LogStateError(
      "store-forks-signed-head",
      `Cannot open the log: its pins ${former} and ${path} hold two roots at size ${old.size}`,
    );
  }
  const adopt = !cur || (old !== undefined && old.size > cur.size);
  if (adopt) {
    const dir = dirname(path);
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${path}.partial`;
    const fd = openSync(tmp, "w", 0o600);
    try {
      const b = readFileSync(former);
      for (let off = 0; off < b.length;) off += writeSync(fd, b, off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    fsyncPath(dir);
  }
  renameSync(former, movedPinName(former));
  fsyncPath(dirname(former));
  return adopt ? "adopted" : "kept";
}
