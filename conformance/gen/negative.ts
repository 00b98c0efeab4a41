// The shape of a negative vector (conformance/gen/negatives.ts): one refused reason code, the
// envelope that earns it; the CBOR text helpers the negatives share.
import { concatBytes } from "../../verify/mod.ts";
import { head } from "./build.ts";
import { refused, type Vector, vector } from "./vector.ts";

/** A core as the generators write it (a JSON object). */
export type Core = Record<string, unknown>;

/** A negative vector: `neg-<name>`, refused with `codes` (default: the code it covers). */
export function neg(
  name: string,
  covers: string,
  description: string,
  schema: string | null,
  signer: string,
  envelope: Uint8Array,
  codes: string[] = [covers],
  payload?: Uint8Array,
): Vector {
  return vector(
    { name: `neg-${name}`, description, covers, schema, signer, expected: refused(...codes) },
    envelope,
    payload,
  );
}

export const utf8 = new TextEncoder();
/** A CBOR text string (major type 3) of `s`, written out byte by byte. */
export const text = (s: string) => concatBytes(head(3, utf8.encode(s).length), utf8.encode(s));
