// meter-agent overhead: CPU and RSS of the bundled agent under Node (/usr/bin/node) while it
// streams at a 1 s interval (fake sysfs RAPL tree kept live by this suite, a stub /v1/readings on
// 127.0.0.1), measured from /proc over a steady window after the start-up probe. Beside it, the
// machine's own baseline in the same run: an idle Node process's CPU and RSS.
import { buildAgent } from "../../meter-agent/build.ts";
import {
  decodeCbor,
  ed25519GenerateSecret,
  fromHex,
  parseCoseSign1,
  toHex,
} from "../../verify/mod.ts";
import { ms } from "./_short.ts";

const NODE = "/usr/bin/node";
const TICKS = 100; // USER_HZ on Linux

function procStat(pid: number): { cpuS: number; rssKiB: number } {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const cpuS = (Number(f[11]) + Number(f[12])) / TICKS; // utime + stime
  const rss = /VmRSS:\s+(\d+)/.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
  return { cpuS, rssKiB: rss ? Number(rss[1]) : NaN };
}

async function measure(pid: number, ms: number) {
  const a = procStat(pid);
  const t0 = performance.now();
  let peak = a.rssKiB;
  while (performance.now() - t0 < ms) {
    await new Promise((r) => setTimeout(r, 500));
    peak = Math.max(peak, procStat(pid).rssKiB);
  }
  const b = procStat(pid);
  const wall = (performance.now() - t0) / 1000;
  return {
    cpu_percent: Math.round(((b.cpuS - a.cpuS) / wall) * 1000) / 10,
    rss_mib: Math.round(b.rssKiB / 102.4) / 10,
    peak_rss_mib: Math.round(peak / 102.4) / 10,
    window_s: Math.round(wall),
  };
}

export default async function (): Promise<Record<string, unknown>> {
  const tmp = await Deno.makeTempDir({ prefix: "bench-agent-" });
  const bundle = await buildAgent(`${tmp}/dist`);
  const zone = `${tmp}/sys/class/powercap/intel-rapl:0`;
  await Deno.mkdir(zone, { recursive: true });
  await Deno.writeTextFile(`${zone}/name`, "package-0");
  await Deno.writeTextFile(`${zone}/max_energy_range_uj`, "262143328850");
  const t0 = performance.now();
  const write = () =>
    Deno.writeTextFileSync(
      `${zone}/energy_uj`,
      String(Math.floor((performance.now() - t0) * 30_000)),
    );
  write();
  const feeder = setInterval(write, 5);
  await Deno.writeTextFile(`${tmp}/key`, toHex(ed25519GenerateSecret()));
  let index = 0;
  let received = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.json() as { envelopes: string[] };
    received += body.envelopes.length;
    const seqOf = (h: string) =>
      Number((decodeCbor(parseCoseSign1(fromHex(h)).payload) as Map<string, unknown>).get("seq"));
    return Response.json({
      results: body.envelopes.map((h) => ({ seq: seqOf(h), index: index++ })),
    });
  });
  const url = `http://127.0.0.1:${server.addr.port}`;
  const agent = new Deno.Command(NODE, {
    args: [
      bundle,
      "--server",
      url,
      "--key",
      `${tmp}/key`,
      "--interval",
      "1",
      "--sysfs",
      `${tmp}/sys`,
      "--spool",
      `${tmp}/spool`,
      "--rungs",
      "rapl",
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const idle = new Deno.Command(NODE, {
    args: ["-e", "setInterval(() => {}, 1000)"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await new Promise((r) => setTimeout(r, ms(5000))); // start-up and the first liveness probe (its CPU burn)
    const [streaming, baseline] = await Promise.all([
      measure(agent.pid, ms(20_000)),
      measure(idle.pid, ms(20_000)),
    ]);
    return {
      streaming_1s_interval: streaming,
      readings_delivered: received,
      baseline_idle_node: baseline,
      note:
        "RAPL rung, reprobe every 60 s (each probe burns ~0.3 s of CPU on purpose, JCP §5); window excludes start-up",
    };
  } finally {
    clearInterval(feeder);
    agent.kill("SIGKILL");
    idle.kill("SIGKILL");
    await agent.status;
    await idle.status;
    await server.shutdown();
    await Deno.remove(tmp, { recursive: true });
  }
}
