// Hostile HTTP/1.1 clients over raw TCP on 127.0.0.1 (issue 27), for tests against the real
// service process: idle connections that never send a byte, heads that never end, bodies sent one
// byte per TCP segment, chunked bodies that never end. Each is bounded (bytes, time) so that a
// test never runs away, and each reads the server's answer while it writes.

const enc = new TextEncoder();
const latin1 = new TextDecoder("latin1");

/** The service's port from its URL. */
export function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** Resident set size of a process, KiB (VmRSS of /proc/<pid>/status); 0 when it is gone. */
export function rssKiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Whether the process is alive. */
export function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

/** Opens up to `n` connections that never send a byte; those the kernel refuses are counted. */
export async function idleFlood(port: number, n: number) {
  const conns: Deno.TcpConn[] = [];
  let refused = 0;
  for (let i = 0; i < n; i++) {
    try {
      conns.push(await Deno.connect({ hostname: "127.0.0.1", port }));
    } catch {
      refused++;
    }
  }
  return {
    conns,
    refused,
    close() {
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
    },
  };
}

/**
 * Milliseconds until the server closes `conn` (reads until EOF or a reset), or undefined when it
 * is still open after `maxMs` (then the test closes it).
 */
export async function closedAfter(conn: Deno.Conn, maxMs: number): Promise<number | undefined> {
  const t0 = performance.now();
  const buf = new Uint8Array(16 * 1024);
  const timer = setTimeout(() => {
    try {
      conn.close();
    } catch { /* closed */ }
  }, maxMs);
  let closedByUs = false;
  try {
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
    }
  } catch (e) {
    closedByUs = e instanceof Deno.errors.BadResource || e instanceof Deno.errors.Interrupted;
  } finally {
    clearTimeout(timer);
  }
  const ms = performance.now() - t0;
  if (closedByUs || ms >= maxMs) return undefined;
  try {
    conn.close();
  } catch { /* closed */ }
  return ms;
}

/** What one hostile request saw: the answer's status line and body (if any) and when. */
export interface Answer {
  status?: number;
  body: string;
  /** ms from the first byte written to the answer (or the close) */
  ms: number;
  /** bytes of the request body written before the answer or the close */
  sent: number;
  /** the server closed the connection (EOF, reset, or a write refused) within the run */
  closed: boolean;
}

/**
 * Sends `head` (without the blank line's end), then a body produced by `next()` (undefined: the
 * body is done) chunk by chunk, each written alone with Nagle off (one TCP segment each) and
 * `gapMs` apart, until the server answers or closes, or `maxMs` passes. Reads the answer.
 */
export async function sendSlowly(
  port: number,
  head: string,
  next: () => Uint8Array | undefined,
  opts: { gapMs?: number; maxMs: number; afterAnswerMs?: number },
): Promise<Answer> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  conn.setNoDelay(true);
  const t0 = performance.now();
  let answeredAt: number | undefined;
  let closed = false;
  let sent = 0;
  let raw = "";
  const reading = (async () => {
    const buf = new Uint8Array(16 * 1024);
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) break;
        raw += latin1.decode(buf.subarray(0, n));
        if (complete(raw)) answeredAt ??= performance.now();
      }
      closed = true;
    } catch (e) {
      closed = !(e instanceof Deno.errors.BadResource || e instanceof Deno.errors.Interrupted);
    }
    answeredAt ??= performance.now();
  })();
  // After the answer, the body goes on for `afterAnswerMs` (does the server still read it?).
  const over = () =>
    answeredAt !== undefined && performance.now() - answeredAt >= (opts.afterAnswerMs ?? 0);
  try {
    await writeAll(conn, enc.encode(head + "\r\n\r\n"));
    for (;;) {
      if (closed || over() || performance.now() - t0 > opts.maxMs) break;
      const chunk = next();
      if (!chunk) break;
      await writeAll(conn, chunk);
      sent += chunk.byteLength;
      if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
    }
  } catch {
    closed = true; // the server closed: EPIPE, reset
  }
  const deadline = setTimeout(() => {
    try {
      conn.close();
    } catch { /* closed */ }
  }, 1500); // the server closes it within 1.5 s of the last byte, or it is deemed left open
  await reading;
  clearTimeout(deadline);
  try {
    conn.close();
  } catch { /* closed */ }
  const m = /^HTTP\/1\.1 (\d{3})/.exec(raw);
  const at = raw.indexOf("\r\n\r\n");
  return {
    status: m ? Number(m[1]) : undefined,
    body: at >= 0 ? raw.slice(at + 4) : "",
    ms: (answeredAt ?? performance.now()) - t0,
    sent,
    closed,
  };
}

/** A whole answer: its head and as many body bytes as Content-Length says. */
function complete(raw: string): boolean {
  const at = raw.indexOf("\r\n\r\n");
  if (at < 0) return false;
  const m = /\r\ncontent-length: *(\d+)/i.exec(raw.slice(0, at));
  return m ? raw.length - at - 4 >= Number(m[1]) : false;
}

async function writeAll(conn: Deno.Conn, b: Uint8Array): Promise<void> {
  for (let o = 0; o < b.length;) o += await conn.write(b.subarray(o));
}

/** One byte per call, `n` calls, then done. */
export function byteByByte(n: number): () => Uint8Array | undefined {
  let i = 0;
  return () => i++ < n ? Uint8Array.of(0x61) : undefined;
}

/** Chunked transfer coding (RFC 9112 §7.1) of `size`-byte chunks, at most `total` bytes. */
export function chunked(size: number, total: number, fill = 0x61): () => Uint8Array | undefined {
  const data = new Uint8Array(size).fill(fill);
  const frame = new Uint8Array([...enc.encode(size.toString(16) + "\r\n"), ...data, 13, 10]);
  let sent = 0;
  return () => {
    if (sent >= total) return undefined;
    sent += size;
    return frame;
  };
}

/** GET `path` with a deadline: the status and the ms it took, or undefined status on failure. */
export async function timedGet(url: string, maxMs: number) {
  const t0 = performance.now();
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), maxMs);
  try {
    const r = await fetch(url, { signal: ctl.signal });
    await r.body?.cancel();
    return { status: r.status as number | undefined, ms: performance.now() - t0 };
  } catch {
    return { status: undefined, ms: performance.now() - t0 };
  } finally {
    clearTimeout(timer);
  }
}
