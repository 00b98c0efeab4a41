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
  const { items, more, broken } = splitCoseSequencePrefix(body, maxItems);
  if (more) {
    throw new CborError(
      "sequence-too-long",
      `Cannot split the CBOR sequence: more than ${maxItems} items`,
      more,
    );
  }
  if (broken) throw broken;
  return items;
}

/** What {@link splitCoseSequencePrefix} delimited. */
export interface SequencePrefix {
  /** The items delimited, in order, as slices of the body. */
  items: Uint8Array[];
  /** The offset of the first byte past `maxItems` items, when the body goes on; else 0. */
  more: number;
  /**
   * The strict decoder's refusal when an item cannot be delimited: nothing from `brokenAt` (the
   * item's first byte) on is an item (no later boundary can be trusted).
   */
  broken?: CborError;
  brokenAt?: number;
}

/**
 * Delimits as many items of an `application/cbor-seq` body as it can (bulk appends, API.md
 * "Log": a malformed item is that item's refusal, the ones before it are still judged). Stops
 * at `maxItems` items (`more` says where the body goes on) or at the first item the strict
 * decoder cannot delimit (`broken`, from `brokenAt`).
 */
export function splitCoseSequencePrefix(body: Uint8Array, maxItems: number): SequencePrefix {
  const items: Uint8Array[] = [];
  let pos = 0;
  while (pos < body.length) {
    if (items.length === maxItems) return { items, more: pos };
    const start = pos;
    const itemStart = body[pos] === TAG_COSE_SIGN1 ? pos + 1 : pos;
    try {
      if (itemStart === body.length) {
        throw new CborError("truncated", "Cannot split the CBOR sequence: a lone tag 18", start);
      }
      pos = cborItemEnd(body, itemStart);
    } catch (e) {
      if (!(e instanceof CborError)) throw e;
      return { items, more: 0, broken: e, brokenAt: start };
    }
    items.push(body.subarray(start, pos));
  }
  return { items, more: 0 };
}
