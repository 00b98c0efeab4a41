// Jetson INA3221 power monitors through hwmon (Linux Documentation/hwmon/ina3221.rst): per channel
// `in<N>_label`, `in<N>_input` (bus voltage, mV) and `curr<N>_input` (mA). A shunt is a hardware
// reading (SPEC §1.3: "a shunt / coulomb counter (Jetson INA3221)" → HwShunt). The `VDD_IN` (or
// older boards' `POM_5V_IN`) rail is the module's input, already the total: it is the only rail
// read, since the others are branches of it and summing them beside it would count energy twice.

import { readUint, type SysFs } from "../sysfs.ts";
import type { Found, PowerSet } from "./types.ts";

const HWMON = "class/hwmon";
/** Labels of the rail that is already the total. */
export const TOTAL_RAILS = ["VDD_IN", "POM_5V_IN"] as const;

/** Finds the INA3221 channel labelled as the total input rail. */
export function discoverIna3221(fs: SysFs): Found<PowerSet> {
  let mons: string[];
  try {
    mons = fs.list(HWMON);
  } catch (e) {
    return {
      ok: false,
      decline: { rung: "ina3221", reason: "rung-absent", detail: (e as Error).message },
    };
  }
  let seen = false;
  for (const m of mons) {
    const dir = `${HWMON}/${m}`;
    let name: string;
    try {
      name = fs.readText(`${dir}/name`);
    } catch {
      continue;
    }
    if (name !== "ina3221") continue;
    seen = true;
    for (let n = 1; n <= 3; n++) {
      let label: string;
      try {
        label = fs.readText(`${dir}/in${n}_label`);
      } catch {
        continue;
      }
      if (!(TOTAL_RAILS as readonly string[]).includes(label)) continue;
      const readPowerMw = () =>
        Math.round(
          (readUint(fs, `${dir}/in${n}_input`) * readUint(fs, `${dir}/curr${n}_input`)) / 1000,
        );
      try {
        readPowerMw();
      } catch (e) {
        return {
          ok: false,
          decline: { rung: "ina3221", reason: "rung-unreadable", detail: (e as Error).message },
        };
      }
      return {
        ok: true,
        source: {
          kind: "power",
          rung: "ina3221",
          domain: "board",
          partial: false,
          resolutionUj: 1000,
          names: [`${m}:${label}`],
          readPowerMw,
        },
      };
    }
  }
  return {
    ok: false,
    decline: {
      rung: "ina3221",
      reason: "rung-absent",
      detail: seen
        ? `no ${TOTAL_RAILS.join("/")} rail on any ina3221`
        : `no ina3221 under ${fs.root}/${HWMON}`,
    },
  };
}
