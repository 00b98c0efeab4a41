// The Deno entry's HTTP listener (issue 27 "Connections": no caller can stall the service). Deno's
// `Deno.serve` has no connection cap and no header-read or idle timeout, and its accept loop ends
// for good at the first accept error (EMFILE at the descriptor limit): the process then exits or
// serves nothing. So this module runs its own accept loop (`Deno.listen`) and hands each accepted
// connection to Deno's own HTTP server for that one connection (the runtime's
// serveHttpOnConnection: the same native HTTP/1.1 and h2c serving path as Deno.serve, measured at
// the same throughput; docs/DECISIONS.md "Connections"). Around it:
// - a cap on open connections below the descriptor limit (api/deno/fd_limit.ts); at the cap an idle
//   connection (no request in flight: fresh, between requests, or still sending its head) is
//   closed to make room, the oldest first; when every one is busy, new connections wait in the
//   kernel's listen queue until one ends;
// - a connection must bring its first request within `headerTimeoutMs` of being accepted, and its
//   next one within `idleTimeoutMs` of its last answer (RFC 9112 §9.3: a server may close an idle
//   connection at any time; RFC 9110 §9.2.2: clients retry idempotent requests on a new one);
// - a request may hold its connection for at most `requestTimeoutMs`, from its head to the last
//   byte of its answer (a client that never reads its answer ends there);
// - an accept error (EMFILE, ENFILE, ECONNABORTED...) is counted and logged, an idle connection is
//   closed to give a descriptor back, and accepting resumes after a short pause: never an exit.
// Timers: one sweep per `tickMs` over the open connections; per request, one counter, two clock
// reads and the runtime's `completed` promise (no timer).
import { type ConnLimits, connLimits, type ConnSettings } from "./conn_config.ts";
import { raiseFdLimit } from "./fd_limit.ts";

export type { ConnLimits };

/** Counters of what the listener did (tests, logs). */
export interface ConnStats {
  open: number;
  accepted: number;
  /** Closed by the listener, by reason. */
  headerTimeout: number;
  idleTimeout: number;
  requestTimeout: number;
  evicted: number;
  /** closed after an answer that left the request's body unread (`closeAfter`) */
  unreadBody: number;
  acceptErrors: number;
  /** Times the accept loop waited for a slot (every connection busy at the cap). */
  waits: number;
}

/** A running listener. */
export interface ConnServer {
  addr: Deno.NetAddr;
  stats(): ConnStats;
  /** Stops accepting, lets the requests in flight finish (at most `requestTimeoutMs`), closes. */
  shutdown(): Promise<void>;
}

/** The request handler: the request and the peer's address. */
export type ConnHandler = (req: Request, clientAddr: string) => Response | Promise<Response>;

/** The runtime's per-connection HTTP server (Deno's ext/http 00_serve.ts). */
type ServeOnConnection = (
  conn: Deno.Conn,
  signal: AbortSignal,
  handler: (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>,
  onError: (e: unknown) => Response,
  onListen: (scheme: string) => void,
) => { finished: Promise<void>; shutdown(): Promise<void> };

/**
 * The runtime's per-connection server, or undefined where this Deno does not have it (then the
 * entry falls back to Deno.serve without connection limits, and says so on stderr).
 * tests/net/conn_server_test.ts fails on a Deno that lacks it.
 */
export function serveOnConnection(): ServeOnConnection | undefined {
  const ns = Deno as unknown as Record<symbol, Record<string, unknown> | undefined>;
  const key = (Deno as unknown as { internal?: symbol }).internal;
  const f = key === undefined ? undefined : ns[key]?.serveHttpOnConnection;
  return typeof f === "function" ? f as ServeOnConnection : undefined;
}

interface Conn {
  ctl: AbortController;
  served: { shutdown(): Promise<void> } | undefined;
  /** clock at accept, at the 0 → 1 request transition, or at the last answer */
  since: number;
  inflight: number;
  answered: number;
  closing: boolean;
}

/** Pause of the accept loop after an accept error, ms. */
const BACKOFF_MS = 100;
/** How long a connection whose request body was refused lingers after the answer, ms. */
const LINGER_MS = 1000;

/**
 * Listens on `hostname:port` and serves `handler` under `limits`. Throws what Deno.listen throws
 * (AddrInUse, PermissionDenied...) synchronously.
 *
 * @example
 * ```ts
 * const srv = serveConnections({ hostname: "127.0.0.1", port: 0, limits }, (req) => app.fetch(req));
 * await srv.shutdown();
 * ```
 */
export function serveConnections(
  opts: {
    hostname: string;
    port: number;
    limits: ConnLimits;
    /** Whether the connection must close once `req`'s answer is sent (its body left unread). */
    closeAfter?: (req: Request) => boolean;
    log?: (line: string) => void;
  },
  handler: ConnHandler,
): ConnServer {
  const serveOn = serveOnConnection();
  if (!serveOn) throw new Error("Cannot serve connections: this Deno has no serveHttpOnConnection");
  const { limits, closeAfter } = opts;
  const log = opts.log ?? ((l: string) => console.error(l));
  const listener = Deno.listen({ hostname: opts.hostname, port: opts.port, transport: "tcp" });
  const conns = new Set<Conn>();
  const stats: ConnStats = {
    open: 0,
    accepted: 0,
    headerTimeout: 0,
    idleTimeout: 0,
    requestTimeout: 0,
    evicted: 0,
    unreadBody: 0,
    acceptErrors: 0,
    waits: 0,
  };
  let closing = 0; // connections told to close whose `finished` has not settled yet
  let slotFreed: (() => void) | undefined;
  let stopped = false;
  let lastLog = -Infinity;

  let aborting = false;
  const onListenerError = (ev: ErrorEvent) => {
    if (aborting && ev.error instanceof Deno.errors.BadResource) ev.preventDefault();
  };
  globalThis.addEventListener("error", onListenerError);
  type Reason = "headerTimeout" | "idleTimeout" | "requestTimeout" | "evicted" | "unreadBody";
  const close = (c: Conn, reason?: Reason) => {
    if (c.closing) return;
    c.closing = true;
    closing++;
    if (reason) stats[reason]++;
    // The runtime cancels the connection's server (the socket is closed) in the signal's abort
    // listener, which throws BadResource when the peer closed it first (its `finished` settles
    // next): an error of an event listener is reported as uncaught, so it is caught here.
    aborting = true;
    try {
      c.ctl.abort();
    } finally {
      aborting = false;
    }
  };
  /** Closes the oldest idle connection; false when every one is busy. */
  const evictOne = (): boolean => {
    for (const c of conns) {
      if (!c.closing && c.inflight === 0) {
        close(c, "evicted");
        return true;
      }
    }
    return false;
  };
  const tickMs = Math.max(
    25,
    Math.min(1000, Math.floor(Math.min(limits.headerTimeoutMs, limits.idleTimeoutMs) / 4)),
  );
  const sweep = setInterval(() => {
    const clock = performance.now();
    for (const c of conns) {
      if (c.closing) continue;
      const age = clock - c.since;
      if (c.inflight > 0) {
        if (age > limits.requestTimeoutMs) close(c, "requestTimeout");
      } else if (c.answered === 0) {
        if (age > limits.headerTimeoutMs) close(c, "headerTimeout");
      } else if (age > limits.idleTimeoutMs) close(c, "idleTimeout");
    }
  }, tickMs);
  Deno.unrefTimer(sweep);

  const admit = (tcp: Deno.Conn) => {
    stats.accepted++;
    stats.open++;
    const c: Conn = {
      ctl: new AbortController(),
      served: undefined,
      since: performance.now(),
      inflight: 0,
      answered: 0,
      closing: false,
    };
    conns.add(c);
    const addr = (tcp.remoteAddr as Deno.NetAddr).hostname;
    const done = () => {
      c.inflight--;
      c.answered++;
      c.since = performance.now();
    };
    const served = serveOn(
      tcp,
      c.ctl.signal,
      (req, info) => {
        if (c.inflight++ === 0) c.since = performance.now();
        if (closeAfter) {
          // A body left unread would go on being read (drained) by the runtime: the connection
          // closes LINGER_MS after the answer instead (closing at once, with unread bytes in the
          // socket, sends a reset that can destroy the answer before the client reads it: RFC
          // 9112 §9.6 "tear-down", the lingering close).
          const end = () => {
            done();
            if (closeAfter(req)) setTimeout(() => close(c, "unreadBody"), LINGER_MS);
          };
          info.completed.then(end, end);
        } else info.completed.then(done, done);
        return handler(req, addr);
      },
      (e) => {
        console.error("Cannot answer a request:", e);
        return new Response("Internal Server Error", { status: 500 });
      },
      () => {},
    );
    c.served = served;
    served.finished.catch(() => {}).finally(() => {
      conns.delete(c);
      stats.open--;
      if (c.closing) closing--;
      slotFreed?.();
    });
  };

  const acceptLoop = (async () => {
    while (!stopped) {
      // At the cap: make room by closing an idle connection, else wait for one to end (the new
      // ones wait in the listen queue meanwhile, holding no descriptor of ours). Connections
      // being closed still count: their descriptors are not free until they are gone.
      while (!stopped && stats.open >= limits.max) {
        if (closing === 0 && !evictOne()) stats.waits++;
        await new Promise<void>((r) => slotFreed = r);
        slotFreed = undefined;
      }
      if (stopped) break;
      let tcp: Deno.Conn;
      try {
        tcp = await listener.accept();
      } catch (e) {
        if (stopped || e instanceof Deno.errors.BadResource) break;
        // EMFILE / ENFILE (descriptors used elsewhere: stores, workers, outbound requests),
        // ECONNABORTED...: the listener stays usable; give a descriptor back and go on.
        stats.acceptErrors++;
        evictOne();
        if (performance.now() - lastLog > 10_000) {
          lastLog = performance.now();
          log(
            `Cannot accept a connection: ${(e as Error).message} ` +
              `(${stats.acceptErrors} accept errors so far, ${stats.open} connections open); ` +
              `retrying in ${BACKOFF_MS} ms`,
          );
        }
        await new Promise((r) => setTimeout(r, BACKOFF_MS));
        continue;
      }
      try {
        admit(tcp);
      } catch (e) {
        log(`Cannot serve a connection: ${(e as Error).message}`);
        try {
          tcp.close();
        } catch { /* closed */ }
      }
    }
  })();

  let down: Promise<void> | undefined;
  return {
    addr: listener.addr as Deno.NetAddr,
    stats: () => ({ ...stats }),
    shutdown: () =>
      down ??= (async () => {
        stopped = true;
        slotFreed?.();
        try {
          listener.close();
        } catch { /* closed */ }
        await acceptLoop;
        // Idle connections close now; requests in flight finish, at most requestTimeoutMs.
        const busy = [...conns].filter((c) => c.inflight > 0 || (close(c), false));
        const graceful = Promise.all(busy.map((c) => c.served?.shutdown().catch(() => {})));
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          graceful,
          new Promise((r) => timer = setTimeout(r, limits.requestTimeoutMs)),
        ]);
        clearTimeout(timer);
        for (const c of conns) close(c);
        clearInterval(sweep);
        globalThis.removeEventListener("error", onListenerError);
      })(),
  };
}

/**
 * The Deno entry's listener for `config` (api/deno/main.ts): raises the descriptor limit, derives the
 * connection limits from it and serves through {@link serveConnections}; on a Deno without the
 * per-connection server, through Deno.serve with none of these limits (said on stderr).
 */
export function listenService(
  config: ConnSettings & { host: string; port: number },
  handler: ConnHandler,
  closeAfter?: (req: Request) => boolean,
): ConnServer {
  if (!serveOnConnection()) {
    console.error(
      "Serving without connection limits: this Deno has no per-connection HTTP server " +
        '(docs/DECISIONS.md "Connections")',
    );
    const s = Deno.serve(
      { hostname: config.host, port: config.port, onListen: () => {} },
      (req, info) => handler(req, (info.remoteAddr as Deno.NetAddr).hostname),
    );
    const none = { headerTimeout: 0, idleTimeout: 0, requestTimeout: 0, evicted: 0, unreadBody: 0 };
    return {
      addr: s.addr as Deno.NetAddr,
      stats: () => ({ open: -1, accepted: -1, acceptErrors: -1, waits: 0, ...none }),
      shutdown: () => s.shutdown(),
    };
  }
  const fd = raiseFdLimit();
  const limits = connLimits(config, fd?.soft);
  if (config.connMax !== "auto" && limits.max < config.connMax) {
    console.error(
      `conn_max ${config.connMax} lowered to ${limits.max}: the descriptor limit is ${fd?.soft}`,
    );
  }
  return serveConnections(
    { hostname: config.host, port: config.port, limits, closeAfter },
    handler,
  );
}
