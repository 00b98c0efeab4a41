// Reading a stream with a byte budget: the read stops (and the stream is cancelled) the moment the
// bytes read pass the budget, so nothing past it is ever buffered; optionally also at a signal (a
// deadline) and below a least rate. The one body reader of the project: outbound answers (net/)
// and every request body of the service (api/http/limits.ts, issue 27). Web streams only.

/** Thrown by {@link readLimited} past the budget; `seen` is the byte count read so far. */
export class BudgetExceeded extends Error {
  constructor(readonly limit: number, readonly seen: number) {
    super(`the body exceeds ${limit} bytes (${seen} read so far)`);
    this.name = "BudgetExceeded";
  }
}

/** Thrown by {@link readLimited} when the body arrives slower than `minRate` allows. */
export class RateTooLow extends Error {
  constructor(readonly minRate: number, readonly seen: number, readonly ms: number) {
    super(`the body arrives too slowly: ${seen} bytes in ${Math.round(ms)} ms`);
    this.name = "RateTooLow";
  }
}

/** How {@link readLimited} reads besides the budget: when it stops, how slow it may go. */
export interface ReadOptions {
  /** Aborted: the read stops at once (the stream is cancelled) and throws the signal's reason. */
  signal?: AbortSignal;
  /** Least average rate, bytes per second, counted after `graceMs` (0 or absent: none). */
  minRate?: number;
  /** Time before `minRate` applies, ms (default 2,000). */
  graceMs?: number;
  /** The expected size (a declared Content-Length within the budget): one allocation. */
  expected?: number;
}

/**
 * Reads `stream` to its end, at most `limit` bytes, into a buffer of its own: a chunk is kept
 * only when it is its buffer's whole extent, else copied, so that no small view keeps a larger
 * buffer alive (a body sent one byte per TCP segment would otherwise pin a read buffer per byte).
 * Past the limit it cancels the stream and throws {@link BudgetExceeded}; slower than
 * `opts.minRate` it cancels and throws {@link RateTooLow}; when `opts.signal` aborts it cancels
 * and throws the signal's reason. A null stream is an empty body.
 *
 * @example
 * ```ts
 * const bytes = await readLimited(res.body, 8192); // a tile, or BudgetExceeded
 * ```
 */
export async function readLimited(
  stream: ReadableStream<Uint8Array> | null,
  limit: number,
  opts: ReadOptions = {},
): Promise<Uint8Array> {
  if (!stream) return new Uint8Array(0);
  const { signal, minRate = 0, graceMs = 2000 } = opts;
  if (signal?.aborted) {
    await stream.cancel(signal.reason).catch(() => {});
    throw signal.reason;
  }
  const reader = stream.getReader();
  const onAbort = () => reader.cancel(signal!.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  const t0 = minRate > 0 ? performance.now() : 0;
  let whole: Uint8Array | undefined; // the first chunk, when it owns its whole buffer
  let out: Uint8Array | undefined;
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) break;
      const n = value.byteLength;
      if (total + n > limit) {
        await reader.cancel().catch(() => {});
        throw new BudgetExceeded(limit, total + n);
      }
      if (total === 0 && value.byteOffset === 0 && n === value.buffer.byteLength) {
        whole = value;
        total = n;
        continue;
      }
      if (!out || total + n > out.byteLength) {
        const size = Math.min(limit, Math.max(opts.expected ?? 0, 2 * (total + n), 1024));
        const grown = new Uint8Array(size);
        if (out) grown.set(out.subarray(0, total));
        else if (whole) grown.set(whole);
        out = grown;
        whole = undefined;
      }
      out.set(value, total);
      total += n;
      if (minRate > 0) {
        const ms = performance.now() - t0;
        if (ms > graceMs && total < (minRate * (ms - graceMs)) / 1000) {
          await reader.cancel().catch(() => {});
          throw new RateTooLow(minRate, total, ms);
        }
      }
    }
  } catch (e) {
    reader.releaseLock();
    throw e;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  // A stream read to its end stays locked: releasing the lock of a closed stream only builds a
  // TypeError for its `closed` promise (WHATWG Streams ReadableStreamReaderGenericRelease), which
  // cost the append path ~5 µs per request (docs/PERFORMANCE.md); nothing reads a consumed body.
  if (whole) return whole;
  if (!out) return new Uint8Array(0);
  return out.byteLength === total ? out : out.slice(0, total);
}

/** The declared Content-Length when it is a plain decimal, else undefined. */
export function declaredLength(headers: Headers): number | undefined {
  const v = headers.get("content-length");
  return v !== null && /^\d{1,15}$/.test(v.trim()) ? Number(v.trim()) : undefined;
}
