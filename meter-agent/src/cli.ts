// The meter agent's command line (meter-agent/README.md):
//   --probe                      print, as JSON, what each rung found (live / declined and why)
//   --once                       print one graded reading's JSON projection
//   --server URL --key FILE      stream signed readings to URL/v1/readings, every --interval S
// Options: --sysfs DIR (default /sys), --spool DIR, --interval S, --rungs rapl,nvml,ina3221,
// --nvml-lib PATH, --default-power-w W, --host NAME, --reprobe S, --sample-ms MS,
// --timeout S (deadline of one delivery batch, default 30; docs/CLIENTS.md).

import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import {
  decodeCbor,
  ed25519GenerateSecret,
  encodeCbor,
  fromHex,
  toHex,
  toJson,
} from "../../verify/mod.ts";
import { realClock } from "./clock.ts";
import { Deliverer } from "./deliver.ts";
import { type Calibration, Meter, type Sources } from "./meter.ts";
import { GENESIS, type Identity, identityFromSecret, readingCore, signReading } from "./reading.ts";
import { discoverIna3221 } from "./sources/ina3221.ts";
import { discoverNvml } from "./sources/nvml.ts";
import { loadNvmlFfi } from "./sources/nvml_ffi.ts";
import { discoverRapl } from "./sources/rapl.ts";
import type { Domain, Rung } from "./sources/types.ts";
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
  timeout: number;
}

/** A usage error (exit status 2). */
export class UsageError extends Error {}

function num(flag: string, v: string | undefined, min: number): number {
  const n = Number(v);
  if (v === undefined || !Number.isFinite(n) || n < min) {
    throw new UsageError(`Cannot parse ${flag}: expected a number >= ${min}, got ${v}`);
  }
  return n;
}

/** Parses argv (without the program name). */
export function parseArgs(argv: string[]): CliArgs {
  const a: CliArgs = {
    mode: "stream",
    interval: 10,
    sysfs: "/sys",
    spool: "./meter-agent-spool",
    defaultPowerW: 100,
    host: hostname(),
    reprobe: 60,
    timeout: 30,
  };
  let mode: CliArgs["mode"] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i];
    const v = () => {
      const x = argv[++i];
      if (x === undefined) throw new UsageError(`Cannot parse ${f}: it needs a value`);
      return x;
    };
    switch (f) {
      case "--probe":
      case "--once":
        if (mode) throw new UsageError("Cannot parse arguments: --probe and --once are exclusive");
        mode = f === "--probe" ? "probe" : "once";
        break;
      case "--server":
        a.server = v();
        break;
      case "--key":
        a.key = v();
        break;
      case "--interval":
        a.interval = num(f, v(), 0.05);
        break;
      case "--sysfs":
        a.sysfs = v();
        break;
      case "--spool":
        a.spool = v();
        break;
      case "--nvml-lib":
        a.nvmlLib = v();
        break;
      case "--default-power-w":
        a.defaultPowerW = num(f, v(), 0);
        break;
      case "--host":
        a.host = v();
        break;
      case "--reprobe":
        a.reprobe = num(f, v(), 0);
        break;
      case "--timeout":
        a.timeout = num(f, v(), 0.05);
        break;
      case "--sample-ms":
        a.sampleMs = num(f, v(), 10);
        break;
      case "--rungs": {
        const rs = v().split(",").map((s) => s.trim()).filter(Boolean);
        for (const r of rs) {
          if (!["rapl", "nvml", "ina3221"].includes(r)) {
            throw new UsageError(`Cannot parse --rungs: unknown rung ${r}`);
          }
        }
        a.rungs = rs as Rung[];
        break;
      }
      default:
        throw new UsageError(`Cannot parse arguments: unknown option ${f}`);
    }
  }
  a.mode = mode ?? "stream";
  if (a.mode === "stream" && (!a.server || !a.key)) {
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
    console.error((e as Error).message);
    return 2;
  }
  const sources = discoverSources(a);
  const spool = a.mode === "stream" ? new Spool(a.spool) : undefined;
  const meter = new Meter(sources, realClock, {
    rungs: a.rungs,
    defaultPowerMw: Math.round(a.defaultPowerW * 1000),
    reprobeMs: a.reprobe * 1000,
    sampleMs: a.sampleMs,
    calibration: spool?.readJson("calibration.json") as
      | Partial<Record<Domain, Calibration>>
      | undefined,
    onCalibrate: (c) => spool?.writeJson("calibration.json", c),
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
  let head = spool!.open(id.did);
  const deliverer = new Deliverer(spool!, a.server!, {
    log: (m) => console.error(`meter-agent: ${m}`),
    timeoutMs: Math.round(a.timeout * 1000),
  });
  const delivering = deliverer.run();
  let running = true;
  const stop = () => {
    running = false;
    deliverer.stop();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  console.error(
    `meter-agent: ${id.did} streaming to ${a.server} every ${a.interval} s from seq ${head.seq}`,
  );
  while (running) {
    const span = await meter.span(a.interval * 1000);
    const envelope = signReading(readingCore(span, id, a.host, head), id);
    head = spool!.append(id.did, head.seq, envelope);
    deliverer.kick();
  }
  await delivering;
  return 0;
}
