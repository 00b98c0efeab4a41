// JCP §5.1 rung 2: NVIDIA NVML's GPU total-energy counter → HwShunt, Partial (JCP §5.2: it reads
// the GPU and not the CPU's share of the work). Three NVML calls per device: the counter
// `nvmlDeviceGetTotalEnergyConsumption` (mJ, Volta and newer), and the two bounds read
// independently of it that JCP §5 Plausibility checks it against: `nvmlDeviceGetPowerUsage` (the
// board's draw, mW) and `nvmlDeviceGetEnforcedPowerLimit` (a static limit, mW). nvidia-smi has no
// energy field, so this goes through the library itself (nvml_ffi.ts), injected here as `NvmlApi`.

import type { CounterSet, Found } from "./types.ts";

/** NVML return codes used here (nvml.h `nvmlReturn_t`). */
export const NVML = {
  SUCCESS: 0,
  ERROR_UNINITIALIZED: 1,
  ERROR_INVALID_ARGUMENT: 2,
  ERROR_NOT_SUPPORTED: 3,
  ERROR_NO_PERMISSION: 4,
  ERROR_GPU_IS_LOST: 15,
  ERROR_UNKNOWN: 999,
} as const;

/** A call that returned an NVML error code. */
export class NvmlError extends Error {
  readonly nvmlCode: number;
  constructor(call: string, nvmlCode: number) {
    super(`Cannot call ${call}: NVML error ${nvmlCode}`);
    this.name = "NvmlError";
    this.nvmlCode = nvmlCode;
  }
}

/** The NVML calls the agent makes; each throws NvmlError on a non-success return. */
export interface NvmlApi {
  deviceCount(): number;
  deviceName(i: number): string;
  totalEnergyMj(i: number): number;
  powerUsageMw(i: number): number;
  enforcedPowerLimitMw(i: number): number;
}

function optional(f: () => number): number | undefined {
  try {
    return f();
  } catch (e) {
    if (e instanceof NvmlError) return undefined;
    throw e;
  }
}

/** Checks every device's energy counter answers; the rung is declined when any does not. */
export function discoverNvml(api: NvmlApi | undefined, loadError?: string): Found<CounterSet> {
  if (!api) {
    return {
      ok: false,
      decline: { rung: "nvml", reason: "rung-absent", detail: loadError ?? "NVML not loaded" },
    };
  }
  let n: number;
  try {
    n = api.deviceCount();
  } catch (e) {
    return {
      ok: false,
      decline: { rung: "nvml", reason: "rung-unreadable", detail: (e as Error).message },
    };
  }
  if (n === 0) {
    return {
      ok: false,
      decline: { rung: "nvml", reason: "rung-absent", detail: "NVML reports no device" },
    };
  }
  const names: string[] = [];
  for (let i = 0; i < n; i++) {
    let name = `gpu${i}`;
    try {
      name = `gpu${i}:${api.deviceName(i)}`;
    } catch { /* the name is only a label */ }
    names.push(name);
    try {
      api.totalEnergyMj(i);
    } catch (e) {
      // NVML_ERROR_NOT_SUPPORTED: pre-Volta boards (and some laptops) have no energy counter.
      const code = e instanceof NvmlError && e.nvmlCode === NVML.ERROR_NOT_SUPPORTED
        ? "counter-not-supported"
        : "read-failed";
      return {
        ok: false,
        decline: { rung: "nvml", reason: code, detail: `${name}: ${(e as Error).message}` },
      };
    }
  }
  const idx = [...names.keys()];
  return {
    ok: true,
    source: {
      kind: "counter",
      rung: "nvml",
      domain: "gpu",
      partial: true,
      resolutionUj: 1000,
      unitUj: 1000,
      burn: false,
      names,
      maxRange: names.map(() => undefined),
      read: () => idx.map((i) => api.totalEnergyMj(i)),
      limitsMw: () => idx.map((i) => optional(() => api.enforcedPowerLimitMw(i))),
      drawsMw: () => idx.map((i) => optional(() => api.powerUsageMw(i))),
    },
  };
}
