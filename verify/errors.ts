// Typed errors of verify/ (STYLE: "three kinds of failure, kept apart"). Malformed input raises a
// VerifyInputError (or its subclass CborError) carrying a stable reason code from verify/codes.ts;
// a cryptographic mismatch is a `false`, never an exception; anything else is an operational fault.
// Messages follow one grammar: "Cannot <do what>: <why>". Both are CodedErrors of kind `input`
// (net/error.ts): an HTTP answer is 400 with the code.
import { CodedError } from "../net/mod.ts";

/**
 * Malformed input, with a stable reason code (see `REASON_CODES` in verify/codes.ts).
 *
 * @example
 * ```ts
 * try { fromHex("zz"); } catch (e) { if (e instanceof VerifyInputError) console.log(e.code); } // "bad-hex"
 * ```
 */
export class VerifyInputError extends CodedError {
  /** @param code stable reason code, e.g. "bad-hex"; @param message "Cannot <do what>: <why>" */
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(code, message, "input", options);
    this.name = "VerifyInputError";
  }
}

/**
 * Input that is not strict deterministic CBOR (RFC 8949 §4.2.1 subset), or a value that the
 * canonical encoder cannot represent. `offset` is the byte offset of the offending head (-1 when
 * raised by the encoder).
 */
export class CborError extends VerifyInputError {
  /** Byte offset in the input where the problem was found; -1 for encoder errors. */
  readonly offset: number;
  constructor(code: string, message: string, offset = -1) {
    super(code, message);
    this.name = "CborError";
    this.offset = offset;
  }
}
