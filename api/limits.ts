// Request limits (API.md, ARCHITECTURE "Errors"): bodies are read with a hard cap (413 past it,
// whether or not Content-Length was declared or honest), and every request runs under a time
// limit. Pure web-standard streams.
import { ApiError } from "./errors.ts";

/**
 * Reads a request body of at most `limit` bytes. Refuses with 413 `body-too-large` as soon as
 * the declared length or the bytes read exceed it; nothing past the limit is buffered.
 */
export async function readBodyLimited(req: Request, limit: number): Promise<Uint8Array> {
  const declared = req.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > limit) {
    throw tooLarge(limit);
  }
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.byteLength;
  }
  return out;
}

function tooLarge(limit: number): ApiError {
  return new ApiError("body-too-large", `Cannot read the body: it exceeds ${limit} bytes`);
}

/**
 * Runs `work` under a time limit. On expiry answers 503 `timeout` with Retry-After; the work
 * itself is not cancelled (an append that completes later is still acknowledged to a
 * resubmission, exactly once).
 */
export async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ApiError("timeout", `Cannot answer in time: the request ran past ${ms} ms`, {
            headers: { "retry-after": "1" },
          }),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([work, expiry]);
  } finally {
    clearTimeout(timer);
  }
}
