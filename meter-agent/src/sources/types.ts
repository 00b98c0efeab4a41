// JCP §5.1: every hardware rung of the ladder behind one injected interface. A `CounterSet` is the
// counters one rung sums for its domain (every RAPL package, every NVML device); a
// `PowerSet` is a power monitor integrated over time (Jetson INA3221).

import type { meterReading } from "../../../verify/mod.ts";

/** A rung name. */
export type Rung = meterReading.Rung;
/** A provenance tag. */
export type Provenance = meterReading.Provenance;
/** The domain a figure claims. */
export type Domain = "cpu-packages" | "gpu" | "board" | "host";

/** Why a rung is not used, with a stable reason code (docs/METER-READING.md, "Declines"). */
export interface Decline {
  rung: Rung;
  reason: string;
  detail?: string;
}

/** Cumulative energy counters of one rung. */
export interface CounterSet {
  readonly kind: "counter";
  readonly rung: "rapl" | "nvml";
  readonly domain: Domain;
  /** Coverage of the domain's figure (JCP §5.2): NVML reads the GPU only. */
  readonly partial: boolean;
  readonly resolutionUj: number;
  /** µJ per counter unit (1 for RAPL's µJ, 1000 for NVML's mJ). */
  readonly unitUj: number;
  /** Whether the liveness probe burns CPU (RAPL: JCP §5; NVML: the probe cannot load the GPU). */
  readonly burn: boolean;
  readonly names: readonly string[];
  /** Per counter, the value at which it wraps (RAPL `max_energy_range_uj`), or undefined. */
  readonly maxRange: readonly (number | undefined)[];
  /** Every counter's cumulative value, in counter units; throws when any read fails. */
  read(): number[];
  /** Per counter, the enforced power limit (mW), a static bound; undefined when not readable. */
  limitsMw?(): (number | undefined)[];
  /** Per counter, the instantaneous draw (mW); undefined entries when not readable. */
  drawsMw?(): (number | undefined)[];
}

/** A power monitor (mW samples) integrated over time. */
export interface PowerSet {
  readonly kind: "power";
  readonly rung: "ina3221";
  readonly domain: Domain;
  readonly partial: boolean;
  readonly resolutionUj: number;
  readonly names: readonly string[];
  /** The total's power now, mW; throws when the read fails. */
  readPowerMw(): number;
}

/** What discovering a rung found: a source, or why not. */
export type Found<T> = { ok: true; source: T } | { ok: false; decline: Decline };
