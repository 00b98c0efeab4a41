// The one reader of an envelope file of every client command that takes one (`submit`,
// `verify-proof`, with or without `--policy`): raw COSE bytes, hex, or {"envelope": hex}, read by
// verify/envelope_input.ts envelopeFromInput — the parser `deno task verify` uses, so every command accepts
// what `verify` accepts (issue 28: `verify-proof` read hex only from a `.hex` file and took a
// JSON file's bytes for the envelope, then said "entry 0 is not proven").
import { UsageError } from "../cli/mod.ts";
import { envelopeFromInput } from "../verify/mod.ts";

/** Reads an envelope file; a missing file is Deno.errors.NotFound, unusable content a UsageError. */
export async function readEnvelopeFile(file: string): Promise<Uint8Array> {
  try {
    return envelopeFromInput(await Deno.readFile(file));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw e;
    throw new UsageError(`${file}: ${(e as Error).message}`);
  }
}
