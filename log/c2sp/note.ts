// C2SP signed-note (c2sp.org/signed-note@v1.0.0): parse and serialize signed notes with the limits
// checked before any decoding or signature work, key IDs, verifier keys (vkeys), Ed25519 note
// signatures (type 0x01) and timestamped Ed25519 cosignatures (c2sp.org/tlog-cosignature,
// cosignature/v1, type 0x04). Ed25519 is verify/'s through log/crypto.ts (strict verification, Decision 3); SHA-256 is
// @noble/hashes, as log/hasher.ts.
import { sha256 } from "@noble/hashes/sha2.js";
import { ed25519PublicKey, ed25519Sign, ed25519Verify } from "../crypto.ts";
import { fromBase64, toBase64 } from "./base64.ts";
import { C2spError } from "./errors.ts";

/** signed-note §Signature types: Ed25519. */
export const SIG_ED25519 = 0x01;
/** signed-note §Signature types / tlog-cosignature: timestamped Ed25519 cosignature/v1. */
export const SIG_COSIGNATURE_V1 = 0x04;

/** Limits checked before any work (signed-note §Signatures: "Verifiers SHOULD apply a maximum"). */
export interface NoteLimits {
  /** Most bytes of a whole note (text + signatures). */
  maxBytes: number;
  /** Most signature lines; signed-note requires accepting at least 16. */
  maxSignatures: number;
}

/** Defaults: 64 KiB and 64 signature lines (16 post-quantum cosignatures fit in neither, by design). */
export const NOTE_LIMITS: NoteLimits = Object.freeze({ maxBytes: 65_536, maxSignatures: 64 });

/** One signature line: key name, key ID (uint32) and the signature bytes after the key ID. */
export interface NoteSignature {
  name: string;
  keyId: number;
  sig: Uint8Array;
}

/** A parsed (not yet verified) signed note. `text` ends in a newline and excludes the blank line. */
export interface Note {
  text: string;
  signatures: NoteSignature[];
}

/** Checks signatures of one key (name + key ID); the type byte says which algorithm. */
export interface NoteVerifier {
  name: string;
  keyId: number;
  type: number;
  publicKey: Uint8Array;
  /** True when `sig` (the bytes after the key ID) verifies over the note text. */
  verify(text: Uint8Array, sig: Uint8Array): Promise<boolean>;
}

/** Makes signatures of one key. */
export interface NoteSigner {
  name: string;
  keyId: number;
  sign(text: Uint8Array): Uint8Array;
}

const enc = new TextEncoder();
const dec = new TextDecoder("utf-8", { fatal: true });
const EM_DASH_SP = "\u2014 ";
// signed-note §Format: key names "MUST NOT contain any Unicode spaces or plus (U+002B)".
const BAD_NAME = /[\s+\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;
// signed-note §Format: "MUST NOT contain any ASCII control characters ... other than newline".
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x09\x0b-\x1f]/;
// deno-lint-ignore no-control-regex
const CONTROL_OR_NEWLINE = /[\x00-\x1f]/;

/** True when `s` holds an ASCII control character (newline too): not allowed within one line. */
export function hasControlChar(s: string): boolean {
  return CONTROL_OR_NEWLINE.test(s);
}

function fail(code: string, why: string): never {
  throw new C2spError(code, `Cannot read signed note: ${why}`);
}

/** True when `name` is a valid signed-note key name (non-empty, no spaces, no '+'). */
export function isKeyName(name: string): boolean {
  return typeof name === "string" && name.length > 0 && !BAD_NAME.test(name) &&
    !CONTROL.test(name) && !name.includes("\n");
}

/**
 * signed-note §Signatures: key ID = SHA-256(name || 0x0A || type || public key)[:4], big-endian.
 *
 * @example
 * ```ts
 * keyIdOf("example.com/foo", SIG_ED25519, pub).toString(16).padStart(8, "0");
 * ```
 */
export function keyIdOf(name: string, type: number, publicKey: Uint8Array): number {
  const n = enc.encode(name);
  const msg = new Uint8Array(n.length + 2 + publicKey.length);
  msg.set(n);
  msg[n.length] = 0x0a;
  msg[n.length + 1] = type;
  msg.set(publicKey, n.length + 2);
  const d = sha256(msg);
  return ((d[0] << 24) | (d[1] << 16) | (d[2] << 8) | d[3]) >>> 0;
}

const hex8 = (id: number) => id.toString(16).padStart(8, "0");

/**
 * Parses a signed note, checking the byte and signature-line limits before decoding anything.
 * Throws `C2spError` (codes `note-too-large`, `note-not-utf8`, `note-control-char`,
 * `note-no-signatures`, `note-too-many-signatures`, `note-bad-signature-line`).
 *
 * @example
 * ```ts
 * const { text, signatures } = parseNote(checkpointText);
 * ```
 */
export function parseNote(input: string | Uint8Array, limits: NoteLimits = NOTE_LIMITS): Note {
  // Limits before work: a string of more UTF-16 units than the byte limit is over it already.
  if (typeof input === "string" ? input.length > limits.maxBytes : input.length > limits.maxBytes) {
    fail("note-too-large", `more than ${limits.maxBytes} bytes`);
  }
  let msg: string;
  if (typeof input === "string") {
    msg = input;
    if (enc.encode(msg).length > limits.maxBytes) {
      fail("note-too-large", `more than ${limits.maxBytes} bytes`);
    }
    if (msg.isWellFormed && !msg.isWellFormed()) fail("note-not-utf8", "not valid UTF-8");
  } else {
    try {
      msg = dec.decode(input);
    } catch {
      fail("note-not-utf8", "not valid UTF-8"); // signed-note §Format: "MUST be valid UTF-8"
    }
    if (msg.charCodeAt(0) === 0xfeff) fail("note-control-char", "starts with a byte order mark");
  }
  if (CONTROL.test(msg)) fail("note-control-char", "control character other than newline");
  // signed-note §Format: "the text is separated from the signatures by the last empty line".
  const split = msg.lastIndexOf("\n\n");
  if (split < 0 || !msg.endsWith("\n")) {
    fail("note-no-signatures", "no blank line followed by signature lines");
  }
  const text = msg.slice(0, split + 1);
  const block = msg.slice(split + 2);
  if (block.length === 0) fail("note-no-signatures", "no signature lines");
  let lines = 0;
  for (let i = 0; i < block.length; i++) if (block.charCodeAt(i) === 10) lines++;
  if (lines > limits.maxSignatures) {
    fail("note-too-many-signatures", `more than ${limits.maxSignatures} signature lines`);
  }
  const signatures: NoteSignature[] = [];
  for (const line of block.slice(0, -1).split("\n")) signatures.push(parseSignatureLine(line));
  return { text, signatures };
}

/** Parses one `— <name> <base64(keyid || sig)>` line (without its newline). */
export function parseSignatureLine(line: string): NoteSignature {
  if (!line.startsWith(EM_DASH_SP)) {
    fail("note-bad-signature-line", "a signature line does not start with an em dash and space");
  }
  const rest = line.slice(EM_DASH_SP.length);
  const sp = rest.indexOf(" ");
  const name = sp < 0 ? "" : rest.slice(0, sp);
  if (!isKeyName(name)) fail("note-bad-signature-line", "a signature line has a bad key name");
  const raw = fromBase64(rest.slice(sp + 1), "note-bad-signature-line");
  // signed-note §Format: "the base64 encoding of 4+n bytes".
  if (raw.length < 5) fail("note-bad-signature-line", "a signature is shorter than 5 bytes");
  const keyId = ((raw[0] << 24) | (raw[1] << 16) | (raw[2] << 8) | raw[3]) >>> 0;
  return { name, keyId, sig: raw.slice(4) };
}

/** The `— <name> <base64>\n` line of one signature. */
export function formatSignatureLine(s: NoteSignature): string {
  const raw = new Uint8Array(4 + s.sig.length);
  new DataView(raw.buffer).setUint32(0, s.keyId, false);
  raw.set(s.sig, 4);
  return `${EM_DASH_SP}${s.name} ${toBase64(raw)}\n`;
}

/** Checks that `text` can be a note text: UTF-8 text ending in a newline, no control but newline. */
export function checkNoteText(text: string): void {
  if (typeof text !== "string" || !text.endsWith("\n")) {
    fail("note-bad-text", "the text does not end in a newline");
  }
  if (CONTROL.test(text)) fail("note-control-char", "control character other than newline");
  if (text.isWellFormed && !text.isWellFormed()) fail("note-not-utf8", "not valid UTF-8");
}

/** Serializes a note: text, blank line, one line per signature. */
export function formatNote(note: Note): string {
  checkNoteText(note.text);
  if (note.signatures.length === 0) fail("note-no-signatures", "no signatures to write");
  return `${note.text}\n${note.signatures.map(formatSignatureLine).join("")}`;
}

/**
 * Signs `text` with every signer, giving the whole signed note.
 *
 * @example
 * ```ts
 * const note = signNote("hello\n", [ed25519NoteSigner("example.com/k", secret)]);
 * ```
 */
export function signNote(text: string, signers: NoteSigner[]): string {
  checkNoteText(text);
  const bytes = enc.encode(text);
  return formatNote({
    text,
    signatures: signers.map((s) => ({ name: s.name, keyId: s.keyId, sig: s.sign(bytes) })),
  });
}

/** The outcome of `openNote`: the text and which known keys' signatures verified. */
export interface OpenedNote {
  text: string;
  /** Signatures by known keys that verified, in note order. */
  verified: { verifier: NoteVerifier; signature: NoteSignature }[];
  /** Signatures by keys not given (ignored, kept for callers that forward cosignatures). */
  unknown: NoteSignature[];
}

/**
 * Parses and verifies a signed note against known keys (signed-note §Signatures): unknown keys are
 * ignored; a known key's signature that fails rejects the whole note (`note-bad-signature`); no
 * verified known signature rejects it (`note-unverified`).
 *
 * @example
 * ```ts
 * const { text } = await openNote(msg, [verifierFromVkey(vkey)]);
 * ```
 */
export async function openNote(
  input: string | Uint8Array,
  verifiers: NoteVerifier[],
  limits: NoteLimits = NOTE_LIMITS,
): Promise<OpenedNote> {
  const note = parseNote(input, limits);
  const textBytes = enc.encode(note.text);
  const verified: OpenedNote["verified"] = [];
  const unknown: NoteSignature[] = [];
  const seen = new Set<string>();
  for (const s of note.signatures) {
    // signed-note §Signatures: a key is the (name, key ID) tuple; a match of one alone is unknown.
    const v = verifiers.find((x) => x.name === s.name && x.keyId === s.keyId);
    if (!v) {
      unknown.push(s);
      continue;
    }
    // "If the key name and ID match a known key, verifiers MUST verify the signature" ... "clients
    // SHOULD reject the whole note" when it fails.
    if (!(await v.verify(textBytes, s.sig))) {
      throw new C2spError(
        "note-bad-signature",
        `Cannot open signed note: the signature of ${s.name}+${hex8(s.keyId)} does not verify`,
      );
    }
    const k = `${s.name}+${s.keyId}`;
    if (seen.has(k)) continue; // a repeated signature by one key counts once
    seen.add(k);
    verified.push({ verifier: v, signature: s });
  }
  // "If no signature from a known key verifies successfully, clients MUST reject the note."
  if (verified.length === 0) {
    throw new C2spError("note-unverified", "Cannot open signed note: no known key signed it");
  }
  return { text: note.text, verified, unknown };
}

/**
 * A vkey, signed-note §Verifier keys: `<name>+<hex8 key ID>+<base64(type || public key)>`.
 *
 * @example
 * ```ts
 * encodeVkey("example.com/foo", SIG_ED25519, pub); // "example.com/foo+530d903a+Aeky…"
 * ```
 */
export function encodeVkey(name: string, type: number, publicKey: Uint8Array): string {
  if (!isKeyName(name)) throw new C2spError("vkey-bad-name", `Cannot encode vkey: bad name`);
  const material = new Uint8Array(1 + publicKey.length);
  material[0] = type;
  material.set(publicKey, 1);
  return `${name}+${hex8(keyIdOf(name, type, publicKey))}+${toBase64(material)}`;
}

/** A parsed vkey. */
export interface Vkey {
  name: string;
  keyId: number;
  type: number;
  publicKey: Uint8Array;
}

/**
 * Parses a vkey and checks that its key ID is the one signed-note recommends for it (as Go's
 * note.NewVerifier does). Codes: `vkey-malformed`, `vkey-bad-name`, `vkey-bad-key-id`,
 * `vkey-unknown-type`, `vkey-bad-key`.
 */
export function parseVkey(vkey: string): Vkey {
  const bad = (code: string, why: string): never => {
    throw new C2spError(code, `Cannot read vkey: ${why}`);
  };
  if (typeof vkey !== "string" || vkey.length > 4096) bad("vkey-malformed", "not a vkey string");
  // The base64 part may itself hold '+': split at the first two (as Go's note.NewVerifier).
  const p1 = vkey.indexOf("+");
  const p2 = p1 < 0 ? -1 : vkey.indexOf("+", p1 + 1);
  if (p2 < 0) bad("vkey-malformed", "not <name>+<hex8>+<base64>");
  const [name, id, b64] = [vkey.slice(0, p1), vkey.slice(p1 + 1, p2), vkey.slice(p2 + 1)];
  if (!isKeyName(name)) bad("vkey-bad-name", "bad key name");
  if (!/^[0-9a-f]{8}$/.test(id)) bad("vkey-bad-key-id", "key ID is not 8 lowercase hex digits");
  const material = fromBase64(b64, "vkey-malformed");
  if (material.length < 1) bad("vkey-malformed", "no key material");
  const type = material[0];
  const publicKey = material.slice(1);
  if (type !== SIG_ED25519 && type !== SIG_COSIGNATURE_V1) {
    bad("vkey-unknown-type", `signature type 0x${type.toString(16).padStart(2, "0")}`);
  }
  if (publicKey.length !== 32) bad("vkey-bad-key", "an Ed25519 key is 32 bytes");
  const keyId = parseInt(id, 16) >>> 0;
  if (keyId !== keyIdOf(name, type, publicKey)) {
    bad("vkey-bad-key-id", "key ID is not SHA-256(name || 0x0A || type || key)[:4]");
  }
  return { name, keyId, type, publicKey };
}

/** A note verifier for a vkey of type 0x01 (Ed25519) or 0x04 (cosignature/v1). */
export function verifierFromVkey(vkey: string | Vkey): NoteVerifier {
  const k = typeof vkey === "string" ? parseVkey(vkey) : vkey;
  return k.type === SIG_ED25519
    ? ed25519NoteVerifier(k.name, k.publicKey)
    : cosignatureVerifier(k.name, k.publicKey);
}

/** signed-note §Ed25519 signatures: a verifier of key `name` / `publicKey`. */
export function ed25519NoteVerifier(name: string, publicKey: Uint8Array): NoteVerifier {
  return {
    name,
    keyId: keyIdOf(name, SIG_ED25519, publicKey),
    type: SIG_ED25519,
    publicKey,
    verify: (text, sig) =>
      sig.length === 64 ? ed25519Verify(sig, text, publicKey) : Promise.resolve(false),
  };
}

/** signed-note §Ed25519 signatures: a signer of key `name` from a 32-byte Ed25519 secret seed. */
export function ed25519NoteSigner(name: string, secret32: Uint8Array): NoteSigner {
  if (!isKeyName(name)) throw new C2spError("vkey-bad-name", "Cannot make a signer: bad key name");
  const pub = ed25519PublicKey(secret32);
  return {
    name,
    keyId: keyIdOf(name, SIG_ED25519, pub),
    sign: (text) => ed25519Sign(text, secret32),
  };
}

/** The vkey of an Ed25519 note key (type 0x01). */
export function ed25519Vkey(name: string, secret32: Uint8Array): string {
  return encodeVkey(name, SIG_ED25519, ed25519PublicKey(secret32));
}

/** tlog-cosignature §Ed25519 signed message: "cosignature/v1\ntime <t>\n" || checkpoint text. */
export function cosignatureMessage(timestamp: bigint, text: Uint8Array): Uint8Array {
  const head = enc.encode(`cosignature/v1\ntime ${timestamp.toString()}\n`);
  const out = new Uint8Array(head.length + text.length);
  out.set(head);
  out.set(text, head.length);
  return out;
}

const MAX_TIMESTAMP = (1n << 63n) - 1n; // tlog-cosignature: "It MUST NOT exceed 2^63 - 1"

/** The timestamp of a cosignature/v1 signature (the 72 bytes after the key ID), or undefined. */
export function cosignatureTimestamp(sig: Uint8Array): bigint | undefined {
  if (sig.length !== 72) return undefined;
  const t = new DataView(sig.buffer, sig.byteOffset, 8).getBigUint64(0, false);
  return t > MAX_TIMESTAMP ? undefined : t;
}

/** A verifier of cosignature/v1 (type 0x04) signatures by cosigner `name`. */
export function cosignatureVerifier(name: string, publicKey: Uint8Array): NoteVerifier {
  return {
    name,
    keyId: keyIdOf(name, SIG_COSIGNATURE_V1, publicKey),
    type: SIG_COSIGNATURE_V1,
    publicKey,
    verify: (text, sig) => {
      const t = cosignatureTimestamp(sig); // timestamped_signature: u64 timestamp || 64-byte sig
      if (t === undefined) return Promise.resolve(false);
      return ed25519Verify(sig.subarray(8), cosignatureMessage(t, text), publicKey);
    },
  };
}

/**
 * A cosignature/v1 signer (type 0x04); `now` gives the POSIX time in seconds (tlog-cosignature
 * §Format: timestamp then Ed25519 signature over the cosigned message).
 */
export function cosignatureSigner(
  name: string,
  secret32: Uint8Array,
  now: () => number = () => Math.floor(Date.now() / 1000),
): NoteSigner {
  if (!isKeyName(name)) throw new C2spError("vkey-bad-name", "Cannot make a signer: bad key name");
  const pub = ed25519PublicKey(secret32);
  return {
    name,
    keyId: keyIdOf(name, SIG_COSIGNATURE_V1, pub),
    sign: (text) => {
      const t = BigInt(now());
      if (t < 0n || t > MAX_TIMESTAMP) {
        throw new C2spError("cosignature-bad-time", "Cannot cosign: timestamp out of range");
      }
      const out = new Uint8Array(72);
      new DataView(out.buffer).setBigUint64(0, t, false);
      out.set(ed25519Sign(cosignatureMessage(t, text), secret32), 8);
      return out;
    },
  };
}

/** The vkey of a cosignature/v1 key (type 0x04). */
export function cosignatureVkey(name: string, secret32: Uint8Array): string {
  return encodeVkey(name, SIG_COSIGNATURE_V1, ed25519PublicKey(secret32));
}
