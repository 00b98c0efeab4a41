// A tiny hostile HTTP/1.1 server for the tests (issue 18), on raw TCP over 127.0.0.1 and a free port
// so that it can misbehave in ways a well-mannered server framework will not: never answer, answer
// headers then stall, stream an endless body, send a 10 MB checkpoint, send a proof of 100,000
// hashes, redirect in a loop, send invalid UTF-8 or invalid JSON. The behaviour is the first path
// segment (`${url}/endless/v1/log/tree-head`) or, for clients that build absolute paths (the meter
// agent), the one the server was started with. Everything else it answers as a log would: the log
// key and signed tree heads (so a client gets as far as asking for the proof it is fed).
import { c2sp, signTreeHead, type TreeHead } from "../../log/mod.ts";
import { ed25519GenerateSecret } from "../../verify/mod.ts";

/** What the server does with a request. */
export type Behaviour =
  | "silent" // accept, read the request, never answer
  | "stall-headers" // answer 200 headers, then never send a body byte
  | "endless" // answer 200 and stream a chunked body forever
  | "big-checkpoint" // answer every request with a 10 MB "tree head" (chunked, no length)
  | "big-declared" // the same with Content-Length: 10485760
  | "long-proof" // a valid key and signed heads; every proof (and append) has 100,000 hashes
  | "proof-65" // a valid key and signed heads; every proof has 65 well-formed hashes
  | "redirect-loop" // 302 to itself, forever
  | "bad-utf8" // 200 application/json whose bytes are not UTF-8
  | "bad-json" // 200 application/json that is not JSON
  | "big-tile" // valid signed checkpoints (C2SP); every other answer a 20 MB chunked stream
  | "short-tile"; // valid signed checkpoints (C2SP); every other answer is 100 zero bytes

/** Every behaviour, for test matrices. */
export const BEHAVIOURS: Behaviour[] = [
  "silent",
  "stall-headers",
  "endless",
  "big-checkpoint",
  "big-declared",
  "long-proof",
  "proof-65",
  "redirect-loop",
  "bad-utf8",
  "bad-json",
  "big-tile",
  "short-tile",
];

/** A running hostile server. */
export interface Hostile {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The base URL of one behaviour (`${url}/${b}`). */
  base(b: Behaviour): string;
  /** The log key's did:key the server signs heads with. */
  signer: string;
  /** A head at `size` signed with the server's key (a root it makes up, fixed per size). */
  head(size: number): TreeHead;
  /** The log's vkey for `--log-key` (the blake3 view; the sha256 one shares its key). */
  vkey: string;
  /** Requests seen so far. */
  requests: number;
  close(): Promise<void>;
}

const enc = new TextEncoder();
const HEX64 = "ab".repeat(32);
/** Size of the head the server claims. */
export const HOSTILE_SIZE = 5;
/** Size of the checkpoints of `big-tile` and `short-tile` (past one full tile). */
export const HOSTILE_TREE = 300;
/** The log name of the C2SP checkpoints (`<name>/blake3`, `<name>/sha256`). */
const ORIGIN = "hostile.example/log";

/** Extras for the browser test: files served as is, and POSTed reports. */
export interface HostileOptions {
  /** path → content to serve (same origin as the behaviours, so no CORS is involved). */
  files?: Record<string, { type: string; body: Uint8Array }>;
  /** Called with the body of every POST to `/__report`. */
  onReport?: (body: string) => void;
}

/** Starts the server; `fixed` answers every path with one behaviour. */
export function startHostile(fixed?: Behaviour, opts: HostileOptions = {}): Hostile {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const url = `http://127.0.0.1:${port}`;
  const secret = ed25519GenerateSecret();
  const heads = new Map<number, TreeHead>();
  const head = (size: number) => {
    let h = heads.get(size);
    if (!h) {
      const root = new Uint8Array(32).fill(size & 0xff);
      heads.set(size, h = signTreeHead(size, root, 1_700_000_000_000 + size, secret));
    }
    return h;
  };
  const conns = new Set<Deno.Conn>();
  const answers = new Map<string, Uint8Array>();
  const tasks = new Set<Promise<void>>();
  const state = {
    url,
    base: (b: Behaviour) => `${url}/${b}`,
    signer: head(0).signer,
    vkey: c2sp.ed25519Vkey(`${ORIGIN}/blake3`, secret),
    head,
    requests: 0,
    async close() {
      try {
        listener.close();
      } catch { /* closed */ }
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await Promise.allSettled([accepting, ...tasks]);
    },
  };
  const accepting = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      conns.add(conn);
      const t = serve(conn).catch(() => {}).finally(() => {
        conns.delete(conn);
        tasks.delete(t);
        try {
          conn.close();
        } catch { /* closed */ }
      });
      tasks.add(t);
    }
  })();

  async function serve(conn: Deno.Conn): Promise<void> {
    const req = await readRequest(conn);
    if (!req) return;
    state.requests++;
    const file = opts.files?.[req.path];
    if (file) {
      await write(conn, head200(file.type, file.body.length));
      return await write(conn, file.body);
    }
    if (req.method === "POST" && req.path === "/__report") {
      opts.onReport?.(new TextDecoder().decode(req.body));
      return await body(conn, enc.encode("{}"));
    }
    let path = req.path;
    let b = fixed;
    const m = /^\/([a-z0-9-]+)(\/.*)?$/.exec(path);
    if (!b && m && BEHAVIOURS.includes(m[1] as Behaviour)) {
      b = m[1] as Behaviour;
      path = m[2] ?? "/";
    }
    switch (b) {
      case "silent":
        return await forever(conn);
      case "stall-headers":
        await write(conn, head200("application/json", undefined));
        return await forever(conn);
      case "endless": {
        await write(conn, head200("application/json", undefined));
        const chunk = chunked(enc.encode("[" + `"${HEX64}",`.repeat(1000)));
        for (;;) await write(conn, chunk);
      }
      case "big-checkpoint":
      case "big-declared": {
        const total = 10 * 1024 * 1024;
        const prefix = enc.encode(`{"size":5,"root":"`);
        const declared = b === "big-declared";
        await write(conn, head200("application/json", declared ? total : undefined));
        const filler = new Uint8Array(64 * 1024).fill(0x61);
        await write(conn, declared ? prefix : chunked(prefix));
        for (let sent = prefix.length; sent < total; sent += filler.length) {
          const part = filler.subarray(0, Math.min(filler.length, total - sent));
          await write(conn, declared ? part : chunked(part));
        }
        if (!declared) await write(conn, enc.encode("0\r\n\r\n"));
        return;
      }
      case "redirect-loop":
        return await write(
          conn,
          enc.encode(
            `HTTP/1.1 302 Found\r\nlocation: ${req.path}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`,
          ),
        );
      case "bad-utf8":
        return await body(conn, new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]));
      case "bad-json":
        return await body(conn, enc.encode(`{"size": 5, "root": "${HEX64}", "signature": `));
      case "big-tile":
      case "short-tile": {
        const cp = /^\/log\/(blake3|sha256)\/checkpoint$/.exec(path);
        if (cp) {
          const note = c2sp.signCheckpoint(
            { origin: `${ORIGIN}/${cp[1]}`, size: HOSTILE_TREE, root: new Uint8Array(32).fill(7) },
            secret,
          );
          await write(conn, head200("text/plain", enc.encode(note).length));
          return await write(conn, enc.encode(note));
        }
        if (b === "short-tile") return await body(conn, new Uint8Array(100));
        // no Content-Length: the budget must cut the stream itself
        await write(conn, head200("application/octet-stream", undefined));
        const zeros = chunked(new Uint8Array(64 * 1024));
        for (let sent = 0; sent < 20 * 1024 * 1024; sent += 64 * 1024) await write(conn, zeros);
        return await write(conn, enc.encode("0\r\n\r\n"));
      }
      case "long-proof":
      case "proof-65": {
        // A log without shards: no directory (docs/SHARDS.md; the client then uses the root).
        if (path === "/v1/logs") {
          const nf = enc.encode(`{"code":"not-found"}`);
          return await write(
            conn,
            enc.encode(
              `HTTP/1.1 404 Not Found\r\ncontent-type: application/problem+json\r\n` +
                `content-length: ${nf.length}\r\nconnection: close\r\n\r\n`,
            ),
          ).then(() => write(conn, nf));
        }
        const key = `${b} ${req.method} ${path}`;
        let bytes = answers.get(key);
        if (!bytes) {
          answers.set(key, bytes = enc.encode(JSON.stringify(logAnswer(req.method, path, b))));
        }
        return await body(conn, bytes);
      }
      default:
        return await body(conn, enc.encode(JSON.stringify({ ok: true })));
    }
  }

  // The 100,000-hash arrays are built once: the server must answer at once even on a loaded machine
  // (a slow answer would be a timeout, not the oversize body under test).
  const hashLists = new Map<number, string[]>();
  function logAnswer(method: string, path: string, b: "long-proof" | "proof-65"): unknown {
    const n = b === "long-proof" ? 100_000 : 65;
    const hashes = () => {
      let h = hashLists.get(n);
      if (!h) hashLists.set(n, h = Array.from({ length: n }, () => HEX64));
      return h;
    };
    if (path === "/v1/log/key") return { signer: state.signer };
    if (path === "/v1/log/tree-head") return head(HOSTILE_SIZE);
    const at = /^\/v1\/log\/tree-heads\/(\d+)$/.exec(path);
    if (at) return head(Number(at[1]));
    const incl = /^\/v1\/log\/proof\/inclusion\?index=(\d+)/.exec(path);
    if (incl) {
      return { index: Number(incl[1]), size: HOSTILE_SIZE, leaf_hash: HEX64, path: hashes() };
    }
    if (path.startsWith("/v1/log/proof/consistency")) return { path: hashes() };
    if (method === "POST" && path === "/v1/log/entries") {
      return {
        index: 0,
        leaf_hash: HEX64,
        tree_head: head(HOSTILE_SIZE),
        inclusion_proof: hashes(),
      };
    }
    return { results: hashes() }; // e.g. POST /v1/readings: an answer far past any budget
  }

  return state;
}

interface Req {
  method: string;
  path: string;
  /** The body's first 64 KiB. */
  body: Uint8Array;
}

/** Reads a request head (and a declared body, so that closing never resets the connection). */
async function readRequest(conn: Deno.Conn): Promise<Req | undefined> {
  const buf = new Uint8Array(64 * 1024);
  let n = 0;
  let end = -1;
  while (end < 0) {
    if (n === buf.length) return undefined;
    const r = await conn.read(buf.subarray(n));
    if (r === null) return undefined;
    n += r;
    end = new TextDecoder().decode(buf.subarray(0, n)).indexOf("\r\n\r\n");
  }
  const headText = new TextDecoder().decode(buf.subarray(0, end));
  const [line, ...fields] = headText.split("\r\n");
  const [method, path] = line.split(" ");
  const cl = fields.find((f) => /^content-length:/i.test(f));
  const length = Number(cl?.split(":")[1]?.trim() ?? 0);
  const kept = new Uint8Array(Math.min(length, 64 * 1024));
  let got = Math.min(n - end - 4, kept.length);
  kept.set(buf.subarray(end + 4, end + 4 + got));
  let rest = length - (n - end - 4);
  const sink = new Uint8Array(16 * 1024);
  while (rest > 0) {
    const r = await conn.read(sink);
    if (r === null) break;
    const take = Math.min(r, kept.length - got);
    if (take > 0) kept.set(sink.subarray(0, take), got);
    got += Math.max(take, 0);
    rest -= r;
  }
  return { method, path, body: kept };
}

function head200(type: string, length: number | undefined): Uint8Array {
  const len = length === undefined ? "transfer-encoding: chunked" : `content-length: ${length}`;
  return enc.encode(
    `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\n${len}\r\nconnection: close\r\n\r\n`,
  );
}

async function body(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  await write(conn, head200("application/json", bytes.length));
  await write(conn, bytes);
}

function chunked(bytes: Uint8Array): Uint8Array {
  const h = enc.encode(`${bytes.length.toString(16)}\r\n`);
  const out = new Uint8Array(h.length + bytes.length + 2);
  out.set(h);
  out.set(bytes, h.length);
  out.set([13, 10], h.length + bytes.length);
  return out;
}

async function write(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let o = 0;
  while (o < bytes.length) o += await conn.write(bytes.subarray(o));
}

/** Holds the connection open until the peer closes it (or the server does). */
async function forever(conn: Deno.Conn): Promise<void> {
  const sink = new Uint8Array(1024);
  while ((await conn.read(sink)) !== null) { /* discard */ }
}
