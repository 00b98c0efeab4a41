// RFC 8742 CBOR sequences (`application/cbor-seq`): a body that is zero or more CBOR data items
// one after another. Used for batches of COSE_Sign1 envelopes (API.md "Meter readings"). Each
// item is delimited by the strict decoder itself (verify/cbor_decode.ts), so a malformed item is
// refused with the decoder's own code and nothing past the first bad byte is guessed at; the
// slices returned are the envelopes' bytes exactly as received, for parseCoseSign1 to check.
import { cborItemEnd } from "./cbor_decode.ts";
import { CborError } from "./errors.ts";

const TAG_COSE_SIGN1 = 0xd2; // RFC 9052 §4.2: COSE_Sign1 may carry tag 18 (ARCHITECTURE Decision 2)

/**
 * Splits an `application/cbor-seq` body of COSE_Sign1 envelopes into the envelopes' bytes.
 * An envelope may start with one tag 18 (0xd2); any other tag is refused by the strict decoder.
 * Throws CborError: `empty-sequence` for an empty body, `sequence-too-long` past `maxItems`
 * envelopes, or the strict decoder's code for a malformed item (`truncated`, `indefinite-length`, ...).
 *
 * @example
 * ```ts
 * const [a, b] = splitCoseSequence(concatBytes(envelopeA, envelopeB));
 * ```
 */
export function splitCoseSequence(body: Uint8Array, maxItems = 1000): Uint8Array[] {
  if (body.length === 0) {
    throw new CborError("empty-sequence", "Cannot split the CBOR sequence: it is empty", 0);
  }
  const out: Uint8Array[] = [];
  let pos = 0;
  while (pos < body.length) {
    if (out.length === maxItems) {
      throw new CborError(
        "sequence-too-long",
        `Cannot split the CBOR sequence: more than ${maxItems} items`,
        pos,
      );
    }
    const start = pos;
    const itemStart = body[pos] === TAG_COSE_SIGN1 ? pos + 1 : pos;
    if (itemStart === body.length) {
      throw new CborError("truncated", "Cannot split the CBOR sequence: a lone tag 18", start);
    }
    pos = cborItemEnd(body, itemStart);
    out.push(body.subarray(start, pos));
  }
  return out;
}
