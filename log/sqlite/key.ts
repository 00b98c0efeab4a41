// The log key (JouleClaw SPEC §22.2: heads are signed Ed25519 by the log key): a 32-byte secret,
// hex, in a file. On the embedded default's first start it is generated and written with mode
// 0600 (created exclusively, so two starts never race to different keys), and reused after.
import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  writeSync,
} from "node:fs";
import { ed25519GenerateSecret, fromHex, toHex } from "../../verify/mod.ts";

/** Thrown when the key file cannot be read or holds something other than a 32-byte hex secret. */
export class LogKeyError extends Error {
  readonly code = "log-key";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "LogKeyError";
  }
}

/** Reads the log key from `path`. */
export function readLogKey(path: string): Uint8Array {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new LogKeyError(`Cannot read log key ${path}: ${(err as Error).message}`, { cause: err });
  }
  const hex = text.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new LogKeyError(
      `Cannot read log key ${path}: expected 64 hex digits (a 32-byte Ed25519 secret)`,
    );
  }
  return fromHex(hex.toLowerCase());
}

/**
 * Reads the log key at `path`, generating it (mode 0600) when the file does not exist.
 *
 * @example
 * ```ts
 * const secret = loadOrCreateLogKey("./data/log-key.hex");
 * ```
 */
export function loadOrCreateLogKey(path: string): { secret: Uint8Array; created: boolean } {
  if (existsSync(path)) return { secret: readLogKey(path), created: false };
  const secret = ed25519GenerateSecret();
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (err) {
    if ((err as { code?: string }).code === "EEXIST") {
      return { secret: readLogKey(path), created: false };
    }
    throw new LogKeyError(`Cannot create log key ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  try {
    writeSync(fd, toHex(secret) + "\n");
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { secret, created: true };
}
