// The envelope bytes of a command-line or page input: the one reader `deno task verify`, the
// client's commands (client/envelope_file.ts) and the page (web/app/) share.
import { UsageError } from "../cli/mod.ts";
import { fromHex } from "./bytes.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The envelope bytes of a CLI input: JSON {"envelope": hex}, hex text (whitespace allowed around
 * it), or else the raw bytes. A COSE_Sign1 starts with 0x84 or 0xd2, neither of which is printable
 * text, so the three forms cannot be confused.
 */
export function envelopeFromInput(input: Uint8Array): Uint8Array {
  if (input.length === 0) throw new UsageError("Cannot read envelope: the input is empty");
  let text: string | undefined;
  try {
    text = utf8.decode(input).trim();
  } catch {
    return input; // not UTF-8: raw bytes
  }
  if (text.startsWith("{")) {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new UsageError(
        `Cannot read envelope: input looks like JSON but does not parse (${(e as Error).message})`,
      );
    }
    const hex = (doc as { envelope?: unknown })?.envelope;
    if (typeof hex !== "string") {
      throw new UsageError('Cannot read envelope: JSON input must be {"envelope": "<hex>"}');
    }
    return fromHex(hex);
  }
  if (/^[0-9a-fA-F\s]+$/.test(text)) return fromHex(text.replace(/\s+/g, "").toLowerCase());
  if (input[0] === 0x84 || input[0] === 0xd2) return input;
  throw new UsageError(
    'Cannot read envelope: the input is neither a COSE_Sign1, hex, nor {"envelope": hex}',
  );
}
