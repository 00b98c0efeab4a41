// Byte helpers shared by verify/ and its importers: lowercase hex, BLAKE3 (verify/blake3.ts: a
// single-chunk fast path, @noble/hashes beyond), the transparency-log leaf hash of JouleClaw
// SPEC §22.1, and comparisons
// (bytewise order for RFC 8949 §4.2.1 key sorting; constant time for JCR-1 §5 HMAC tags).
import { blake3Hash, blake3Prefixed } from "./blake3.ts";
import { VerifyInputError } from "./errors.ts";

const HEX = "0123456789abcdef";
const HEX_PAIRS: string[] = Array.from({ length: 256 }, (_, i) => HEX[i >> 4] + HEX[i & 15]);

/**
 * Lowercase hex of `b`.
 * @example toHex(new Uint8Array([0, 255])) // "00ff"
 */
export function toHex(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i++) s += HEX_PAIRS[b[i]];
  return s;
}

function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  return -1; // uppercase is refused: hashes and tags are lowercase hex (API.md, JCR-1 §2.6)
}

/** 64 lowercase hex digits: a BLAKE3-256 or SHA-256 hash as JCR-1 §2 and JCP §3 write it. */
export const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Bytes of a lowercase hex string. Throws VerifyInputError("bad-hex") on odd length, uppercase or
 * any other character.
 * @example fromHex("00ff") // Uint8Array [0, 255]
 */
export function fromHex(s: string): Uint8Array {
  if (typeof s !== "string") {
    throw new VerifyInputError("bad-hex", "Cannot decode hex: not a string");
  }
  if (s.length % 2 !== 0) {
    throw new VerifyInputError("bad-hex", `Cannot decode hex: odd length ${s.length}`);
  }
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) {
    const hi = nibble(s.charCodeAt(2 * i));
    const lo = nibble(s.charCodeAt(2 * i + 1));
    if (hi < 0 || lo < 0) {
      throw new VerifyInputError(
        "bad-hex",
        `Cannot decode hex: character at ${
          hi < 0 ? 2 * i : 2 * i + 1
        } is not a lowercase hex digit`,
      );
    }
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/**
 * BLAKE3 of `b`, 32 bytes.
 * @example toHex(blake3(new Uint8Array())) // "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
 */
export function blake3(b: Uint8Array): Uint8Array {
  return blake3Hash(b);
}

/**
 * Transparency-log leaf hash, JouleClaw SPEC §22.1: BLAKE3(0x00 || entry).
 * @example entryLeafHash(envelopeBytes) // 32 bytes
 */
export function entryLeafHash(entry: Uint8Array): Uint8Array {
  return blake3Prefixed(0x00, entry); // SPEC §22.1: leaf prefix 0x00
}

/** Concatenation of byte arrays. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/**
 * Bytewise lexicographic order (shorter prefix first): negative, zero or positive.
 * This is the RFC 8949 §4.2.1 order when applied to encoded map keys.
 */
/**
 * Whether `text`'s ASCII bytes occur anywhere in `b`. A cheap negative test before a decode: a
 * det-CBOR map key is its text bytes verbatim (definite length only), inside the envelope's
 * payload verbatim, so bytes without them cannot hold that key (issue 29: the bulk append's
 * admission skips two decodes per envelope).
 *
 * @example includesAscii(new TextEncoder().encode("a jc_config b"), "jc_config") // true
 */
export function includesAscii(b: Uint8Array, text: string): boolean {
  const n = text.length, first = text.charCodeAt(0), last = b.length - n;
  outer: for (let i = b.indexOf(first); i !== -1 && i <= last; i = b.indexOf(first, i + 1)) {
    for (let k = 1; k < n; k++) if (b[i + k] !== text.charCodeAt(k)) continue outer;
    return true;
  }
  return false;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** True when `a` and `b` hold the same bytes (not constant time; for public data). */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Constant-time equality for secrets-derived values (JCR-1 §5: "Comparison MUST be constant-time").
 * The time depends only on the lengths, never on where the bytes differ.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
