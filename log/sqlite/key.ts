// Key files (JouleClaw SPEC §22.2: heads are signed Ed25519 by the log key; the operator key signs
// the shard directory; the witness key cosigns): a 32-byte secret, hex, in a file. A key is
// generated (mode 0600, created exclusively, so two starts never race to different keys) only
// where its caller says a new identity is right (a brand-new log, issue 27); a missing key is
// otherwise an error, never a new identity. A key file others may read is refused (`keyFileMode`).
import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  statSync,
  writeSync,
} from "node:fs";
import { ed25519GenerateSecret, fromHex, toHex } from "../../verify/mod.ts";

/**
 * A key file refused. Codes: `log-key` (unreadable or not 64 hex digits), `<what>-missing` (absent
 * where its state exists: `log-key-missing`, `operator-key-missing`), `key-file-permissions` (readable by group or others).
 */
export class LogKeyError extends Error {
  readonly code: string;
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    const code = options?.code ?? "log-key";
    super(code === "log-key" ? message : `${message} [${code}]`, options);
    this.name = "LogKeyError";
    this.code = code;
  }
}

/**
 * Refuses a key file that group or others may read, write or run (like ssh's private keys: mode &
 * 0o077 must be 0), so a secret left readable on a shared machine is named at start instead of
 * used. Windows has no such mode bits: exempt. `what` names the key ("log key", "operator key").
 */
export function keyFileMode(path: string, what = "log key"): void {
  if (Deno.build.os === "windows") return;
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch (err) {
    throw new LogKeyError(`Cannot read ${what} ${path}: ${(err as Error).message}`, { cause: err });
  }
  if ((mode & 0o077) !== 0) {
    throw new LogKeyError(
      `Cannot use ${what} ${path}: mode ${(mode & 0o777).toString(8).padStart(4, "0")} lets ` +
        `others read it; a key file must be private to its owner: chmod 600 ${path}`,
      { code: "key-file-permissions" },
    );
  }
}

/** Reads a key from `path` (no mode check: tools read keys too; the service calls keyFileMode). */
export function readLogKey(path: string, what = "log key"): Uint8Array {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new LogKeyError(`Cannot read ${what} ${path}: ${(err as Error).message}`, { cause: err });
  }
  const hex = text.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new LogKeyError(
      `Cannot read ${what} ${path}: expected 64 hex digits (a 32-byte Ed25519 secret)`,
    );
  }
  return fromHex(hex.toLowerCase());
}

/** Options of `loadOrCreateLogKey`. */
export interface KeyFileOptions {
  /** What the key is, in messages ("log key", "operator key", "witness key"). Default log key. */
  what?: string;
  /**
   * Whether a missing file may be generated (a new identity). False: a missing key is refused
   * with `<what>-missing` (`log-key-missing`) and `missingWhy` (what it is bound to). Default true.
   */
  create?: boolean;
  missingWhy?: string;
}

/**
 * Reads the key at `path` (refusing one others may read), generating it (mode 0600) when the file
 * does not exist and `create` allows it.
 *
 * @example
 * ```ts
 * const secret = loadOrCreateLogKey("./data/log-key.hex").secret;
 * ```
 */
export function loadOrCreateLogKey(
  path: string,
  o: KeyFileOptions = {},
): { secret: Uint8Array; created: boolean } {
  const what = o.what ?? "log key";
  const existing = () => {
    keyFileMode(path, what);
    return { secret: readLogKey(path, what), created: false };
  };
  if (existsSync(path)) return existing();
  if (o.create === false) {
    throw new LogKeyError(
      `Cannot start: the ${what} ${path} is missing, but ${
        o.missingWhy ?? "its state exists"
      }; a new key would be a new identity. Restore the key file from a backup ` +
        '(docs/OPERATIONS.md "When the log refuses to open")',
      { code: `${what.replaceAll(" ", "-")}-missing` },
    );
  }
  const secret = ed25519GenerateSecret();
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (err) {
    if ((err as { code?: string }).code === "EEXIST") return existing();
    throw new LogKeyError(`Cannot create ${what} ${path}: ${(err as Error).message}`, {
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
