// C2SP tlog-tiles §Log entries: an entry bundle is a sequence of big-endian uint16 length-prefixed
// entries, 256 in a full bundle (1..255 in a partial one); the same bytes serve both views.
import { C2spError } from "./errors.ts";
import { TILE_WIDTH } from "./tile_path.ts";

/** Largest entry a bundle can hold (uint16 length). */
export const MAX_BUNDLE_ENTRY = 0xffff;
/** Largest bundle: 256 entries of 65,535 bytes, each with its 2-byte length. */
export const MAX_BUNDLE_BYTES = TILE_WIDTH * (2 + MAX_BUNDLE_ENTRY);

/**
 * Encodes up to 256 entries as a bundle.
 *
 * @example
 * ```ts
 * encodeBundle([new TextEncoder().encode("a")]); // Uint8Array [0, 1, 97]
 * ```
 */
export function encodeBundle(entries: Uint8Array[]): Uint8Array {
  if (entries.length < 1 || entries.length > TILE_WIDTH) {
    throw new C2spError("bundle-bad-width", `Cannot encode bundle: ${entries.length} entries`);
  }
  let n = 0;
  for (const e of entries) {
    if (!(e instanceof Uint8Array) || e.length > MAX_BUNDLE_ENTRY) {
      throw new C2spError(
        "bundle-entry-too-large",
        "Cannot encode bundle: entry over 65,535 bytes",
      );
    }
    n += 2 + e.length;
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const e of entries) {
    out[at] = e.length >> 8; // big-endian uint16 length
    out[at + 1] = e.length & 0xff;
    out.set(e, at + 2);
    at += 2 + e.length;
  }
  return out;
}

/**
 * Parses a bundle; with `width`, it must hold exactly that many entries. Codes: `bundle-too-large`,
 * `bundle-truncated`, `bundle-bad-width`. Entries are views into `bytes`.
 */
export function parseBundle(bytes: Uint8Array, width?: number): Uint8Array[] {
  if (bytes.length > MAX_BUNDLE_BYTES) {
    throw new C2spError("bundle-too-large", "Cannot read bundle: over 256 maximal entries");
  }
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (out.length === TILE_WIDTH) {
      throw new C2spError("bundle-bad-width", "Cannot read bundle: more than 256 entries");
    }
    if (at + 2 > bytes.length) {
      throw new C2spError("bundle-truncated", "Cannot read bundle: a length prefix is cut off");
    }
    const len = (bytes[at] << 8) | bytes[at + 1];
    if (at + 2 + len > bytes.length) {
      throw new C2spError("bundle-truncated", "Cannot read bundle: an entry is cut off");
    }
    out.push(bytes.subarray(at + 2, at + 2 + len));
    at += 2 + len;
  }
  if (out.length === 0 || (width !== undefined && out.length !== width)) {
    throw new C2spError(
      "bundle-bad-width",
      `Cannot read bundle: ${out.length} entries, expected ${width ?? "1..256"}`,
    );
  }
  return out;
}
