// C2SP tlog-witness v1 `add-checkpoint` (../shared/spec/c2sp/tlog-witness.md), the witness's pure
// rules: the request body's grammar, and the checks that decide whether a checkpoint may be
// cosigned given the latest one this witness cosigned for its origin. Every refusal is a typed
// WitnessRefusal carrying the status code the spec names for it. Signature checks and the
// cosignature itself are the signed-note code's (log/c2sp/note.ts); durability and the
// compare-and-swap are the caller's (log/c2sp/witness_service.ts).
import { type Hasher } from "../hasher.ts";
import { verifyConsistency } from "../proof.ts";
import { bytesEqual } from "../../verify/mod.ts";

/** tlog-witness: "The client MUST NOT send more than 63 consistency proof lines." */
export const MAX_PROOF_LINES = 63;

/** Largest add-checkpoint body a witness reads (63 proof lines + a checkpoint with 16+ sigs). */
export const MAX_ADD_CHECKPOINT_BYTES = 64 * 1024;

/** Status codes of tlog-witness add-checkpoint refusals. */
export type WitnessStatus = 400 | 403 | 404 | 409 | 422;

/** Stable codes of the refusals, each with the status tlog-witness assigns it. */
export const WITNESS_CODES = {
  "witness-bad-request": 400, // body grammar: old line, proof lines, blank line
  "witness-bad-checkpoint": 400, // the checkpoint note/body does not parse
  "witness-old-size-too-large": 400, // "The old size MUST be equal to or lower than the checkpoint size"
  "witness-too-many-proof-lines": 400, // "MUST NOT send more than 63 consistency proof lines"
  "witness-bad-signature": 403, // no trusted signature, or a trusted key's signature fails
  "witness-unknown-origin": 404, // "If the checkpoint origin is unknown ... 404"
  "witness-old-size-mismatch": 409, // "If it doesn't match ... 409 Conflict" + text/x.tlog.size
  "witness-empty-root": 422, // size 0 with a root other than the empty tree's
  "witness-proof-not-empty": 422, // old size 0 with proof lines
  "witness-bad-proof": 422, // the consistency proof does not verify
  "witness-root-mismatch": 422, // old size == size and the roots differ
} as const satisfies Record<string, WitnessStatus>;

/** A stable witness refusal code. */
export type WitnessCode = keyof typeof WITNESS_CODES;

/** A refused add-checkpoint; `size` is the latest cosigned size (the 409 body). */
export class WitnessRefusal extends Error {
  readonly status: WitnessStatus;
  constructor(readonly code: WitnessCode, message: string, readonly size?: number) {
    super(message);
    this.name = "WitnessRefusal";
    this.status = WITNESS_CODES[code];
  }
}

/** A parsed add-checkpoint request body. */
export interface AddCheckpointRequest {
  oldSize: number;
  proof: Uint8Array[];
  /** The checkpoint: a signed note, exactly the bytes after the blank line. */
  checkpoint: Uint8Array;
}

function bad(message: string): never {
  throw new WitnessRefusal("witness-bad-request", `Cannot parse add-checkpoint: ${message}`);
}

// RFC 4648 §4, canonical only: exactly 44 characters for 32 bytes, no whitespace, the pad bits 0.
function hashFromBase64(line: string, n: number): Uint8Array {
  if (!/^[A-Za-z0-9+/]{43}=$/.test(line)) bad(`proof line ${n} is not base64 of a 32-byte hash`);
  const raw = atob(line);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = raw.charCodeAt(i);
  if (btoa(raw) !== line) bad(`proof line ${n} is not canonical base64`);
  return out;
}

/**
 * Parses an add-checkpoint body (tlog-witness "add-checkpoint"): an old size line, zero to 63
 * consistency proof lines, an empty line, then the checkpoint. Throws WitnessRefusal (400).
 *
 * @example
 * ```ts
 * const req = parseAddCheckpoint(new TextEncoder().encode("old 0\n\n" + checkpointNote));
 * ```
 */
export function parseAddCheckpoint(body: Uint8Array): AddCheckpointRequest {
  if (body.length > MAX_ADD_CHECKPOINT_BYTES) {
    bad(`the body exceeds ${MAX_ADD_CHECKPOINT_BYTES} bytes`);
  }
  // The header is ASCII; find the blank line that ends it without decoding the note.
  let pos = 0;
  const lineAt = (): string | undefined => {
    const nl = body.indexOf(0x0a, pos);
    if (nl < 0) return undefined; // "Each line MUST terminate in a newline character"
    let s = "";
    for (let i = pos; i < nl; i++) {
      const b = body[i];
      if (b < 0x20 || b > 0x7e) bad("a header line holds a byte that is not printable ASCII");
      s += String.fromCharCode(b);
    }
    pos = nl + 1;
    return s;
  };
  const first = lineAt();
  if (first === undefined) bad("no old size line ending in a newline");
  const m = /^old (0|[1-9][0-9]*)$/.exec(first);
  if (!m) bad(`the first line must be "old <size>" (decimal, no leading zeroes)`);
  const oldSize = Number(m[1]);
  if (!Number.isSafeInteger(oldSize)) bad("the old size is too large");
  const proof: Uint8Array[] = [];
  for (;;) {
    const line = lineAt();
    if (line === undefined) bad("no empty line before the checkpoint");
    if (line === "") break;
    if (proof.length === MAX_PROOF_LINES) {
      throw new WitnessRefusal(
        "witness-too-many-proof-lines",
        `Cannot parse add-checkpoint: more than ${MAX_PROOF_LINES} consistency proof lines`,
      );
    }
    proof.push(hashFromBase64(line, proof.length + 1));
  }
  const checkpoint = body.subarray(pos);
  if (checkpoint.length === 0) bad("no checkpoint after the empty line");
  return { oldSize, proof, checkpoint };
}

/**
 * Serialises an add-checkpoint body (the collector's side of the same grammar).
 *
 * @example
 * ```ts
 * formatAddCheckpoint(0, [], checkpointNote);
 * ```
 */
export function formatAddCheckpoint(
  oldSize: number,
  proof: Uint8Array[],
  checkpoint: Uint8Array,
): Uint8Array<ArrayBuffer> {
  if (proof.length > MAX_PROOF_LINES) {
    throw new RangeError(`Cannot send add-checkpoint: ${proof.length} proof lines > 63`);
  }
  let head = `old ${oldSize}\n`;
  for (const h of proof) head += btoa(String.fromCharCode(...h)) + "\n";
  head += "\n";
  const h = new TextEncoder().encode(head);
  const out = new Uint8Array(h.length + checkpoint.length);
  out.set(h);
  out.set(checkpoint, h.length);
  return out;
}

/** The latest checkpoint a witness cosigned for one origin. */
export interface WitnessedHead {
  size: number;
  root: Uint8Array;
}

/**
 * The consistency rules of tlog-witness add-checkpoint, applied after the origin is known and the
 * log signature verified: throws WitnessRefusal (400, 409, 422) or returns when the checkpoint
 * (`size`, `root`) may be cosigned over `prev` (undefined: never cosigned, i.e. size 0).
 *
 * @example
 * ```ts
 * checkAdvance(sha256Hasher, req, { size: 5, root }, undefined);
 * ```
 */
export function checkAdvance(
  hasher: Hasher,
  req: Pick<AddCheckpointRequest, "oldSize" | "proof">,
  next: WitnessedHead,
  prev: WitnessedHead | undefined,
): void {
  const stored = prev?.size ?? 0;
  // "The old size MUST be equal to or lower than the checkpoint size. Otherwise ... 400"
  if (req.oldSize > next.size) {
    throw new WitnessRefusal(
      "witness-old-size-too-large",
      `Cannot cosign: old size ${req.oldSize} is larger than the checkpoint size ${next.size}`,
    );
  }
  // "The witness MUST check that the old size matches the size of the latest checkpoint it
  // cosigned ... If it doesn't match, the witness MUST respond with a 409 Conflict"
  if (req.oldSize !== stored) {
    throw new WitnessRefusal(
      "witness-old-size-mismatch",
      `Cannot cosign: old size ${req.oldSize} is not the latest cosigned size ${stored}`,
      stored,
    );
  }
  // "A checkpoint of size zero MUST have the root hash of the empty tree ... Otherwise ... 422"
  if (next.size === 0 && !bytesEqual(next.root, hasher.empty())) {
    throw new WitnessRefusal(
      "witness-empty-root",
      "Cannot cosign: a checkpoint of size 0 must carry the empty tree's root",
    );
  }
  if (req.oldSize === 0) {
    // "If the old size is zero, the consistency proof MUST be empty"
    if (req.proof.length !== 0) {
      throw new WitnessRefusal(
        "witness-proof-not-empty",
        "Cannot cosign: old size 0 takes no consistency proof",
      );
    }
    return;
  }
  // "If the old size matches the checkpoint size, the witness MUST check that the root hashes are
  // also identical. If they don't match ... 422"
  if (req.oldSize === next.size) {
    if (!bytesEqual(prev!.root, next.root)) {
      throw new WitnessRefusal(
        "witness-root-mismatch",
        `Cannot cosign: size ${next.size} was cosigned with another root`,
      );
    }
    if (req.proof.length !== 0) {
      throw new WitnessRefusal(
        "witness-bad-proof",
        "Cannot cosign: a checkpoint of the cosigned size takes no consistency proof",
      );
    }
    return;
  }
  // RFC 6962 §2.1.2 consistency from the stored root to the new one, "Otherwise ... 422".
  if (!verifyConsistency(hasher, req.oldSize, next.size, req.proof, prev!.root, next.root)) {
    throw new WitnessRefusal(
      "witness-bad-proof",
      `Cannot cosign: the consistency proof from ${req.oldSize} to ${next.size} does not verify`,
    );
  }
}
