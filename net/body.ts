// Reading a stream with a byte budget: the read stops (and the stream is cancelled) the moment the
// bytes read pass the budget, so nothing past it is ever buffered. Web streams only.

/** Thrown by {@link readLimited} past the budget; `seen` is the byte count read so far. */
export class BudgetExceeded extends Error {
  constructor(readonly limit: number, readonly seen: number) {
    super(`the body exceeds ${limit} bytes (${seen} read so far)`);
    this.name = "BudgetExceeded";
  }
}

/**
 * Reads `stream` to its end, at most `limit` bytes. Past the limit it cancels the stream and
 * throws {@link BudgetExceeded}. A null stream is an empty body.
 *
 * @example
 * ```ts
 * const bytes = await readLimited(res.body, 8192); // a tile, or BudgetExceeded
 * ```
 */
export async function readLimited(
  stream: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel().catch(() => {});
        throw new BudgetExceeded(limit, total);
      }
      chunks.push(value);
    }
  } catch (e) {
    reader.releaseLock();
    throw e;
  }
  // A stream read to its end stays locked: releasing the lock of a closed stream only builds a
  // TypeError for its `closed` promise (WHATWG Streams ReadableStreamReaderGenericRelease), which
  // cost the append path ~5 µs per request (docs/PERFORMANCE.md); nothing reads a consumed body.
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.byteLength;
  }
  return out;
}

/** The declared Content-Length when it is a plain decimal, else undefined. */
export function declaredLength(headers: Headers): number | undefined {
  const v = headers.get("content-length");
  return v !== null && /^\d{1,15}$/.test(v.trim()) ? Number(v.trim()) : undefined;
}
