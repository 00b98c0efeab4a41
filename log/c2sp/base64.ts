// RFC 4648 §4 standard base64 with padding, strict both ways: the C2SP texts (signed-note,
// tlog-checkpoint, tlog-proof) use it, and a decoder that accepted whitespace, missing padding or
// non-zero pad bits would let two texts mean one value. Web APIs only (atob/btoa).
import { C2spError } from "./errors.ts";

const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard padded base64 of `b` (RFC 4648 §4). */
export function toBase64(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) {
    s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

/**
 * Decodes canonical standard padded base64 (RFC 4648 §4, §3.5: pad bits zero); anything else is a
 * `C2spError` with `code`.
 */
export function fromBase64(s: string, code = "base64-malformed"): Uint8Array {
  if (typeof s !== "string" || !B64.test(s)) {
    throw new C2spError(code, "Cannot decode base64: not canonical RFC 4648 §4 base64");
  }
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  // RFC 4648 §3.5: non-zero pad bits make a second spelling of the same bytes.
  if (toBase64(out) !== s) {
    throw new C2spError(code, "Cannot decode base64: non-zero pad bits");
  }
  return out;
}
