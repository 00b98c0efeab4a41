// Test doubles: a sysfs tree in memory whose files are computed from a scripted clock, and a
// scripted NVML. Every fake is driven by ScriptedClock, so each interval the probe sees is exact.

import { SysFs, SysFsError } from "../src/sysfs.ts";
import { type NvmlApi, NvmlError } from "../src/sources/nvml.ts";
import type { ScriptedClock } from "../src/clock.ts";

/** A file's content: fixed text, computed text, or an errno. */
export type FakeFile = string | (() => string) | { errno: string };

/** A sysfs tree in memory. */
export function memorySysFs(files: Record<string, FakeFile>): SysFs {
  const get = (p: string): string => {
    const f = files[p];
    if (f === undefined) throw new SysFsError("ENOENT", `Cannot read /fake/${p}: ENOENT`);
    if (typeof f === "string") return f.trim();
    if (typeof f === "function") return f().trim();
    throw new SysFsError(f.errno, `Cannot read /fake/${p}: ${f.errno}`);
  };
  return {
    root: "/fake",
    readText: get,
    list(p: string) {
      const pre = p.endsWith("/") ? p : `${p}/`;
      const names = new Set(
        Object.keys(files).filter((k) => k.startsWith(pre)).map((k) =>
          k.slice(pre.length).split("/")[0]
        ),
      );
      if (names.size === 0) throw new SysFsError("ENOENT", `Cannot read /fake/${p}: ENOENT`);
      return [...names].sort();
    },
  };
}

/** A RAPL zone: `energy(us)` gives its raw energy_uj at monotonic time `us`. */
export interface FakeZone {
  id: string; // "intel-rapl:0"
  name: string; // "package-0"
  max?: number;
  energy: (us: number) => number;
  unreadable?: boolean;
}

/** The powercap files of the zones, read at `clock`'s time. */
export function raplFiles(clock: ScriptedClock, zones: FakeZone[]): Record<string, FakeFile> {
  const out: Record<string, FakeFile> = {};
  for (const z of zones) {
    const d = `class/powercap/${z.id}`;
    const max = z.max ?? 262_143_328_850;
    out[`${d}/name`] = z.name;
    out[`${d}/max_energy_range_uj`] = String(max);
    out[`${d}/energy_uj`] = z.unreadable
      ? { errno: "EACCES" }
      : () => String(z.energy(clock.monoUs()) % (max + 1));
  }
  out["class/powercap/intel-rapl/enabled"] = "1";
  return out;
}

/** A steady draw of `watts` from `e0` µJ: W × µs = µJ. */
export const steady = (watts: number, e0 = 0) => (us: number) => e0 + Math.floor(watts * us);
/** Frozen at `v`. */
export const frozen = (v = 123_456) => (_us: number) => v;
/** Republished every `periodUs` (a counter updated in lumps). */
export const lumps = (watts: number, periodUs: number) => (us: number) =>
  Math.floor(us / periodUs) * Math.floor(watts * periodUs);

/** A scripted NVML device. */
export interface FakeGpu {
  name?: string;
  /** Counter mJ at time us, or an NVML error code. */
  energyMj: (us: number) => number;
  /** Draw samples in mW, taken in order (cycled); or undefined: not readable. */
  draws?: number[];
  limitMw?: number;
  energyError?: number;
}

/** A scripted NvmlApi. */
export function fakeNvml(clock: ScriptedClock, gpus: FakeGpu[]): NvmlApi {
  const drawAt = gpus.map(() => 0);
  return {
    deviceCount: () => gpus.length,
    deviceName: (i) => gpus[i].name ?? "Fake GPU",
    totalEnergyMj(i) {
      if (gpus[i].energyError !== undefined) {
        throw new NvmlError("nvmlDeviceGetTotalEnergyConsumption", gpus[i].energyError!);
      }
      return gpus[i].energyMj(clock.monoUs());
    },
    powerUsageMw(i) {
      const d = gpus[i].draws;
      if (!d) throw new NvmlError("nvmlDeviceGetPowerUsage", 3);
      return d[drawAt[i]++ % d.length];
    },
    enforcedPowerLimitMw(i) {
      if (gpus[i].limitMw === undefined) throw new NvmlError("nvmlDeviceGetEnforcedPowerLimit", 3);
      return gpus[i].limitMw!;
    },
  };
}

/** mJ counter of a steady `watts` draw: W × µs / 1000 = mJ. */
export const steadyMj = (watts: number, e0 = 1_000_000) => (us: number) =>
  e0 + Math.floor((watts * us) / 1000);
