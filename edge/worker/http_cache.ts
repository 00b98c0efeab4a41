// Edge caching of whole HTTP answers (docs/EDGE.md). The app marks what can never change with
// `Cache-Control: public, max-age=31536000, immutable` (an existing entry, a leaf's index, the
// head at a fixed size, proofs for a fixed size); the Worker keeps those answers in the
// colocation's cache (the Workers Cache API) and answers repeats without running the app or
// touching the sequencer. The latest head is short-cached instead (`max-age` seconds, default 1):
// a stale head is still a valid signed head, only a moment older.
//
// The Cache API keys on the URL alone (it does not honour `Vary: Accept`), so the negotiated
// media type is folded into the key: an entry as JSON and as application/cose never collide.

/** The slice of the Workers Cache API used here (`caches.default`). */
export interface EdgeCache {
  match(key: Request): Promise<Response | undefined>;
  put(key: Request, res: Response): Promise<void>;
}

/** Options of `serveCached`. */
export interface CacheOptions {
  /** The cache, or undefined where the platform has none (answers then go straight through). */
  cache?: EdgeCache;
  /** Keeps the put alive after the answer is sent (`ctx.waitUntil`). */
  waitUntil: (p: Promise<unknown>) => void;
  /** `max-age` of the latest-head answer, seconds; 0 leaves the app's own header. */
  headMaxAgeS: number;
}

/** Response header telling whether the edge cache answered (`HIT`) or the app did (`MISS`). */
export const EDGE_CACHE_HEADER = "x-edge-cache";

/** Routes whose answer is the latest head, short-cached (API.md). */
const LATEST_HEAD_PATHS = new Set(["/v1/log/tree-head"]);

/** The cache key of a request: its URL plus its normalised Accept header. */
export function cacheKey(req: Request): Request {
  const url = new URL(req.url);
  const accept = (req.headers.get("accept") ?? "").toLowerCase().replace(/\s+/g, "");
  url.searchParams.append("__jc_accept", accept);
  return new Request(url.toString(), { method: "GET" });
}

/** True when an answer may be kept for ever: a 200 the app marked immutable. */
export function isImmutable(res: Response): boolean {
  return res.status === 200 &&
    /(^|,)\s*immutable\s*(,|$)/i.test(res.headers.get("cache-control") ?? "");
}

/**
 * Answers `req` from the edge cache when it holds it, else from `handle()`, keeping immutable
 * answers for the next request. Only GET requests are looked up; everything else goes straight
 * to the app.
 */
export async function serveCached(
  req: Request,
  handle: () => Promise<Response>,
  opts: CacheOptions,
): Promise<Response> {
  const path = new URL(req.url).pathname;
  if (req.method !== "GET" || !opts.cache) return withHeadMaxAge(path, await handle(), opts);
  const key = cacheKey(req);
  let hit: Response | undefined;
  try {
    hit = await opts.cache.match(key);
  } catch (err) {
    console.error("Cannot read the edge cache (answering from the app):", err);
  }
  if (hit) {
    const res = new Response(hit.body, hit);
    res.headers.set(EDGE_CACHE_HEADER, "HIT");
    return res;
  }
  const res = withHeadMaxAge(path, await handle(), opts);
  if (isImmutable(res)) {
    opts.waitUntil(
      opts.cache.put(key, res.clone()).catch((err) =>
        console.error("Cannot write the edge cache (the answer was sent):", err)
      ),
    );
  }
  const out = new Response(res.body, res);
  out.headers.set(EDGE_CACHE_HEADER, "MISS");
  return out;
}

function withHeadMaxAge(path: string, res: Response, opts: CacheOptions): Response {
  // A shard's routes (docs/SHARDS.md) are the log routes below its prefix.
  if (
    !LATEST_HEAD_PATHS.has(path.replace(/^\/shards\/s\d+(?=\/)/, "")) || res.status !== 200 ||
    opts.headMaxAgeS <= 0
  ) return res;
  const out = new Response(res.body, res);
  out.headers.set("cache-control", `public, max-age=${opts.headMaxAgeS}`);
  return out;
}
