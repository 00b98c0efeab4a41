// One keep-alive HTTP/1.1 connection for the HTTP suites (bench/suites/http.ts and its bulk mode,
// witness, profile): pre-built requests, one in flight, responses framed by Content-Length, so
// that the client spends its share of the machine's cores on as little as possible (`fetch`
// cost more CPU per request than the server did).

/** One keep-alive HTTP/1.1 connection: sends pre-built requests, one at a time. */
export class Conn {
  #buf = new Uint8Array(1 << 16);
  #len = 0;
  private constructor(readonly c: Deno.TcpConn) {}

  static async open(port: number): Promise<Conn> {
    const c = await Deno.connect({ hostname: "127.0.0.1", port });
    c.setNoDelay(true);
    return new Conn(c);
  }

  /** Writes `req` and reads one response: its status and body bytes. */
  async send(req: Uint8Array): Promise<{ status: number; body: Uint8Array }> {
    for (let o = 0; o < req.length;) o += await this.c.write(req.subarray(o));
    for (;;) {
      const end = headEnd(this.#buf, this.#len);
      if (end >= 0) {
        const head = latin1.decode(this.#buf.subarray(0, end));
        const m = /\r\ncontent-length: *(\d+)/i.exec(head);
        if (!m) throw new Error(`Cannot read response: no Content-Length in ${head}`);
        const total = end + 4 + Number(m[1]);
        while (this.#len < total) await this.#fill();
        const status = Number(head.slice(9, 12));
        const body = this.#buf.slice(end + 4, total);
        this.#buf.copyWithin(0, total, this.#len);
        this.#len -= total;
        return { status, body };
      }
      await this.#fill();
    }
  }

  async #fill(): Promise<void> {
    if (this.#len === this.#buf.length) {
      const bigger = new Uint8Array(this.#buf.length * 2);
      bigger.set(this.#buf);
      this.#buf = bigger;
    }
    const n = await this.c.read(this.#buf.subarray(this.#len));
    if (n === null) throw new Error("Cannot read response: connection closed");
    this.#len += n;
  }

  close(): void {
    try {
      this.c.close();
    } catch { /* closed */ }
  }
}

const latin1 = new TextDecoder("latin1");

function headEnd(b: Uint8Array, len: number): number {
  for (let i = 3; i < len; i++) {
    if (b[i] === 10 && b[i - 1] === 13 && b[i - 2] === 10 && b[i - 3] === 13) return i - 3;
  }
  return -1;
}
