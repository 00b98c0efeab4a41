// The meter agent's command line (meter-agent/README.md):
//   --probe                      print, as JSON, what each rung found (live / declined and why)
//   --once                       print one graded reading's JSON projection
//   --server URL --key FILE      stream signed readings to URL/v1/readings, every --interval S
// Options: --sysfs DIR (default /sys), --spool DIR, --interval S, --rungs rapl,nvml,ina3221,
// --nvml-lib PATH, --default-power-w W, --host NAME, --reprobe S, --sample-ms MS,
// --timeout S (deadline of one delivery batch, default 30; docs/CLIENTS.md).

import { existsSync, readFileSync } from "node:fs";
import {
  type CommandSpec,
  flag,
  num,
  parseArgs as parseCommandArgs,
  str,
  UsageError,
  usageText,
} from "../../cli/mod.ts";
import { hostname } from "node:os";
import {
  decodeCbor,
  ed25519GenerateSecret,
  encodeCbor,
  fromHex,
  toHex,
  toJson,
} from "../../verify/mod.ts";
import { request } from "../../net/mod.ts";
import { realClock } from "./clock.ts";
import { Deliverer } from "./deliver.ts";
import { type GradedSpan, Meter, type Sources } from "./meter.ts";
import {
  type ChainHead,
  type GapReason,
  GENESIS,
  type Identity,
  identityFromSecret,
  readingCore,
  signReading,
} from "./reading.ts";
import { discoverIna3221 } from "./sources/ina3221.ts";
import { discoverNvml } from "./sources/nvml.ts";
import { loadNvmlFfi } from "./sources/nvml_ffi.ts";
import { discoverRapl } from "./sources/rapl.ts";
import type { Rung } from "./sources/types.ts";
import { Spool, writeDurable } from "./spool.ts";
import { nodeSysFs } from "./sysfs.ts";

/** Parsed command line. */
export interface CliArgs {
  mode: "probe" | "once" | "stream";
  server?: string;
  key?: string;
  interval: number;
  sysfs: string;
  spool: string;
  rungs?: Rung[];
  nvmlLib?: string;
  defaultPowerW: number;
  host: string;
  reprobe: number;
  sampleMs?: number;
  /** No line per delivered batch. */
  quiet: boolean;
  /** --help was given. */
  help: boolean;
  /** Refusals before a reading is parked (default 10). */
  parkAfter: number;
  /** Deadline of one delivery batch, seconds (docs/CLIENTS.md). */
  timeout: number;
}

export { UsageError };

/** The agent's declaration (cli/args.ts): its parser and its --help come from it. */
export const AGENT: CommandSpec = {
  name: "node meter-agent/dist/meter-agent.mjs",
  summary:
    "Streams signed meter-reading/1 energy readings from this host's counters (RAPL, NVML, " +
    "INA3221, else a model or an estimate; JCP §5.1) to a log's POST /v1/readings. With --probe " +
    "or --once it prints what it found and exits; otherwise --server and --key are required and " +
    "it runs until SIGINT/SIGTERM, logging each delivered batch on one line (stderr).",
  options: [
    { name: "probe", help: "print, as JSON, what each rung found (live / declined and why)" },
    { name: "once", help: "print one graded reading's JSON projection" },
    { name: "server", value: "URL", help: "the log service to stream to" },
    {
      name: "key",
      value: "FILE",
      help: "the agent's Ed25519 secret, 64 hex (created 0600 when absent)",
    },
    { name: "interval", value: "S", help: "seconds per reading (default 10)" },
    { name: "sysfs", value: "DIR", help: "read counters under DIR (default /sys)" },
    { name: "spool", value: "DIR", help: "unsent readings (default ./meter-agent-spool)" },
    { name: "rungs", value: "LIST", help: "rapl,nvml,ina3221 (default all)" },
    { name: "nvml-lib", value: "PATH", help: "NVML library (default libnvidia-ml.so.1)" },
    { name: "default-power-w", value: "W", help: "the Estimator's power (default 100)" },
    { name: "host", value: "NAME", help: "host name in the readings (default: this host's)" },
    { name: "reprobe", value: "S", help: "re-run the liveness probe every S seconds (default 60)" },
    { name: "sample-ms", value: "MS", help: "span sampling tick (1000 counters, 100 INA3221)" },
    {
      name: "timeout",
      value: "S",
      help: "deadline of one delivery batch, seconds (default 30; docs/CLIENTS.md)",
    },
    {
      name: "park-after",
      value: "N",
      help: "refusals before a reading is parked in <spool>/parked (default 10)",
    },
    { name: "quiet", short: "q", help: "do not log delivered batches (errors are still logged)" },
  ],
  footer: "Exit status: 0 done (or stopped by a signal), 1 a fault, 2 usage.",
};

/** Parses argv (without the program name); throws UsageError. */
export function parseArgs(argv: string[]): CliArgs {
  const p = parseCommandArgs(argv, AGENT);
  const a: CliArgs = {
    mode: "stream",
    interval: num(p, "interval", 10, 0.05),
    sysfs: str(p, "sysfs") ?? "/sys",
    spool: str(p, "spool") ?? "./meter-agent-spool",
    defaultPowerW: num(p, "default-power-w", 100, 0),
    host: str(p, "host") ?? hostname(),
    reprobe: num(p, "reprobe", 60, 0),
    server: str(p, "server"),
    key: str(p, "key"),
    nvmlLib: str(p, "nvml-lib"),
    timeout: num(p, "timeout", 30, 0.05),
    parkAfter: Math.floor(num(p, "park-after", 10, 1)),
    quiet: flag(p, "quiet"),
    help: p.help,
  };
  if (p.options["sample-ms"] !== undefined) a.sampleMs = num(p, "sample-ms", 0, 10);
  const rungs = str(p, "rungs");
  if (rungs !== undefined) {
    const rs = rungs.split(",").map((s) => s.trim()).filter(Boolean);
    for (const r of rs) {
      if (!["rapl", "nvml", "ina3221"].includes(r)) {
        throw new UsageError(`Cannot parse --rungs: unknown rung ${r}`);
      }
    }
    a.rungs = rs as Rung[];
  }
  if (flag(p, "probe") && flag(p, "once")) {
    throw new UsageError("Cannot parse arguments: --probe and --once are exclusive");
  }
  a.mode = flag(p, "probe") ? "probe" : flag(p, "once") ? "once" : "stream";
  if (!a.help && a.mode === "stream" && (!a.server || !a.key)) {
    throw new UsageError("Cannot stream: --server URL and --key FILE are required");
  }
  return a;
}

/** Reads (or, when absent, creates with mode 0600) a key file holding a 32-byte secret as hex. */
export function loadKey(path: string): Identity {
  if (!existsSync(path)) writeDurable(path, toHex(ed25519GenerateSecret()) + "\n");
  const hex = readFileSync(path, "utf8").trim();
  const secret = fromHex(hex);
  if (secret.length !== 32) {
    throw new UsageError(
      `Cannot load key ${path}: expected 64 hex digits (a 32-byte Ed25519 secret)`,
    );
  }
  return identityFromSecret(secret);
}

/**
 * The chain head the service holds for `did` (GET /v1/agents/{did}): its next seq and prev; the
 * genesis head when the service has no reading of it (404: not registered yet, so none accepted).
 * Retries with backoff (up to 30 s) while the service is unreachable; undefined once stopped. Each
 * try goes through net/ within `timeoutMs` (docs/CLIENTS.md), so a hostile service costs a deadline.
 */
export async function serverHead(
  server: string,
  did: string,
  log: (m: string) => void,
  running: () => boolean,
  timeoutMs = 30_000,
): Promise<ChainHead | undefined> {
  for (let delay = 250; running(); delay = Math.min(30_000, delay * 2)) {
    try {
      const r = await request(new URL(`/v1/agents/${encodeURIComponent(did)}`, server), {
        kind: "json",
        totalMs: timeoutMs,
        connectMs: Math.min(timeoutMs, 10_000),
      });
      if (r.status === 404) return GENESIS;
      if (r.status === 200) {
        const j = r.json() as {
          next_seq: number;
          prev: string;
          last_end?: unknown;
          calibrations?: unknown;
        };
        if (Number.isSafeInteger(j.next_seq) && /^[0-9a-f]{64}$/.test(j.prev)) {
          const h: ChainHead = { seq: j.next_seq, prev: j.prev };
          if (Number.isSafeInteger(j.last_end)) h.end = j.last_end as number;
          if (j.calibrations && typeof j.calibrations === "object") {
            h.calibrations = j.calibrations as ChainHead["calibrations"];
          }
          return h;
        }
        throw new Error(`the answer has no next_seq/prev: ${JSON.stringify(j).slice(0, 200)}`);
      }
      throw new Error(`HTTP ${r.status}`);
    } catch (e) {
      log(`Cannot read the chain head from ${server}: ${(e as Error).message}; retrying`);
      await new Promise((res) => setTimeout(res, delay * (0.5 + Math.random() / 2)));
    }
  }
  return undefined;
}

/** The agent's counters in the Prometheus text format (for node_exporter's textfile collector). */
export function agentMetrics(
  did: string,
  c: { acked: number; parked: number; resumed: number },
): string {
  const l = `{agent="${did}"}`;
  return [
    "# HELP jc_agent_readings_acked_total Readings the service acknowledged with a log index.",
    "# TYPE jc_agent_readings_acked_total counter",
    `jc_agent_readings_acked_total${l} ${c.acked}`,
    "# HELP jc_agent_readings_parked_total Readings refused too often, moved to <spool>/parked.",
    "# TYPE jc_agent_readings_parked_total counter",
    `jc_agent_readings_parked_total${l} ${c.parked}`,
    "# HELP jc_agent_chain_resumed_total Times the chain head was taken from the service.",
    "# TYPE jc_agent_chain_resumed_total counter",
    `jc_agent_chain_resumed_total${l} ${c.resumed}`,
    "",
  ].join("\n");
}

/** Discovers every source the arguments allow; NVML (and koffi) are loaded only when allowed. */
export function discoverSources(a: CliArgs): Sources {
  const fs = nodeSysFs(a.sysfs);
  const allowed = (r: Rung) => !a.rungs || a.rungs.includes(r);
  const s: Sources = {};
  if (allowed("rapl")) s.rapl = discoverRapl(fs);
  if (allowed("nvml")) {
    try {
      s.nvml = discoverNvml(loadNvmlFfi(a.nvmlLib));
    } catch (e) {
      s.nvml = discoverNvml(undefined, (e as Error).message);
    }
  }
  if (allowed("ina3221")) s.ina3221 = discoverIna3221(fs);
  return s;
}

/** Runs the agent; resolves with the exit status (streaming runs until a signal). */
export async function main(
  argv: string[],
  out: (s: string) => void = console.log,
): Promise<number> {
  let a: CliArgs;
  try {
    a = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`meter-agent: ${e.message}\n\n${usageText(AGENT)}`);
    return 2;
  }
  if (a.help) {
    out(usageText(AGENT));
    return 0;
  }
  const sources = discoverSources(a);
  const spool = a.mode === "stream" ? new Spool(a.spool) : undefined;
  const meter = new Meter(sources, realClock, {
    rungs: a.rungs,
    defaultPowerMw: Math.round(a.defaultPowerW * 1000),
    reprobeMs: a.reprobe * 1000,
    sampleMs: a.sampleMs,
    // no span starts before the chain's last one ended (reading-overlap), whatever the clock did
    notBefore: spool && !spool.isFresh() ? spool.signedEnd() : undefined,
  });
  if (a.mode === "probe") {
    out(JSON.stringify({ host: a.host, sysfs: a.sysfs, ...(await meter.probeAll()) }, null, 2));
    return 0;
  }
  const id = a.key ? loadKey(a.key) : identityFromSecret(ed25519GenerateSecret());
  if (a.mode === "once") {
    const span = await meter.span(a.interval * 1000);
    const core = readingCore(span, id, a.host, GENESIS);
    signReading(core, id);
    out(JSON.stringify(toJson(decodeCbor(encodeCbor(core))), null, 2));
    return 0;
  }
  const log = (m: string) => console.error(`meter-agent: ${m}`);
  const counters = { acked: 0, parked: 0, resumed: 0 };
  const writeMetrics = () => spool!.writeText("meter-agent.prom", agentMetrics(id.did, counters));
  let running = true;
  const timeoutMs = Math.round(a.timeout * 1000);
  // The chain head, or undefined while it is being read from the service (a new or lost spool,
  // or readings parked): metering goes on meanwhile, each span stashed unsigned in the spool and
  // signed, in order, once the head is known. Nothing measured waits on the service.
  let head: ChainHead | undefined;
  let headWait: Promise<void> | undefined;
  // why the next span may not start where the chain's last one ended: this run began, or the
  // readings in between were refused and parked (docs/METER-READING.md `gap`)
  let gap: GapReason = "restart";
  // A model figure names the chain's latest HwShunt reading of its domain (JCP §5.1 rung 5):
  // the meter calibrates from the head, and from nothing while the head is unknown.
  const setHead = (h: ChainHead | undefined) => {
    head = h;
    meter.calibration = { ...h?.calibrations };
  };
  const sign = (span: GradedSpan) => {
    const envelope = signReading(readingCore(span, id, a.host, head!, gap), id);
    setHead(spool!.append(id.did, head!, envelope));
  };
  const signStashed = () => {
    const signedEnd = spool!.signedEnd();
    for (const { n, span } of spool!.stashed()) {
      if (span.end > signedEnd) sign(span); // else: signed before a crash that left its stash behind
      spool!.unstash(n);
    }
  };
  const resumeFromService = (what: string) => {
    setHead(undefined);
    headWait = serverHead(a.server!, id.did, log, () => running, timeoutMs).then((h) => {
      if (h === undefined) return; // stopped while waiting: the stash stays for the next start
      spool!.resume(id.did, h);
      setHead(h);
      counters.resumed++;
      writeMetrics();
      log(`${what} at seq ${h.seq}`);
      signStashed();
      deliverer.kick();
    });
  };
  let resync = false;
  const deliverer = new Deliverer(spool!, a.server!, {
    log,
    delivered: a.quiet ? undefined : (b) =>
      console.error(
        `meter-agent: delivered ${b.count} reading(s), seq ${b.firstSeq}..${b.lastSeq}, ` +
          `log index ${b.firstIndex}..${b.lastIndex}, to ${a.server}`,
      ),
    timeoutMs: Math.round(a.timeout * 1000),
    parkAfter: a.parkAfter,
    onPark: (seqs) => {
      resync = true;
      gap = "refused";
      counters.parked += seqs.length;
      writeMetrics();
    },
    onAck: (n) => (counters.acked += n, writeMetrics()),
  });
  if (spool!.isFresh()) {
    // The spool is lost (or new): continue the chain where the service has it, never at seq 0.
    resumeFromService(`spool ${a.spool} has no chain: resumed from the service`);
  } else {
    setHead(spool!.open(id.did));
    signStashed(); // spans stashed before a restart, while the head was being read
  }
  writeMetrics();
  const delivering = deliverer.run();
  const stop = () => {
    running = false;
    deliverer.stop();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  console.error(
    `meter-agent: ${id.did} streaming to ${a.server} every ${a.interval} s ` +
      (head ? `from seq ${head.seq}` : "(the chain continues from the service's head)"),
  );
  while (running) {
    const span = await meter.span(a.interval * 1000);
    if (resync && head !== undefined) {
      // Readings were parked: what follows them cannot chain from them. Continue from the
      // service's head (the last reading it accepted).
      resync = false;
      resumeFromService("chain resumed from the service");
    }
    if (head === undefined) {
      spool!.stash(span); // durable; signed once the head is known
      continue;
    }
    sign(span);
    deliverer.kick();
  }
  await headWait;
  await delivering;
  return 0;
}
