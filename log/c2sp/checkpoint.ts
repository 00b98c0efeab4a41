// C2SP tlog-checkpoint (c2sp.org/tlog-checkpoint@v1.0.0): the note text `origin\nsize\nbase64(root)\n`
// plus optional extension lines, signed as a signed note by the log's Ed25519 key whose name is the
// origin (PUBLICATION.md Decision P2). Parsing refuses every non-canonical spelling with a code.
import { HASH_SIZE } from "../hasher.ts";
import { fromBase64, toBase64 } from "./base64.ts";
import { C2spError } from "./errors.ts";
import {
  ed25519NoteSigner,
  hasControlChar,
  type NoteLimits,
  type NoteSignature,
  type NoteSigner,
  type NoteVerifier,
  openNote,
  signNote,
  verifierFromVkey,
} from "./note.ts";

/** A tree head as a checkpoint says it. */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  /** Extension lines (tlog-checkpoint §Note text 4: opaque, non-empty, NOT RECOMMENDED). */
  extensions?: string[];
}

/**
 * Most extension lines accepted (issue 18: a checkpoint with more lines is refused before it is
 * split; tlog-checkpoint sets no maximum and calls extension lines NOT RECOMMENDED).
 */
export const MAX_CHECKPOINT_EXTENSIONS = 16;

// tlog-checkpoint §Note text 2: "ASCII decimal ... with no leading zeroes".
const SIZE = /^(?:0|[1-9][0-9]{0,15})$/;

function bad(code: string, why: string): never {
  throw new C2spError(code, `Cannot read checkpoint: ${why}`);
}

/**
 * The checkpoint's note text.
 *
 * @example
 * ```ts
 * formatCheckpoint({ origin: "example.org/log/sha256", size: 1, root }); // "example.org/...\n1\n...\n"
 * ```
 */
export function formatCheckpoint(c: Checkpoint): string {
  if (typeof c.origin !== "string" || c.origin.length === 0 || hasControlChar(c.origin)) {
    bad("checkpoint-bad-origin", "origin is empty or has a control character");
  }
  if (!Number.isSafeInteger(c.size) || c.size < 0) bad("checkpoint-bad-size", "size is not a u64");
  if (!(c.root instanceof Uint8Array) || c.root.length !== HASH_SIZE) {
    bad("checkpoint-bad-root", "root is not 32 bytes");
  }
  const ext = c.extensions ?? [];
  for (const e of ext) {
    if (typeof e !== "string" || e.length === 0 || hasControlChar(e)) {
      bad("checkpoint-bad-extension", "an extension line is empty or has a control character");
    }
  }
  return [c.origin, String(c.size), toBase64(c.root), ...ext].join("\n") + "\n";
}

/**
 * Parses a checkpoint's note text (no signatures). Codes: `checkpoint-malformed`,
 * `checkpoint-bad-origin`, `checkpoint-bad-size`, `checkpoint-bad-root`, `checkpoint-bad-extension`,
 * `checkpoint-too-many-lines` (more than MAX_CHECKPOINT_EXTENSIONS extension lines).
 */
export function parseCheckpoint(text: string): Checkpoint {
  if (typeof text !== "string" || !text.endsWith("\n")) {
    bad("checkpoint-malformed", "the text does not end in a newline");
  }
  let newlines = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) newlines++;
  if (newlines > 3 + MAX_CHECKPOINT_EXTENSIONS) {
    bad("checkpoint-too-many-lines", `more than ${MAX_CHECKPOINT_EXTENSIONS} extension lines`);
  }
  const lines = text.slice(0, -1).split("\n");
  // §Note text: "a sequence of at least three non-empty lines".
  if (lines.length < 3) bad("checkpoint-malformed", "fewer than three lines");
  const [origin, size, root, ...extensions] = lines;
  if (origin.length === 0) bad("checkpoint-bad-origin", "origin is empty"); // §1 "MUST be non-empty"
  if (!SIZE.test(size) || !Number.isSafeInteger(Number(size))) {
    bad("checkpoint-bad-size", "size is not a canonical decimal (or exceeds 2^53 - 1)");
  }
  const r = fromBase64(root, "checkpoint-bad-root");
  if (r.length !== HASH_SIZE) bad("checkpoint-bad-root", "root is not 32 bytes");
  // §4: "Extension lines, if any, MUST be non-empty."
  if (extensions.some((e) => e.length === 0)) {
    bad("checkpoint-bad-extension", "an extension line is empty");
  }
  return extensions.length
    ? { origin, size: Number(size), root: r, extensions }
    : { origin, size: Number(size), root: r };
}

/**
 * Signs a checkpoint with the log's Ed25519 key (key name = origin unless given), giving the
 * signed note; `extra` signers (e.g. more log keys) sign too.
 *
 * @example
 * ```ts
 * const note = signCheckpoint({ origin, size, root }, secret);
 * ```
 */
export function signCheckpoint(
  c: Checkpoint,
  secret32: Uint8Array,
  opts: { name?: string; extra?: NoteSigner[] } = {},
): string {
  const signer = ed25519NoteSigner(opts.name ?? c.origin, secret32);
  return signNote(formatCheckpoint(c), [signer, ...(opts.extra ?? [])]);
}

/** A checkpoint opened with the log's key. */
export interface OpenedCheckpoint {
  checkpoint: Checkpoint;
  /** The note text (what cosignatures sign). */
  text: string;
  /** Verified signatures (the log key's first), and the others, kept for cosignature checks. */
  verified: { verifier: NoteVerifier; signature: NoteSignature }[];
  unknown: NoteSignature[];
}

/**
 * Opens a signed checkpoint: the note must verify under one of `keys` (vkeys or verifiers), and its
 * origin must be `opts.origin` (default: the first key's name; tlog-checkpoint §Signatures: the
 * key name SHOULD match the origin). Code `checkpoint-wrong-origin`, plus the note's and
 * `parseCheckpoint`'s codes.
 *
 * @example
 * ```ts
 * const { checkpoint } = await openCheckpoint(noteText, vkey);
 * ```
 */
export async function openCheckpoint(
  note: string | Uint8Array,
  keys: string | NoteVerifier | (string | NoteVerifier)[],
  opts: { origin?: string; limits?: NoteLimits } = {},
): Promise<OpenedCheckpoint> {
  const list = (Array.isArray(keys) ? keys : [keys]).map((k) =>
    typeof k === "string" ? verifierFromVkey(k) : k
  );
  if (list.length === 0) bad("checkpoint-no-key", "no log key given");
  const opened = await openNote(note, list, opts.limits);
  const checkpoint = parseCheckpoint(opened.text);
  const origin = opts.origin ?? list[0].name;
  if (checkpoint.origin !== origin) {
    bad("checkpoint-wrong-origin", `origin ${checkpoint.origin}, expected ${origin}`);
  }
  return { checkpoint, text: opened.text, verified: opened.verified, unknown: opened.unknown };
}
