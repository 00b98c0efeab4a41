// Request limits (API.md, ARCHITECTURE "Errors"): bodies are read with a hard cap (413 past it,
// whether or not Content-Length was declared or honest), and every request runs under a time
// limit. Pure web-standard streams.
import { BudgetExceeded, declaredLength, readLimited } from "../net/mod.ts";
import { ApiError } from "./errors.ts";

/**
 * Reads a request body of at most `limit` bytes. Refuses with 413 `body-too-large` as soon as
 * the declared length or the bytes read exceed it; nothing past the limit is buffered (net/'s
 * budgeted reader, the same one every outbound answer is read with).
 */
export async function readBodyLimited(req: Request, limit: number): Promise<Uint8Array> {
  const declared = declaredLength(req.headers);
  if (declared !== undefined && declared > limit) throw tooLarge(limit);
  try {
    return await readLimited(req.body, limit);
  } catch (e) {
    if (e instanceof BudgetExceeded) throw tooLarge(limit);
    throw e;
  }
}

function tooLarge(limit: number): ApiError {
  return new ApiError("body-too-large", `Cannot read the body: it exceeds ${limit} bytes`);
}

interface Deadline {
  at: number;
  reject: (e: unknown) => void;
  ms: number;
  done: boolean;
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
        d.reject(
          new ApiError("timeout", `Cannot answer in time: the request ran past ${ms} ms`, {
            headers: { "retry-after": "1" },
          }),
        );
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
  return new Promise<T>((resolve, reject) => {
    const d = deadlines.add(ms, reject);
    work.then(
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
