// The one reader of a submitted COSE_Sign1 envelope (issue 22, "one envelope-input parser"):
// `deno task verify` (verify/cli.ts), the client's commands that take an envelope (`submit`,
// `verify-proof`: client/envelope_file.ts), the page (web/app/) and the API's verify and append
// routes (api/http/envelope_input.ts) all decide here what the input's envelope is. The forms:
// - raw bytes: the COSE_Sign1 itself (it starts with 0x84, or 0xd2 when tagged);
// - hex text, whitespace allowed around and between the digits (upper case read as lower);
// - the JSON wrapper {"envelope": "<hex>"}: its hex is lowercase, of whole bytes (verify/bytes.ts
//   fromHex: hashes and tags are lowercase hex, API.md), and not empty.
// A file, stdin or pasted text is told apart by its content: a COSE_Sign1 starts with 0x84 or 0xd2,
// neither of which is printable text, so the three forms cannot be confused. An HTTP body is
// declared by its Content-Type instead (application/cose: raw; application/json: the wrapper), so
// the API reads exactly the form its media type names. Each caller words a refusal for its own
// surface (a usage error here and in the client; a problem code in the API) from the one `fault`.
import { UsageError } from "../cli/mod.ts";
import { fromHex } from "./bytes.ts";
import { VerifyInputError } from "./errors.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Why an input holds no envelope. */
export type EnvelopeFault =
  /** nothing: 0 bytes, or the wrapper's "envelope" is "" */
  | "empty"
  /** JSON (declared, or text starting with "{") that does not parse */
  | "not-json"
  /** JSON without a string "envelope" */
  | "no-envelope"
  /** the hex (bare, or the wrapper's) is not hex of whole bytes */
  | "bad-hex"
  /** none of the forms (undeclared input only) */
  | "unknown-form";

/** The form an input is declared to be in (HTTP Content-Type), or "sniff" to tell by content. */
export type EnvelopeForm = "cose" | "json" | "sniff";

/** The outcome of reading an input: its envelope and form, or why it holds none. */
export type EnvelopeInput =
  | { ok: true; envelope: Uint8Array; form: "cose" | "hex" | "json" }
  | { ok: false; fault: EnvelopeFault; cause?: unknown };

const inputFault = (fault: EnvelopeFault, cause?: unknown): EnvelopeInput => ({
  ok: false,
  fault,
  cause,
});

/** The wrapper {"envelope": "<hex>"} in `text`. */
function fromWrapper(text: string): EnvelopeInput {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return inputFault("not-json", e);
  }
  const hex = (doc as { envelope?: unknown } | null)?.envelope;
  if (typeof hex !== "string") return inputFault("no-envelope");
  let envelope: Uint8Array;
  try {
    envelope = fromHex(hex);
  } catch (e) {
    return inputFault("bad-hex", e);
  }
  // An empty envelope is no envelope (as an empty body is): refused before any verifier sees it.
  return envelope.length === 0 ? inputFault("empty") : { ok: true, envelope, form: "json" };
}

/** Reads the envelope of `input` in `form` (default: told by its content). Pure; never throws. */
export function readEnvelopeInput(input: Uint8Array, form: EnvelopeForm = "sniff"): EnvelopeInput {
  if (input.length === 0) return inputFault("empty");
  if (form === "cose") return { ok: true, envelope: input, form: "cose" };
  let text: string;
  try {
    text = utf8.decode(input);
  } catch (e) {
    // not UTF-8: raw bytes, unless it was declared JSON
    return form === "json"
      ? inputFault("not-json", e)
      : { ok: true, envelope: input, form: "cose" };
  }
  if (form === "json") return fromWrapper(text);
  text = text.trim();
  if (text.startsWith("{")) return fromWrapper(text);
  if (/^[0-9a-fA-F\s]+$/.test(text)) {
    try {
      return { ok: true, envelope: fromHex(text.replace(/\s+/g, "").toLowerCase()), form: "hex" };
    } catch (e) {
      return inputFault("bad-hex", e);
    }
  }
  if (input[0] === 0x84 || input[0] === 0xd2) return { ok: true, envelope: input, form: "cose" };
  return inputFault("unknown-form");
}

/**
 * The envelope bytes of a command-line or page input (file, stdin, pasted text), told by content:
 * JSON {"envelope": hex}, hex text (whitespace allowed around it), or else the raw bytes. Throws
 * UsageError when it holds none; hex that is not hex of whole bytes is verify's VerifyInputError
 * ("bad-hex"), with its code.
 */
export function envelopeFromInput(input: Uint8Array): Uint8Array {
  const r = readEnvelopeInput(input);
  if (r.ok) return r.envelope;
  switch (r.fault) {
    case "empty":
      throw new UsageError("Cannot read envelope: the input is empty");
    case "not-json":
      throw new UsageError(
        `Cannot read envelope: input looks like JSON but does not parse (${
          (r.cause as Error).message
        })`,
      );
    case "no-envelope":
      throw new UsageError('Cannot read envelope: JSON input must be {"envelope": "<hex>"}');
    case "bad-hex":
      throw r.cause instanceof VerifyInputError
        ? r.cause
        : new VerifyInputError("bad-hex", "Cannot decode hex");
    case "unknown-form":
      throw new UsageError(
        'Cannot read envelope: the input is neither a COSE_Sign1, hex, nor {"envelope": hex}',
      );
  }
}
