// The page's outbound reads: every fetch has a deadline (AbortSignal.timeout) and a byte budget
// enforced while the body streams (issue 18), so a hostile or broken server cannot hang or bloat
// the page. Budgets per kind of response.
/// <reference lib="dom" />

/** Byte budgets per kind of response. */
export const PAGE_LIMITS = {
  checkpoint: 16 * 1024,
  tile: 8192,
  bundle: 256 * 65_537,
  entry: 65_535 * 2 + 64, // raw bytes, or hex in JSON
  json: 64 * 1024,
  page: 1024 * 1024,
} as const;

/** Default deadline of one request. */
export const PAGE_TIMEOUT_MS = 15_000;

/** GETs a URL and returns its body, refusing bodies over `maxBytes` and answers past the deadline. */
export async function fetchBytes(
  url: string,
  maxBytes: number,
  opts: { accept?: string; timeoutMs?: number } = {},
): Promise<Uint8Array> {
  let res: Response;
  try {
    res = await fetch(url, {
      signal: AbortSignal.timeout(opts.timeoutMs ?? PAGE_TIMEOUT_MS),
      headers: opts.accept ? { accept: opts.accept } : {},
      redirect: "follow",
    });
  } catch (e) {
    throw new Error(`Cannot fetch ${url}: ${(e as Error).message}`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`Cannot fetch ${url}: HTTP ${res.status}`);
  }
  const reader = res.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > maxBytes) {
      await reader.cancel();
      throw new Error(`Cannot fetch ${url}: the answer is over ${maxBytes} bytes`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** GETs JSON with a byte budget. */
export async function fetchJson<T>(url: string, maxBytes: number = PAGE_LIMITS.json): Promise<T> {
  const b = await fetchBytes(url, maxBytes, { accept: "application/json" });
  return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(b)) as T;
}
