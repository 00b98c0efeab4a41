// Reading a bulk append's body (issue 29; API.md "Log"): `application/cbor-seq` (RFC 8742), the
// envelopes one after another. Refused whole, before any envelope is verified: a body over
// `bulk_body_limit` (413 `body-too-large`, declared or read), more than `bulk_max_envelopes`
// items (413 `too-many-envelopes`), an empty body (400 `empty-body`). Everything else is judged
// item by item: an item over 65,535 bytes, or one the strict CBOR decoder cannot delimit, is that
// item's refusal, and the items before it are still judged. Nothing after an item that cannot be
// delimited is an item (RFC 8742 §2: a sequence has no resynchronisation point), so the rest of
// the body is that one refusal. Pure web-standard streams: both deployments.
import { MAX_ENTRY_BYTES } from "../../log/mod.ts";
import { splitCoseSequencePrefix } from "../../verify/mod.ts";
import type { ServiceConfig } from "../services/config.ts";
import { ApiError } from "./errors.ts";
import { readBodyLimited } from "./limits.ts";

/** One item of a bulk body: its bytes, or why it is refused before it is verified. */
export type BulkItem = { envelope: Uint8Array } | { refused: ApiError };

/** Reads and delimits a bulk append's body (the caller has checked its media type). */
export async function readBulk(
  req: Request,
  config: Pick<ServiceConfig, "bulkBodyLimit" | "bulkMaxEnvelopes">,
): Promise<BulkItem[]> {
  const body = await readBodyLimited(req, config.bulkBodyLimit);
  if (body.length === 0) {
    throw new ApiError("empty-body", "Cannot read the envelopes: the body is empty");
  }
  const max = config.bulkMaxEnvelopes;
  const { items, more, broken, brokenAt } = splitCoseSequencePrefix(body, max);
  if (more) {
    throw new ApiError(
      "too-many-envelopes",
      `Cannot append the envelopes: the body holds more than ${max}, the most in one request`,
    );
  }
  const out: BulkItem[] = items.map((envelope) =>
    envelope.length > MAX_ENTRY_BYTES
      ? {
        refused: new ApiError(
          "body-too-large",
          `Cannot read the envelope: it is ${envelope.length} bytes, the most is ${MAX_ENTRY_BYTES}`,
        ),
      }
      : { envelope }
  );
  if (broken) {
    out.push({
      refused: new ApiError(
        broken.code,
        `Cannot read the envelope at byte ${brokenAt}: ${broken.message}; nothing after it ` +
          `can be delimited`,
        { status: 400 },
      ),
    });
  }
  return out;
}
