// Reading a submitted COSE_Sign1 envelope from a request (API.md "Verification"): raw bytes
// with `Content-Type: application/cose`, or JSON `{"envelope": "<hex>"}`. 400 when the request
// is unusable (no body, bad JSON, bad hex), 415 for another media type, 413 over the limit; the
// envelope's own validity is the verifier's business, not this module's. Pure.
import { MAX_ENTRY_BYTES } from "../../log/mod.ts";
import { fromHex } from "../../verify/mod.ts";
import { ApiError } from "./errors.ts";
import { readBodyLimited } from "./limits.ts";

/** Largest entry the log stores (ARCHITECTURE Decision 5: at most 65,535 bytes). */
export { MAX_ENTRY_BYTES };

/** The media type of a Content-Type header, lowercased, without parameters. */
export function mediaTypeOf(contentType: string | null): string {
  return (contentType ?? "").split(";")[0].trim().toLowerCase();
}

/** Reads the envelope bytes of a verify/append request. */
export async function readEnvelope(req: Request, bodyLimit: number): Promise<Uint8Array> {
  const mt = mediaTypeOf(req.headers.get("content-type"));
  if (mt !== "application/cose" && mt !== "application/json") {
    throw new ApiError(
      "unsupported-media-type",
      `Cannot read the envelope: Content-Type "${mt || "(none)"}" is neither ` +
        `application/cose nor application/json`,
    );
  }
  const body = await readBodyLimited(req, bodyLimit);
  if (body.length === 0) {
    throw new ApiError("empty-body", "Cannot read the envelope: the body is empty");
  }
  let envelope: Uint8Array;
  if (mt === "application/cose") envelope = body;
  else {
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
    } catch (e) {
      throw new ApiError("bad-request", "Cannot read the envelope: the body is not JSON", {
        cause: e,
      });
    }
    const hex = (json as { envelope?: unknown } | null)?.envelope;
    if (typeof hex !== "string") {
      throw new ApiError(
        "bad-request",
        `Cannot read the envelope: the JSON body has no string field "envelope"`,
      );
    }
    try {
      envelope = fromHex(hex);
    } catch (e) {
      throw new ApiError(
        "bad-envelope-encoding",
        'Cannot read the envelope: "envelope" is not lowercase hex of whole bytes',
        { cause: e },
      );
    }
    if (envelope.length === 0) {
      throw new ApiError("empty-body", 'Cannot read the envelope: "envelope" is empty');
    }
  }
  if (envelope.length > MAX_ENTRY_BYTES) {
    throw new ApiError(
      "body-too-large",
      `Cannot read the envelope: it is ${envelope.length} bytes, the most is ${MAX_ENTRY_BYTES}`,
    );
  }
  return envelope;
}
