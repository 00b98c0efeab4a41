// JouleClaw SPEC §22.2 signed tree heads: the signed bytes are exactly
// `0x02 || size (u64 BE) || root (32 raw bytes) || timestamp (u64 BE, ms)`, Ed25519 by the log key.
// A head whose root is not 32 bytes of lowercase hex is refused, never treated as absent (§22.2).
import {
  didKeyFromPublicKey,
  ed25519PublicKey,
  ed25519Sign,
  ed25519Verify,
  fromHex,
  publicKeyFromDidKey,
  toHex,
} from "./crypto.ts";
import { HASH_SIZE } from "./hasher.ts";
import { LogInputError } from "./errors.ts";

/** A signed tree head as JSON (API.md): hashes lowercase hex, times in ms since the epoch. */
export interface TreeHead {
  size: number;
  root: string;
  timestamp: number;
  signature: string;
  signer: string;
}

/** Domain separator of a tree head, distinct from leaf (0x00) and node (0x01), SPEC §22.2. */
export const TREE_HEAD_PREFIX = 0x02;
/** Length of the signed bytes: 1 + 8 + 32 + 8. */
export const TREE_HEAD_BYTES = 49;

/**
 * The exact bytes a tree head signature covers, SPEC §22.2.
 *
 * @example
 * ```ts
 * treeHeadBytes(0, blake3Hasher.empty(), 0).length; // 49
 * ```
 */
export function treeHeadBytes(size: number, root: Uint8Array, timestampMs: number): Uint8Array {
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new LogInputError("head-bad-size", `Cannot encode tree head: size ${size} is not a u64`);
  }
  if (!(root instanceof Uint8Array) || root.length !== HASH_SIZE) {
    throw new LogInputError("head-bad-root", "Cannot encode tree head: root is not 32 bytes");
  }
  if (!Number.isSafeInteger(timestampMs) || timestampMs < 0) {
    throw new LogInputError(
      "head-bad-timestamp",
      `Cannot encode tree head: timestamp ${timestampMs} is not a u64`,
    );
  }
  const out = new Uint8Array(TREE_HEAD_BYTES);
  const view = new DataView(out.buffer);
  out[0] = TREE_HEAD_PREFIX; // §22.2: third domain separator
  view.setBigUint64(1, BigInt(size), false); // §22.2: size, 8 bytes big-endian
  out.set(root, 9); // §22.2: root, 32 raw bytes
  view.setBigUint64(41, BigInt(timestampMs), false); // §22.2: timestamp, 8 bytes big-endian
  return out;
}

/**
 * Signs a tree head with the log key (Ed25519), SPEC §22.2.
 *
 * @example
 * ```ts
 * const head = signTreeHead(0, blake3Hasher.empty(), Date.now(), secret);
 * ```
 */
export function signTreeHead(
  size: number,
  root: Uint8Array,
  timestampMs: number,
  secret32: Uint8Array,
): TreeHead {
  const sig = ed25519Sign(treeHeadBytes(size, root, timestampMs), secret32);
  return {
    size,
    root: toHex(root),
    timestamp: timestampMs,
    signature: toHex(sig),
    signer: didKeyFromPublicKey(ed25519PublicKey(secret32)),
  };
}

/** Why a tree head was refused; `ok` when it verifies. */
export type TreeHeadCheck = { ok: true } | { ok: false; code: string; detail: string };

const HEX32 = /^[0-9a-f]{64}$/;
const HEX64 = /^[0-9a-f]{128}$/;

function refuse(code: string, detail: string): TreeHeadCheck {
  return { ok: false, code, detail };
}

/**
 * Checks a tree head and says why it is refused: malformed fields (§22.2: a root that is not
 * 32 bytes of hex is refused), a signer other than `expectedSigner`, or a bad signature.
 */
export async function checkTreeHead(
  head: unknown,
  expectedSigner?: string,
): Promise<TreeHeadCheck> {
  if (typeof head !== "object" || head === null || Array.isArray(head)) {
    return refuse("head-malformed", "Cannot verify tree head: not a JSON object");
  }
  const h = head as Record<string, unknown>;
  const size = h.size, ts = h.timestamp;
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) {
    return refuse("head-bad-size", "Cannot verify tree head: size is not a non-negative integer");
  }
  // §22.2: "A verifier MUST reject a head whose root is not 32 bytes of hex".
  if (typeof h.root !== "string" || !HEX32.test(h.root)) {
    return refuse(
      "head-bad-root",
      "Cannot verify tree head: root is not 32 bytes of lowercase hex",
    );
  }
  if (typeof ts !== "number" || !Number.isSafeInteger(ts) || ts < 0) {
    return refuse("head-bad-timestamp", "Cannot verify tree head: timestamp is not a u64 of ms");
  }
  if (typeof h.signature !== "string" || !HEX64.test(h.signature)) {
    return refuse(
      "head-malformed-signature",
      "Cannot verify tree head: signature is not 64 bytes of lowercase hex",
    );
  }
  if (typeof h.signer !== "string") {
    return refuse("head-bad-signer", "Cannot verify tree head: signer is not a did:key");
  }
  let pub: Uint8Array;
  try {
    pub = publicKeyFromDidKey(h.signer);
  } catch {
    return refuse("head-bad-signer", "Cannot verify tree head: signer is not an Ed25519 did:key");
  }
  if (expectedSigner !== undefined && h.signer !== expectedSigner) {
    return refuse(
      "head-wrong-signer",
      `Cannot verify tree head: signed by ${h.signer}, expected ${expectedSigner}`,
    );
  }
  const msg = treeHeadBytes(size, fromHex(h.root), ts);
  if (!(await ed25519Verify(fromHex(h.signature), msg, pub))) {
    return refuse("head-bad-signature", "Cannot verify tree head: signature does not verify");
  }
  return { ok: true };
}

/**
 * True when `head` is well formed, signed by `expectedSigner` (when given) and its signature
 * verifies; false otherwise (`checkTreeHead` says why).
 *
 * @example
 * ```ts
 * await verifyTreeHead(head, log.signer()); // true
 * ```
 */
export async function verifyTreeHead(head: TreeHead, expectedSigner?: string): Promise<boolean> {
  return (await checkTreeHead(head, expectedSigner)).ok;
}
