// A sharded service for the client's tests, from parts that exist without the sharded server
// (docs/SHARDS.md): N real embedded services (`deno task start`, each a one-shard log with its
// own key and log name `<base>`, `<base>/s1`, …) behind a small real HTTP front on 127.0.0.1 that
// routes `/shards/sN/*` to instance N and everything else to instance 0, answers `GET /v1/logs`
// with a directory signed by an operator key the test holds, and rotates: `rotate()` freezes the
// active shard at its published final checkpoints (its appends then answer 409 `shard-frozen`
// naming the next shard) and makes the next instance active. Hooks let a test serve a tampered,
// stale or absent directory. When the sharded server exists, a test can point at it instead.
import {
  type Directory,
  operatorVkey,
  shardId,
  shardLogName,
  shardPrefix,
  signDirectory,
} from "../../log/shards/mod.ts";
import { c2sp } from "../../log/mod.ts";
import { ed25519PublicKey } from "../../log/crypto.ts";
import { type Service, startService } from "../../fixtures/service.ts";

/** A running sharded service. */
export interface Sharded {
  /** The front: the service root every client is given. */
  url: string;
  /** The instances, shard n at index n. */
  services: Service[];
  /** The operator key's vkey (what `--operator-key` pins). */
  operatorVkey: string;
  /** The log name of shard 0 (the operator key's name). */
  base: string;
  /** The directory as the front serves it now (before `hooks.tamper`). */
  directory(): Promise<Directory>;
  /** The signed note the front serves now. */
  note(): Promise<string>;
  /** Signs `d` with the operator key (or `secret`: another operator). */
  sign(d: Directory, secret?: Uint8Array): string;
  /** Freezes the active shard at its final checkpoints; the next instance becomes active. */
  rotate(): Promise<void>;
  hooks: {
    /** Answer 404 to /v1/logs (a single-shard service). */
    noDirectory?: boolean;
    /** Notes served (in order, once each) before the current one: a stale or tampered directory. */
    queue: string[];
    /** Rewrites the directory before it is signed. */
    tamper?: (d: Directory) => Directory;
    /** Serves this operator vkey in the answer instead of the real one. */
    announce?: string;
    /** The active shard answers appends with 409 shard-frozen too (naming itself). */
    activeFrozen?: boolean;
  };
  /** Requests the front answered, by path (for assertions on what a client asked). */
  seen: string[];
  close(): Promise<void>;
}

/** The instance's log name, signer, vkeys, checkpoints (size and base64 roots) now. */
async function published(s: Service) {
  const key = await (await fetch(`${s.url}/v1/log/key`)).json();
  const cp: Record<string, c2sp.Checkpoint> = {};
  for (const v of ["blake3", "sha256"]) {
    const res = await fetch(`${s.url}/log/${v}/checkpoint`);
    const text = await res.text();
    cp[v] = c2sp.parseCheckpoint(text.slice(0, text.indexOf("\n\n") + 1));
  }
  return { key, cp };
}

/** Starts `n` instances (n shards at most) and the front; shard s0 alone is listed, active. */
export async function startSharded(n: number, base = "sharded.test/log"): Promise<Sharded> {
  const services = await Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        startService({
          JC_STORE: "memory",
          JC_LOG_NAME: shardLogName(base, i),
          JC_BATCH_AGE_MS: "2",
        }),
    ),
  );
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const opVkey = operatorVkey(base, ed25519PublicKey(secret));
  const started = new Date().toISOString();
  const frozen: Directory["shards"] = [];
  const hooks: Sharded["hooks"] = { queue: [] };
  const seen: string[] = [];

  const entryOf = async (i: number) => {
    const { key, cp } = await published(services[i]);
    const size = cp.blake3.size;
    return {
      id: shardId(i),
      log_name: shardLogName(base, i),
      prefix: shardPrefix(i),
      state: "active" as const,
      signer: key.signer as string,
      vkeys: { blake3: key.vkeys.blake3 as string, sha256: key.vkeys.sha256 as string },
      first_time: size ? started : null,
      last_time: size ? new Date().toISOString() : null,
      size,
    };
  };
  const directory = async (): Promise<Directory> => ({
    operator: base,
    issued: new Date().toISOString(),
    shards: [...frozen, await entryOf(frozen.length)],
  });
  const sign = (d: Directory, s = secret) => signDirectory(d, s);
  const note = async () => sign(hooks.tamper ? hooks.tamper(await directory()) : await directory());

  const problem = (status: number, body: Record<string, unknown>) =>
    new Response(JSON.stringify({ status, ...body }), {
      status,
      headers: { "content-type": "application/problem+json" },
    });

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const u = new URL(req.url);
    seen.push(`${req.method} ${u.pathname}`);
    if (u.pathname === "/v1/logs") {
      if (hooks.noDirectory) return problem(404, { code: "not-found", detail: "no such route" });
      const text = hooks.queue.shift() ?? await note();
      const body = {
        operator_vkey: hooks.announce ?? opVkey,
        note: text,
        directory: JSON.parse(text.split("\n")[1]),
      };
      return Response.json(body);
    }
    const m = /^\/shards\/s(\d+)(\/.*)$/.exec(u.pathname);
    const i = m ? Number(m[1]) : 0;
    const path = m ? m[2] : u.pathname;
    if (i >= services.length) return problem(404, { code: "not-found", detail: "no such shard" });
    const active = frozen.length;
    if (req.method === "POST" && path === "/v1/log/entries") {
      if (i < active || (i === active && hooks.activeFrozen)) {
        const next = i < active ? active : i;
        return problem(409, {
          code: "shard-frozen",
          detail: `Cannot append to shard ${shardId(i)}: it is frozen`,
          active: { id: shardId(next), prefix: shardPrefix(next) },
        });
      }
    }
    const headers = new Headers(req.headers);
    for (const h of ["host", "content-length", "connection"]) headers.delete(h);
    const body = req.method === "GET" || req.method === "HEAD"
      ? undefined
      : new Uint8Array(await req.arrayBuffer());
    const res = await fetch(`${services[i].url}${path}${u.search}`, {
      method: req.method,
      headers,
      body,
      redirect: "manual",
    });
    return new Response(res.body, { status: res.status, headers: res.headers });
  });
  const url = `http://127.0.0.1:${server.addr.port}`;

  return {
    url,
    services,
    operatorVkey: opVkey,
    base,
    directory,
    note,
    sign,
    hooks,
    seen,
    async rotate() {
      const i = frozen.length;
      if (i + 1 >= services.length) throw new Error("Cannot rotate: no instance left");
      // The final checkpoints: both views at the tree head's size (publication may lag a moment).
      const deadline = Date.now() + 20_000;
      for (;;) {
        const head = await (await fetch(`${services[i].url}/v1/log/tree-head`)).json();
        const { cp } = await published(services[i]);
        if (cp.blake3.size === head.size && cp.sha256.size === head.size) break;
        if (Date.now() > deadline) throw new Error("Cannot rotate: checkpoints lag the head");
        await new Promise((r) => setTimeout(r, 50));
      }
      const e = await entryOf(i);
      const { cp } = await published(services[i]);
      frozen.push({
        ...e,
        state: "frozen",
        root: { blake3: c2sp.toBase64(cp.blake3.root), sha256: c2sp.toBase64(cp.sha256.root) },
      });
    },
    async close() {
      await server.shutdown();
      await Promise.all(services.map((s) => s.stop()));
    },
  };
}
