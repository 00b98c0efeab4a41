// One outbound HTTP request under a connect deadline, a total deadline, a body budget enforced
// while streaming, and a redirect count (issue 18). Web-standard APIs only (fetch, AbortController,
// setTimeout, ReadableStream, TextDecoder): runs in Deno, Node >= 20, workerd and browsers.
import { BudgetExceeded, declaredLength, readLimited } from "./body.ts";
import { isNetError, NetError } from "./error.ts";
import {
  BODY_LIMITS,
  type BodyKind,
  DEFAULT_CONNECT_MS,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TOTAL_MS,
} from "./limits.ts";

/** Options of {@link request}; every limit has a default (net/limits.ts). */
export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A request body; bytes or text, so that it can be sent again after a 307/308. */
  body?: Uint8Array | string;
  /** The kind of answer expected: picks the body budget of a successful (2xx) answer. */
  kind?: BodyKind;
  /** Overrides the budget of `kind`, bytes. */
  maxBytes?: number;
  /** Budget of a non-2xx answer's body (default `BODY_LIMITS.error`). */
  errorMaxBytes?: number;
  /** Until the response headers arrive, per hop (default 10 s). */
  connectMs?: number;
  /** The whole request, all hops and the body (default 30 s). */
  totalMs?: number;
  /** Redirects followed at most (default 5; 0 refuses any redirect). */
  maxRedirects?: number;
  /** The caller's own cancellation. */
  signal?: AbortSignal;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
}

/** A complete answer, its body read within budget. */
export interface NetResponse {
  /** The URL that answered (after redirects). */
  url: string;
  status: number;
  ok: boolean;
  headers: Headers;
  bytes: Uint8Array;
  /** The body as strict UTF-8; throws NetError `net-bad-utf8`. */
  text(): string;
  /** The body as JSON; throws NetError `net-bad-utf8` or `net-bad-json`. */
  json(): unknown;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Sends one request and reads its whole answer, within the deadlines and the body budget. Throws
 * {@link NetError} on a timeout, an oversize body, too many or bad redirects, or no connection;
 * an HTTP error status is not thrown: it is returned (its body read within `errorMaxBytes`).
 */
export async function request(url: string | URL, opts: RequestOptions = {}): Promise<NetResponse> {
  const f = opts.fetch ?? globalThis.fetch;
  const connectMs = opts.connectMs ?? DEFAULT_CONNECT_MS;
  const totalMs = opts.totalMs ?? DEFAULT_TOTAL_MS;
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const okLimit = opts.maxBytes ?? BODY_LIMITS[opts.kind ?? "json"];
  const errLimit = opts.errorMaxBytes ?? BODY_LIMITS.error;
  let current = new URL(url);
  const t0 = Date.now();
  const ctl = new AbortController();
  let failure: NetError | undefined;
  let rejectAbort: (e: unknown) => void = () => {};
  const aborted = new Promise<never>((_, rej) => rejectAbort = rej);
  aborted.catch(() => {});
  const fail = (e: NetError) => {
    if (failure) return;
    failure = e;
    ctl.abort(e);
    rejectAbort(e);
  };
  const timeout = (which: string, ms: number, seen: string) =>
    fail(new NetError("net-timeout", current.href, `${which} deadline ${ms} ms`, seen));
  const total = setTimeout(
    () => timeout("total", totalMs, `not finished after ${Date.now() - t0} ms`),
    totalMs,
  );
  let connect: ReturnType<typeof setTimeout> | undefined;
  const onCallerAbort = () =>
    fail(new NetError("net-aborted", current.href, "the caller's signal", "aborted"));
  opts.signal?.addEventListener("abort", onCallerAbort, { once: true });
  if (opts.signal?.aborted) onCallerAbort();
  // Whatever an implementation does with the signal, a deadline ends the wait.
  const race = <T>(p: Promise<T>): Promise<T> => Promise.race([p, aborted]);
  try {
    let method = opts.method ?? "GET";
    let body = opts.body;
    let hops = 0;
    let follow = false; // browsers hide redirects (opaqueredirect): then the platform follows
    for (;;) {
      const hopStart = Date.now();
      clearTimeout(connect);
      connect = setTimeout(
        () =>
          timeout("connect", connectMs, `no response headers after ${Date.now() - hopStart} ms`),
        connectMs,
      );
      let res: Response;
      try {
        res = await race(f(current, {
          method,
          headers: opts.headers,
          body: typeof body === "string" ? body : body?.slice(),
          redirect: follow ? "follow" : "manual",
          signal: ctl.signal,
        }));
      } catch (e) {
        if (failure) throw failure;
        if (isNetError(e)) throw e;
        if (follow) {
          // The browser followed the redirects itself and gave up (a loop: over 20, Fetch §4.4).
          throw new NetError(
            "net-too-many-redirects",
            current.href,
            "the platform's 20 redirects (Fetch §4.4)",
            `the platform gave up following redirects: ${(e as Error).message}`,
          );
        }
        throw new NetError("net-connect", current.href, "an answer", reason(e));
      }
      clearTimeout(connect);
      if (res.type === "opaqueredirect") {
        if (hops >= maxRedirects) throw tooManyRedirects(current.href, maxRedirects, hops + 1);
        follow = true; // the platform's own cap (20, Fetch §4.4) then applies
        hops++;
        continue;
      }
      if (REDIRECTS.has(res.status) && res.headers.has("location")) {
        await res.body?.cancel().catch(() => {});
        hops++;
        if (hops > maxRedirects) throw tooManyRedirects(current.href, maxRedirects, hops);
        const next = redirectTarget(current, res.headers.get("location")!);
        if (res.status === 303 || (method === "POST" && res.status !== 307 && res.status !== 308)) {
          method = "GET";
          body = undefined;
        }
        current = next;
        continue;
      }
      const limit = res.ok ? okLimit : errLimit;
      const declared = declaredLength(res.headers);
      if (declared !== undefined && declared > limit) {
        await res.body?.cancel().catch(() => {});
        throw tooLarge(current.href, limit, `Content-Length ${declared}`);
      }
      let bytes: Uint8Array;
      try {
        bytes = await race(readLimited(res.body, limit));
      } catch (e) {
        if (e instanceof BudgetExceeded) {
          throw tooLarge(current.href, limit, `${e.seen} bytes so far`);
        }
        if (failure) throw failure;
        if (isNetError(e)) throw e;
        throw new NetError("net-connect", current.href, "a complete body", reason(e));
      }
      return answer(current.href, res, bytes);
    }
  } catch (e) {
    ctl.abort(e);
    throw e;
  } finally {
    clearTimeout(total);
    clearTimeout(connect);
    opts.signal?.removeEventListener("abort", onCallerAbort);
  }
}

/** A fetch failure's message with its cause's ("fetch failed: Connection refused (os error 111)"). */
function reason(e: unknown): string {
  const m = String((e as Error)?.message ?? e);
  const c = (e as Error)?.cause;
  return c ? `${m}: ${String((c as Error)?.message ?? c)}` : m;
}

function tooManyRedirects(url: string, max: number, seen: number): NetError {
  return new NetError("net-too-many-redirects", url, `${max} redirects`, `redirect ${seen}`);
}

function tooLarge(url: string, limit: number, seen: string): NetError {
  return new NetError("net-body-too-large", url, `${limit} bytes`, seen);
}

function redirectTarget(from: URL, location: string): URL {
  let to: URL;
  try {
    to = new URL(location, from);
  } catch {
    throw new NetError("net-bad-redirect", from.href, "a valid Location", location.slice(0, 200));
  }
  if (to.protocol !== "http:" && to.protocol !== "https:") {
    throw new NetError("net-bad-redirect", from.href, "an http(s) Location", to.protocol);
  }
  if (from.protocol === "https:" && to.protocol === "http:") {
    throw new NetError("net-bad-redirect", from.href, "no https → http downgrade", to.href);
  }
  return to;
}

function answer(url: string, res: Response, bytes: Uint8Array): NetResponse {
  const text = () => {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw new NetError(
        "net-bad-utf8",
        url,
        "valid UTF-8",
        `${bytes.byteLength} bytes, not UTF-8`,
      );
    }
  };
  return {
    url,
    status: res.status,
    ok: res.ok,
    headers: res.headers,
    bytes,
    text,
    json() {
      const t = text();
      try {
        return JSON.parse(t);
      } catch (e) {
        throw new NetError("net-bad-json", url, "valid JSON", (e as Error).message.slice(0, 200));
      }
    },
  };
}
