// Request limits (API.md, ARCHITECTURE "Errors"): bodies are read with a hard cap (413 past it,
// whether or not Content-Length was declared or honest), no faster than a least rate (408 below
// it) and never past the request's deadline (the read stops there), and every request runs under
// a time limit. One reader for every route (issue 27): net/'s readLimited, which copies into a
// buffer of its own. Pure web-standard streams: the Deno entry and the Worker alike.
import { BudgetExceeded, declaredLength, RateTooLow, readLimited } from "../../net/mod.ts";
import { ApiError } from "./errors.ts";

/** What a request's body is read under (set by {@link withDeadline}). */
interface BodyPace {
  deadline: Deadline;
  /** bytes per second, 0: none (config `body_min_rate`) */
  minRate: number;
}
const paces = new WeakMap<Request, BodyPace>();
/** Requests whose body was refused before its end (too large, too slow, past the deadline). */
const unread = new WeakSet<Request>();

/**
 * Whether `req`'s body was left unread by {@link readBodyLimited} (refused before its end): its
 * connection must close once the answer is sent, else the server would go on reading the rest
 * (the Deno entry's listener closes it: api/deno/conn_server.ts `closeAfter`).
 */
export function bodyLeftUnread(req: Request): boolean {
  return unread.has(req);
}

/**
 * Reads a request body of at most `limit` bytes. Refuses with 413 `body-too-large` as soon as
 * the declared length or the bytes read exceed it (nothing past the limit is buffered); with 408
 * `body-too-slow` when the body arrives slower than `body_min_rate`; and stops reading (the body
 * is cancelled) when the request's deadline passes, which has answered 503 `timeout`.
 */
export async function readBodyLimited(req: Request, limit: number): Promise<Uint8Array> {
  const declared = declaredLength(req.headers);
  if (declared !== undefined && declared > limit) {
    unread.add(req);
    await req.body?.cancel().catch(() => {});
    throw tooLarge(limit);
  }
  const pace = paces.get(req);
  try {
    return await readLimited(req.body, limit, {
      signal: pace && signalOf(pace.deadline),
      minRate: pace?.minRate,
      expected: declared,
    });
  } catch (e) {
    unread.add(req);
    if (e instanceof BudgetExceeded) throw tooLarge(limit);
    if (e instanceof RateTooLow) {
      throw new ApiError(
        "body-too-slow",
        `Cannot read the body: ${e.seen} bytes in ${Math.round(e.ms)} ms, under the least rate ` +
          `of ${e.minRate} bytes per second`,
        { headers: { connection: "close" } },
      );
    }
    throw e;
  }
}

/** A request body as text (UTF-8, as Request.text() decodes it), read by readBodyLimited. */
export async function readTextLimited(req: Request, limit: number): Promise<string> {
  return new TextDecoder().decode(await readBodyLimited(req, limit));
}

function tooLarge(limit: number): ApiError {
  // The rest of the body is not read: the connection closes after the answer (RFC 9112 §9.6).
  return new ApiError("body-too-large", `Cannot read the body: it exceeds ${limit} bytes`, {
    headers: { connection: "close" },
  });
}

/** The deadline's signal: aborted with the 503 `timeout` error when it expires. */
function signalOf(d: Deadline): AbortSignal {
  d.ctl ??= new AbortController();
  if (d.expired) d.ctl.abort(d.expired);
  return d.ctl.signal;
}

interface Deadline {
  at: number;
  reject: (e: unknown) => void;
  ms: number;
  done: boolean;
  /** set once it expired */
  expired?: ApiError;
  /** created when a body read asks for it; aborted when the deadline expires */
  ctl?: AbortController;
}

/**
 * The deadlines of the requests in flight, served by one timer (a timer per request cost more
 * than the rest of a proof request). One FIFO per time limit keeps each queue in deadline order;
 * entries are dropped from the front as they finish or expire, and the timer is cleared when no
 * request is in flight (so nothing outlives the requests).
 */
class Deadlines {
  readonly #queues = new Map<number, Deadline[]>();
  #live = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Infinity;

  add(ms: number, reject: (e: unknown) => void): Deadline {
    const d = { at: performance.now() + ms, reject, ms, done: false };
    let q = this.#queues.get(ms);
    if (!q) this.#queues.set(ms, q = []);
    q.push(d);
    this.#live++;
    if (d.at < this.#timerAt) this.#arm(d.at);
    return d;
  }

  finish(d: Deadline): void {
    if (d.done) return;
    d.done = true;
    if (--this.#live === 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#timerAt = Infinity;
      this.#queues.clear();
      return;
    }
    const q = this.#queues.get(d.ms)!;
    let n = 0;
    while (n < q.length && q[n].done) n++;
    if (n > 64 || n === q.length) q.splice(0, n);
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, at - performance.now()));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const [ms, q] of this.#queues) {
      let n = 0;
      for (; n < q.length && (q[n].done || q[n].at <= now); n++) {
        const d = q[n];
        if (d.done) continue;
        d.done = true;
        this.#live--;
        // A body still being read is not read on: the connection closes after the answer
        // (RFC 9112 §9.6), so that nothing drains the rest of it.
        const headers: Record<string, string> = { "retry-after": "1" };
        if (d.ctl) headers.connection = "close";
        d.expired = new ApiError(
          "timeout",
          `Cannot answer in time: the request ran past ${ms} ms`,
          { headers },
        );
        d.reject(d.expired);
        d.ctl?.abort(d.expired); // a body still being read stops here
      }
      q.splice(0, n);
      if (q.length) next = Math.min(next, q[0].at);
      else this.#queues.delete(ms);
    }
    if (next < Infinity) this.#arm(next);
  }
}

const deadlines = new Deadlines();

/**
 * Runs `work` under a time limit. On expiry answers 503 `timeout` with Retry-After; the work
 * itself is not cancelled (an append that completes later is still acknowledged to a
 * resubmission, exactly once).
 */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return withDeadline(undefined, ms, 0, () => work);
}

/**
 * Runs `work` (a route's handler for `req`) under a time limit, as {@link withTimeout}; a body of
 * `req` read by {@link readBodyLimited} meanwhile stops at the deadline and must arrive at
 * `minRate` bytes per second at least (0: no floor).
 */
export function withDeadline<T>(
  req: Request | undefined,
  ms: number,
  minRate: number,
  work: () => Promise<T>,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const d = deadlines.add(ms, reject);
    if (req) paces.set(req, { deadline: d, minRate });
    work().then(
      (v) => {
        deadlines.finish(d);
        resolve(v);
      },
      (e) => {
        deadlines.finish(d);
        reject(e);
      },
    );
  });
}
