// NVML through FFI (koffi 2.x, loaded lazily: the agent runs without it where NVML is not used).
// Bindings follow nvml.h: nvmlInit_v2, nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2,
// nvmlDeviceGetName, nvmlDeviceGetTotalEnergyConsumption (unsigned long long mJ),
// nvmlDeviceGetPowerUsage (unsigned int mW), nvmlDeviceGetEnforcedPowerLimit (unsigned int mW).

import { createRequire } from "node:module";
import { type NvmlApi, NvmlError } from "./nvml.ts";

// deno-lint-ignore no-explicit-any
type Fn = (...args: any[]) => number;

/**
 * Loads koffi (from `node_modules/koffi` beside the bundle, or the project's) and `libPath`
 * (default `libnvidia-ml.so.1`), and initialises NVML. Throws an Error saying which step failed.
 */
export function loadNvmlFfi(libPath = "libnvidia-ml.so.1"): NvmlApi {
  let koffi;
  try {
    koffi = createRequire(import.meta.url)("koffi");
  } catch (e) {
    throw new Error(
      `Cannot load koffi (the FFI module NVML needs): ${(e as Error).message.split("\n")[0]}`,
    );
  }
  let lib;
  try {
    lib = koffi.load(libPath);
  } catch (e) {
    throw new Error(`Cannot load ${libPath}: ${(e as Error).message.split("\n")[0]}`);
  }
  const dev = koffi.pointer("nvmlDevice_t", koffi.opaque());
  const f = (proto: string): Fn => lib.func(proto);
  const init: Fn = f("int nvmlInit_v2()");
  const count: Fn = f("int nvmlDeviceGetCount_v2(_Out_ unsigned int *count)");
  const handle: Fn = lib.func("nvmlDeviceGetHandleByIndex_v2", "int", [
    "unsigned int",
    koffi.out(koffi.pointer(dev)),
  ]);
  const name: Fn = lib.func("nvmlDeviceGetName", "int", [
    dev,
    koffi.out(koffi.pointer("uint8_t")),
    "unsigned int",
  ]);
  const energy: Fn = lib.func("nvmlDeviceGetTotalEnergyConsumption", "int", [
    dev,
    koffi.out(koffi.pointer("uint64_t")),
  ]);
  const power: Fn = lib.func("nvmlDeviceGetPowerUsage", "int", [
    dev,
    koffi.out(koffi.pointer("unsigned int")),
  ]);
  const limit: Fn = lib.func("nvmlDeviceGetEnforcedPowerLimit", "int", [
    dev,
    koffi.out(koffi.pointer("unsigned int")),
  ]);
  const check = (call: string, rc: number) => {
    if (rc !== 0) throw new NvmlError(call, rc);
  };
  check("nvmlInit_v2", init());
  const handles: unknown[] = [];
  const getHandle = (i: number): unknown => {
    if (handles[i] === undefined) {
      const out: unknown[] = [null];
      check("nvmlDeviceGetHandleByIndex_v2", handle(i, out));
      handles[i] = out[0];
    }
    return handles[i];
  };
  const outNum = (call: string, fn: Fn, i: number): number => {
    const out: (number | bigint)[] = [0];
    check(call, fn(getHandle(i), out));
    return Number(out[0]);
  };
  return {
    deviceCount() {
      const out = [0];
      check("nvmlDeviceGetCount_v2", count(out));
      return out[0];
    },
    deviceName(i) {
      const buf = new Uint8Array(96);
      check("nvmlDeviceGetName", name(getHandle(i), buf, buf.length));
      const end = buf.indexOf(0);
      return new TextDecoder().decode(buf.subarray(0, end < 0 ? buf.length : end));
    },
    totalEnergyMj: (i) => outNum("nvmlDeviceGetTotalEnergyConsumption", energy, i),
    powerUsageMw: (i) => outNum("nvmlDeviceGetPowerUsage", power, i),
    enforcedPowerLimitMw: (i) => outNum("nvmlDeviceGetEnforcedPowerLimit", limit, i),
  };
}
