// Test helper: one HTTP/1.1 request over a raw TCP connection, with exactly the request line and
// headers given — what fetch cannot send (a forged or malformed Host, a path it would normalize).
// Reads the answer to the connection's close; decodes a chunked body.

/** An answer read off the wire. */
export interface RawAnswer {
  status: number;
  /** Header names lowercased; a repeated header's values joined with ", ". */
  headers: Map<string, string>;
  body: string;
}

const enc = new TextEncoder();

function indexOfSeq(a: Uint8Array, seq: number[], from = 0): number {
  outer: for (let i = from; i <= a.length - seq.length; i++) {
    for (let k = 0; k < seq.length; k++) if (a[i + k] !== seq[k]) continue outer;
    return i;
  }
  return -1;
}

function dechunk(b: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  for (;;) {
    const eol = indexOfSeq(b, [13, 10], at);
    if (eol < 0) throw new Error("Cannot read a chunked body: no chunk size line");
    const size = parseInt(new TextDecoder().decode(b.subarray(at, eol)).split(";")[0], 16);
    if (!Number.isFinite(size)) throw new Error("Cannot read a chunked body: bad chunk size");
    if (size === 0) break;
    parts.push(b.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) out.set(p, o), o += p.length;
  return out;
}

/** Whether `all` (an answer so far) holds its whole body by its own framing. */
function complete(all: Uint8Array, method: string): boolean {
  const end = indexOfSeq(all, [13, 10, 13, 10]);
  if (end < 0) return false;
  const head = new TextDecoder().decode(all.subarray(0, end)).toLowerCase();
  const status = Number(head.split(" ")[1]);
  if (method === "HEAD" || status === 204 || status === 304) return true;
  const len = /\r\ncontent-length:\s*(\d+)/.exec(head);
  if (len) return all.length - (end + 4) >= Number(len[1]);
  if (/\r\ntransfer-encoding:[^\r]*chunked/.test(head)) {
    return indexOfSeq(all, [13, 10, 48, 13, 10, 13, 10], end) >= 0 ||
      (all.length - (end + 4) >= 5 && indexOfSeq(all, [48, 13, 10, 13, 10], end + 4) === end + 4);
  }
  return false;
}

/**
 * Sends `method target` to the server at `base` (`http://127.0.0.1:port`) with `headers` as given
 * (a `host` among them is sent as it is; none given: no Host line at all) and `Connection: close`.
 */
export async function rawRequest(
  base: string,
  target: string,
  headers: Record<string, string> = {},
  method = "GET",
  body?: Uint8Array,
): Promise<RawAnswer> {
  const u = new URL(base);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  try {
    const lines = [`${method} ${target} HTTP/1.1`];
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    if (body) lines.push(`content-length: ${body.length}`);
    lines.push("connection: close", "", "");
    await conn.write(enc.encode(lines.join("\r\n")));
    if (body) await conn.write(body);
    // read to the close, or to the end of the body its framing announces (a server may keep
    // the connection open for a while after `Connection: close`)
    let all = new Uint8Array(0);
    const buf = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      const next = new Uint8Array(all.length + n);
      next.set(all), next.set(buf.subarray(0, n), all.length);
      all = next;
      if (complete(all, method)) break;
    }
    const end = indexOfSeq(all, [13, 10, 13, 10]);
    if (end < 0) throw new Error("Cannot read the answer: no end of headers");
    const head = new TextDecoder().decode(all.subarray(0, end)).split("\r\n");
    const status = Number(head[0].split(" ")[1]);
    const map = new Map<string, string>();
    for (const l of head.slice(1)) {
      const i = l.indexOf(":");
      const k = l.slice(0, i).trim().toLowerCase();
      const v = l.slice(i + 1).trim();
      map.set(k, map.has(k) ? `${map.get(k)}, ${v}` : v);
    }
    let rest: Uint8Array = all.subarray(end + 4);
    if ((map.get("transfer-encoding") ?? "").toLowerCase().includes("chunked")) {
      rest = dechunk(rest);
    }
    return { status, headers: map, body: new TextDecoder().decode(rest) };
  } finally {
    try {
      conn.close();
    } catch { /* closed by the server */ }
  }
}
