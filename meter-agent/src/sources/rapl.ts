// JCP §5.1 rung 1: RAPL through Linux powercap. The package counters are the top-level zones whose
// `name` is `package-<n>`, every socket's, each corrected at its own `max_energy_range_uj`; no other
// zone is summed or probed: not `psys` (it already includes the packages), not `dram` (not CPU
// energy), not the `intel-rapl-mmio` duplicates of the same packages.

import { readUint, type SysFs, SysFsError } from "../sysfs.ts";
import type { CounterSet, Found } from "./types.ts";

const POWERCAP = "class/powercap";
// JCP §5.1 rung 1: top-level zones only (`intel-rapl:<n>`, not `intel-rapl:<n>:<m>`, not `intel-rapl-mmio:<n>`).
const TOP_LEVEL = /^intel-rapl:(\d+)$/;
const PACKAGE = /^package-(\d+)$/;

/** Finds every package zone under `<sysfs>/class/powercap` and checks its counter is readable. */
export function discoverRapl(fs: SysFs): Found<CounterSet> {
  let entries: string[];
  try {
    entries = fs.list(POWERCAP);
  } catch (e) {
    return {
      ok: false,
      decline: { rung: "rapl", reason: "rung-absent", detail: (e as Error).message },
    };
  }
  const zones: { dir: string; name: string; max: number }[] = [];
  try {
    for (const z of entries.filter((e) => TOP_LEVEL.test(e))) {
      const dir = `${POWERCAP}/${z}`;
      const name = fs.readText(`${dir}/name`);
      if (!PACKAGE.test(name)) continue; // psys, or anything else that is not a package
      zones.push({ dir, name, max: readUint(fs, `${dir}/max_energy_range_uj`) });
    }
  } catch (e) {
    return {
      ok: false,
      decline: { rung: "rapl", reason: "rung-unreadable", detail: (e as Error).message },
    };
  }
  if (zones.length === 0) {
    return {
      ok: false,
      decline: {
        rung: "rapl",
        reason: "rung-absent",
        detail: `no package-<n> zone under ${fs.root}/${POWERCAP}`,
      },
    };
  }
  zones.sort((a, b) => Number(PACKAGE.exec(a.name)![1]) - Number(PACKAGE.exec(b.name)![1]));
  const read = () => zones.map((z) => readUint(fs, `${z.dir}/energy_uj`));
  try {
    read();
  } catch (e) {
    // Linux >= 5.10: energy_uj is root-only (README: how to grant read access).
    const why = e instanceof SysFsError && e.code === "EACCES" ? "rung-unreadable" : "read-failed";
    return { ok: false, decline: { rung: "rapl", reason: why, detail: (e as Error).message } };
  }
  return {
    ok: true,
    source: {
      kind: "counter",
      rung: "rapl",
      domain: "cpu-packages",
      partial: false,
      resolutionUj: 1,
      unitUj: 1,
      burn: true,
      names: zones.map((z) => z.name),
      maxRange: zones.map((z) => z.max),
      read,
      limitsMw: () => zones.map((z) => powerLimitMw(fs, z.dir)),
    },
  };
}

/**
 * A package's enforced power limit, mW (JCP §5 Plausibility: "the board's maximum power limit",
 * a static bound read independently of the counter): the largest of its readable constraints
 * (`constraint_<n>_power_limit_uw`: long_term PL1, short_term PL2, peak_power), because a package
 * runs above PL1 for PL2's time window and a bound must never refute a counter that is right.
 * Undefined when none is readable or every one is 0 (disabled).
 */
function powerLimitMw(fs: SysFs, dir: string): number | undefined {
  let best = 0;
  for (let n = 0; n < 3; n++) {
    try {
      best = Math.max(
        best,
        Math.floor(readUint(fs, `${dir}/constraint_${n}_power_limit_uw`) / 1000),
      );
    } catch { /* this constraint is absent or unreadable: no bound from it */ }
  }
  return best > 0 ? best : undefined;
}
