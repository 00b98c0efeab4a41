// Stream checks on against off in one run (issue 24: "Appends with stream checks keep ≥ 0.9 of
// today's verified durable appends/s in one `bench http` run (report both)"), the `stream_checks`
// figure of `deno task bench http`: two real services, one with JC_STREAM_CHECKS=on and one with
// off, each in a fresh data directory, driven in turn by the same closed loop (the same raw
// keep-alive client, concurrency and pre-signed JCR-1 envelopes with receipt ids and input
// hashes, which the checks index) for `rounds` alternating windows each, so that the machine's
// drift falls on both alike. Counted are the answers whose head signature and inclusion proof
// verify (checked after each window); the ratio is on's appends/s over off's.
import type { LogClient } from "../../client/mod.ts";
import { LogClient as Client } from "../../client/mod.ts";
import { startService } from "../../fixtures/service.ts";
import { entryLeafHash, toHex } from "../../verify/mod.ts";
import { Conn } from "./_conn.ts";
import { cpuMeter } from "./_server_cpu.ts";

/** A pre-signed envelope and its request (http.ts `Prepared`). */
interface Prepared {
  envelope: Uint8Array;
  req: Uint8Array;
}

/** What the comparison needs from the suite. */
export interface StreamChecksRun {
  /** The next pre-signed envelope and its request. */
  request: () => Promise<Prepared>;
  concurrency: number;
  /** Each window, ms. */
  ms: number;
  /** Windows per setting, alternating on, off, on, off, ... */
  rounds: number;
  /** Extra environment of both services (the verify workers). */
  env: Record<string, string>;
}

interface Side {
  label: "on" | "off";
  url: string;
  pid: number;
  port: number;
  client: LogClient;
  stop: () => Promise<void>;
  appends: number;
  seconds: number;
  serverCpuS: number;
}

async function start(label: "on" | "off", o: StreamChecksRun): Promise<Side> {
  const dir = await Deno.makeTempDir({ prefix: `jc-bench-streams-${label}-` });
  const svc = await startService({ DATA_DIR: dir, JC_STREAM_CHECKS: label, ...o.env });
  return {
    label,
    url: svc.url,
    pid: svc.pid,
    port: Number(new URL(svc.url).port),
    client: new Client(svc.url, svc.signer),
    stop: async () => {
      await svc.stop("SIGTERM");
      await Deno.remove(dir, { recursive: true });
    },
    appends: 0,
    seconds: 0,
    serverCpuS: 0,
  };
}

/**
 * One closed-loop window on `s`, over connections of its own (the other side's window and the
 * checks take longer than the server keeps an idle connection); every answer verified after it.
 */
async function window(s: Side, o: StreamChecksRun): Promise<void> {
  const conns = await Promise.all(Array.from({ length: o.concurrency }, () => Conn.open(s.port)));
  try {
    await timed(s, o, conns);
  } finally {
    for (const c of conns) c.close();
  }
}

async function timed(s: Side, o: StreamChecksRun, conns: Conn[]): Promise<void> {
  const answers: {
    envelope: Uint8Array;
    body: { index: number; leaf_hash: string; tree_head: never; inclusion_proof: string[] };
  }[] = [];
  const cpu = cpuMeter(s.pid);
  const t0 = performance.now();
  const end = t0 + o.ms;
  await Promise.all(conns.map(async (conn) => {
    while (performance.now() < end) {
      const p = await o.request();
      const { status, body } = await conn.send(p.req);
      const json = JSON.parse(new TextDecoder().decode(body));
      if (status !== 201) throw new Error(`Cannot append (${s.label}): ${status}`);
      answers.push({ envelope: p.envelope, body: json });
    }
  }));
  s.seconds += (performance.now() - t0) / 1000;
  s.serverCpuS += cpu().server_cpu_s;
  const heads = new Set<number>();
  for (const a of answers) {
    const b = a.body;
    const size = (b.tree_head as { size: number }).size;
    if (toHex(entryLeafHash(a.envelope)) !== b.leaf_hash) {
      throw new Error(`Cannot bench (${s.label}): entry ${b.index} has another leaf hash`);
    }
    if (!heads.has(size)) {
      await s.client.checkHead(b.tree_head);
      heads.add(size);
    }
    s.client.checkInclusion(b.index, b.leaf_hash, b.inclusion_proof, b.tree_head);
    s.appends++;
  }
}

/** Both settings' verified durable appends/s and their ratio. */
export async function streamChecksLoop(o: StreamChecksRun) {
  const on = await start("on", o);
  const off = await start("off", o).catch(async (e) => {
    await on.stop();
    throw e;
  });
  try {
    // warm-up, then the windows in turn
    for (const s of [on, off]) {
      const c = await Conn.open(s.port);
      for (let i = 0; i < 50; i++) await c.send((await o.request()).req);
      c.close();
    }
    for (let r = 0; r < o.rounds; r++) {
      for (const s of r % 2 ? [off, on] : [on, off]) await window(s, o);
    }
    const rate = (s: Side) => Math.round(s.appends / s.seconds);
    const side = (s: Side) => ({
      verified_durable_appends_per_s: rate(s),
      appends: s.appends,
      seconds: Math.round(s.seconds * 100) / 100,
      server_cpu_us_per_append: Math.round((s.serverCpuS * 1e6) / Math.max(1, s.appends)),
    });
    return {
      on: side(on),
      off: side(off),
      ratio_on_to_off: Math.round((rate(on) / rate(off)) * 1000) / 1000,
      cpu_ratio_off_to_on: Math.round(
        ((off.serverCpuS / off.appends) / (on.serverCpuS / on.appends)) * 1000,
      ) / 1000,
      goal_ratio: 0.9,
      rounds: o.rounds,
      window_ms: o.ms,
      note: "two services (JC_STREAM_CHECKS on / off), fresh data dirs, the same closed loop in " +
        "alternating windows (on, off, then off, on, ...)",
    };
  } finally {
    await on.stop();
    await off.stop();
  }
}
