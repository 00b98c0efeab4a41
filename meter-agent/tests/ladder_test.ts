// The ladder graded exactly as JCP §5 / §5.1 / §5.2 say, on fake sysfs trees and scripted NVML
// sequences driven by a scripted clock (no hardware).
import assert from "node:assert/strict";
import { ScriptedClock } from "../src/clock.ts";
import { Meter, type Sources } from "../src/meter.ts";
import { discoverIna3221 } from "../src/sources/ina3221.ts";
import { discoverNvml, NVML } from "../src/sources/nvml.ts";
import { discoverRapl } from "../src/sources/rapl.ts";
import {
  GENESIS,
  headAfter,
  identityFromSecret,
  readingCore,
  signReading,
} from "../src/reading.ts";
import {
  type CborMap,
  decodeCbor,
  meterReading,
  parseCoseSign1,
  verifyEnvelope,
} from "../../verify/mod.ts";
import {
  type FakeGpu,
  fakeNvml,
  type FakeZone,
  frozen,
  lumps,
  memorySysFs,
  raplFiles,
  steady,
  steadyMj,
} from "./fakes.ts";

function rapl(
  clock: ScriptedClock,
  zones: FakeZone[],
  extra: Record<string, string> = {},
): Sources {
  return { rapl: discoverRapl(memorySysFs({ ...raplFiles(clock, zones), ...extra })) };
}

const ID = identityFromSecret(new Uint8Array(32).fill(9));

async function grade(clock: ScriptedClock, sources: Sources, spanMs = 2000) {
  const meter = new Meter(sources, clock, { defaultPowerMw: 50_000 });
  const g = await meter.span(spanMs);
  // the agent never produces a reading the verifier refuses (issue 26)
  const r = await verifyEnvelope(signReading(readingCore(g, ID, "h", GENESIS), ID));
  assert.equal(r.valid, true, JSON.stringify(r.steps.filter((x) => x.status === "fail")));
  return { g, report: meter.report!, meter };
}

Deno.test("RAPL: a live package counter is HwShunt, Whole, at 1 µJ, wrap-free energy exact", async () => {
  const clock = new ScriptedClock();
  const { g, report } = await grade(
    clock,
    rapl(clock, [{ id: "intel-rapl:0", name: "package-0", energy: steady(20) }]),
  );
  assert.equal(report.rungs[0].status, "live");
  assert.equal(g.counter, "rapl");
  assert.equal(g.energy_provenance, "HwShunt");
  assert.equal(g.energy_coverage, undefined);
  assert.equal(g.domain, "cpu-packages");
  assert.equal(g.resolution_uj, 1);
  // 20 W over the 2 s span (± one µs rounding per sample)
  assert.ok(
    Math.abs(g.energy_uj - 20 * (g.end - g.start) * 1000) <= 20 * 1000 + 100,
    `${g.energy_uj}`,
  );
  assert.ok(clock.burntUs >= 300_000, "the RAPL probe burns CPU");
  assert.equal(g.liveness!.tick_us, 25_000);
  assert.ok(g.liveness!.counters[0].interval_us.length >= 12);
});

Deno.test("RAPL: a frozen counter declines the rung (counter-not-live) and falls to the estimator", async () => {
  const clock = new ScriptedClock();
  const { g } = await grade(
    clock,
    rapl(clock, [{ id: "intel-rapl:0", name: "package-0", energy: frozen() }]),
  );
  assert.equal(g.counter, "estimator");
  assert.equal(g.energy_provenance, "Estimator");
  assert.equal(g.declined[0].rung, "rapl");
  assert.equal(g.declined[0].reason, "counter-not-live");
  assert.match(g.declined[0].detail!, /too-few-advancing/);
  assert.equal(g.energy_uj, 50_000 * (g.end - g.start)); // time × default power, 1 mJ quantum
});

Deno.test("RAPL: a counter republished in lumps (every 100 ms) is not live", async () => {
  const clock = new ScriptedClock();
  const { g } = await grade(
    clock,
    rapl(clock, [{ id: "intel-rapl:0", name: "package-0", energy: lumps(30, 100_000) }]),
  );
  assert.equal(g.declined[0].reason, "counter-not-live");
  assert.notEqual(g.energy_provenance, "HwShunt");
});

Deno.test("RAPL: a counter wrapping at its own max_energy_range_uj is corrected", async () => {
  const clock = new ScriptedClock();
  const max = 1_000_000_000; // wraps every 10 s at 100 W
  const e0 = max - 150_000_000; // wraps 1.5 s in
  const { g } = await grade(
    clock,
    rapl(clock, [{ id: "intel-rapl:0", name: "package-0", max, energy: steady(100, e0) }]),
    3000,
  );
  assert.equal(g.counter, "rapl");
  const expect = 100 * (g.end - g.start) * 1000;
  assert.ok(Math.abs(g.energy_uj - expect) <= 200_000, `${g.energy_uj} vs ${expect}`);
});

Deno.test("RAPL: two sockets, one frozen: the rung is declined (every counter MUST be live)", async () => {
  const clock = new ScriptedClock();
  const { g, report } = await grade(
    clock,
    rapl(clock, [
      { id: "intel-rapl:0", name: "package-0", energy: steady(40) },
      { id: "intel-rapl:1", name: "package-1", energy: frozen() },
    ]),
  );
  assert.deepEqual(report.rungs[0].counters, ["package-0", "package-1"]);
  assert.equal(report.rungs[0].status, "declined");
  assert.match(report.rungs[0].detail!, /^package-1:/);
  assert.equal(g.counter, "estimator");
});

Deno.test("RAPL: two live sockets are summed; psys, dram and the mmio duplicate are never read", async () => {
  const clock = new ScriptedClock();
  const boom = () => {
    throw new Error("read a zone that must not be read");
  };
  const zones: FakeZone[] = [
    { id: "intel-rapl:0", name: "package-0", energy: steady(30) },
    { id: "intel-rapl:1", name: "package-1", energy: steady(10) },
    { id: "intel-rapl:2", name: "psys", energy: boom },
  ];
  const extra = {
    "class/powercap/intel-rapl:0:0/name": "dram",
    "class/powercap/intel-rapl:0:0/energy_uj": "1",
    "class/powercap/intel-rapl:0:0/max_energy_range_uj": "100",
    "class/powercap/intel-rapl-mmio:0/name": "package-0",
    "class/powercap/intel-rapl-mmio:0/energy_uj": "1",
    "class/powercap/intel-rapl-mmio:0/max_energy_range_uj": "100",
  };
  const { g } = await grade(clock, rapl(clock, zones, extra));
  assert.equal(g.counter, "rapl");
  const expect = 40 * (g.end - g.start) * 1000;
  assert.ok(Math.abs(g.energy_uj - expect) <= 100_000, `${g.energy_uj} vs ${expect}`);
});

Deno.test("RAPL: an unreadable energy_uj (root-only since Linux 5.10) declines with rung-unreadable", async () => {
  const clock = new ScriptedClock();
  const s = rapl(clock, [{
    id: "intel-rapl:0",
    name: "package-0",
    energy: steady(5),
    unreadable: true,
  }]);
  assert.equal(s.rapl!.ok, false);
  const { g } = await grade(clock, s);
  assert.deepEqual([g.declined[0].rung, g.declined[0].reason], ["rapl", "rung-unreadable"]);
  assert.match(g.declined[0].detail!, /EACCES/);
});

Deno.test("RAPL: a long stall counts as nothing (intervals > 75 ms neither count nor advance)", async () => {
  const clock = new ScriptedClock();
  for (let i = 0; i < 30; i++) clock.stall(i % 2 ? 60_000 : 0); // every other interval is 85 ms
  const { report } = await grade(
    clock,
    rapl(clock, [{ id: "intel-rapl:0", name: "package-0", energy: steady(20) }]),
  );
  const j = report.rungs[0].liveness![0];
  assert.ok(j.intervals > j.counted, "long intervals are not counted");
});

function nvml(clock: ScriptedClock, gpus: FakeGpu[]): Sources {
  return { nvml: discoverNvml(fakeNvml(clock, gpus)) };
}

Deno.test("NVML healthy: HwShunt, Partial, 1 mJ resolution, rate and bounds recorded", async () => {
  const clock = new ScriptedClock();
  const { g } = await grade(
    clock,
    nvml(clock, [{ energyMj: steadyMj(300), draws: [300_000], limitMw: 700_000 }]),
  );
  assert.equal(g.counter, "nvml");
  assert.equal(g.energy_provenance, "HwShunt");
  assert.equal(g.energy_coverage, "Partial");
  assert.equal(g.resolution_uj, 1000);
  assert.equal(g.energy_uj % 1000, 0);
  const p = g.plausibility!.counters[0];
  assert.equal(p.status, "not-refuted");
  assert.equal(p.limit_mw, 700_000);
  assert.equal(p.draw_mean_mw, 300_000);
  assert.ok(Math.abs((p.rate_mw as number) - 300_000) < 2000);
  assert.equal(clock.burntUs, 0, "the NVML probe does not burn CPU");
});

Deno.test("NVML, the JCP §5 RTX 4050 case: 4-30× its draw, a 590 W wake spike discarded alone → implausible", async () => {
  for (const factor of [4, 30]) {
    const clock = new ScriptedClock();
    const draws = [14_800, 14_800, 590_000, ...new Array(40).fill(14_800)];
    const { g, report } = await grade(
      clock,
      nvml(clock, [{ energyMj: steadyMj(14.8 * factor), draws, limitMw: 65_000 }]),
    );
    const nv = report.rungs.find((r) => r.rung === "nvml")!;
    assert.equal(nv.status, "declined");
    assert.equal(nv.reason, "counter-implausible");
    const pj = nv.plausibility![0];
    assert.equal(pj.status, "implausible");
    assert.equal(pj.draw_discarded, 1, "the spike, and only it, is discarded");
    assert.equal(pj.draw_mean_mw, 14_800);
    assert.equal(pj.bound, factor === 4 ? "draw-ceiling" : "limit");
    assert.match(nv.detail!, /rate \d+ mW breaks the (draw-ceiling|limit) bound/);
    assert.notEqual(g.energy_provenance, "HwShunt");
    assert.deepEqual([g.counter, g.domain], ["estimator", "host"]); // no hardware rung selected
  }
});

Deno.test("NVML: a lumpy under-reporter (advancing, at a sixth of a 40 W draw) breaks the floor", async () => {
  const clock = new ScriptedClock();
  const { report } = await grade(
    clock,
    nvml(clock, [{ energyMj: steadyMj(6), draws: [40_000], limitMw: 65_000 }]),
  );
  const nv = report.rungs.find((r) => r.rung === "nvml")!;
  assert.equal(nv.liveness![0].live, true, "liveness alone does not see it");
  assert.equal(nv.reason, "counter-implausible");
  assert.equal(nv.plausibility![0].bound, "draw-floor");
  assert.equal(nv.plausibility![0].floor_mw, 8_750); // (40 W − 5 W) / 4
});

Deno.test("NVML: an idle board (3 W) is not refuted: the floor never fires near idle", async () => {
  const clock = new ScriptedClock();
  const { g } = await grade(
    clock,
    nvml(clock, [{ energyMj: steadyMj(3), draws: [3_000], limitMw: 65_000 }]),
  );
  assert.equal(g.energy_provenance, "HwShunt");
  assert.equal(g.plausibility!.counters[0].floor_mw, undefined);
});

Deno.test("NVML: every draw sample impossible → unjudgeable (declined, not reported as implausible)", async () => {
  const clock = new ScriptedClock();
  const { report } = await grade(
    clock,
    nvml(clock, [{ energyMj: steadyMj(15), draws: [590_000], limitMw: 65_000 }]),
  );
  const nv = report.rungs.find((r) => r.rung === "nvml")!;
  assert.equal(nv.reason, "counter-unjudgeable");
  assert.equal(nv.plausibility![0].status, "unjudgeable");
});

Deno.test("NVML: NOT_SUPPORTED (no energy counter) declines with counter-not-supported", async () => {
  const clock = new ScriptedClock();
  const s = nvml(clock, [{
    energyMj: steadyMj(1),
    energyError: NVML.ERROR_NOT_SUPPORTED,
    draws: [1000],
    limitMw: 65_000,
  }]);
  const { g } = await grade(clock, s);
  assert.deepEqual([g.declined[0].rung, g.declined[0].reason], ["nvml", "counter-not-supported"]);
  assert.equal(g.counter, "estimator");
});

Deno.test("NVML frozen mid-stream: the span falls to ModelBased at the host-calibrated power", async () => {
  const clock = new ScriptedClock();
  let freezeAt = Infinity;
  const energyMj = (us: number) => steadyMj(200)(Math.min(us, freezeAt));
  const meter = new Meter(nvml(clock, [{ energyMj, draws: [200_000], limitMw: 700_000 }]), clock, {
    reprobeMs: 3_600_000,
  });
  const a = await meter.span(2000);
  assert.equal(a.energy_provenance, "HwShunt");
  // the chain head after reading a calibrates the meter, as the agent's cli.ts does
  const id = identityFromSecret(new Uint8Array(32).fill(7));
  const envA = signReading(readingCore(a, id, "h", GENESIS), id);
  const head = headAfter(GENESIS, envA);
  meter.calibration = { ...head.calibrations };
  freezeAt = clock.monoUs();
  const b = await meter.span(2000);
  assert.equal(b.start, a.end, "spans are contiguous");
  assert.equal(b.counter, "model");
  assert.equal(b.calibration, head.calibrations!.gpu.reading, "names reading a, its calibration");
  const envB = signReading(readingCore(b, id, "h", head), id);
  assert.equal((await verifyEnvelope(envB)).valid, true);
  assert.equal(
    meterReading.chainFinding(decodeCbor(parseCoseSign1(envB).payload) as CborMap, head, b.end),
    undefined,
    "the service's chain checks pass",
  );
  assert.equal(b.energy_provenance, "ModelBased");
  assert.equal(b.energy_coverage, "Partial");
  assert.deepEqual(b.declined.map((d) => [d.rung, d.reason]), [["nvml", "span-not-advanced"]]);
  assert.ok(Math.abs(b.energy_uj - 200 * (b.end - b.start) * 1000) <= 1_000_000);
});

Deno.test("INA3221: the VDD_IN rail (already the total) is HwShunt for the board; other rails are not summed", async () => {
  const clock = new ScriptedClock();
  const fs = memorySysFs({
    "class/hwmon/hwmon0/name": "coretemp",
    "class/hwmon/hwmon1/name": "ina3221",
    "class/hwmon/hwmon1/in1_label": "VDD_IN",
    "class/hwmon/hwmon1/in1_input": "5000",
    "class/hwmon/hwmon1/curr1_input": "2000",
    "class/hwmon/hwmon1/in2_label": "VDD_CPU_GPU_CV",
    "class/hwmon/hwmon1/in2_input": "5000",
    "class/hwmon/hwmon1/curr2_input": "1000",
  });
  const { g } = await grade(clock, { ina3221: discoverIna3221(fs) });
  assert.equal(g.counter, "ina3221");
  assert.equal(g.domain, "board");
  assert.equal(g.energy_provenance, "HwShunt");
  assert.equal(g.energy_uj, 10 * (g.end - g.start) * 1000); // 10 W, not 15 W
});

Deno.test("No interface at all: the estimator is always available", async () => {
  const clock = new ScriptedClock();
  const { g } = await grade(clock, {
    rapl: discoverRapl(memorySysFs({})),
    ina3221: discoverIna3221(memorySysFs({})),
  });
  assert.equal(g.counter, "estimator");
  assert.equal(g.domain, "host");
  assert.deepEqual(g.declined.map((d) => d.reason), [
    "rung-absent",
    "rung-absent",
    "no-calibration",
  ]);
});

Deno.test("RAPL over its package power limit (the largest constraint) is implausible: estimated", async () => {
  const clock = new ScriptedClock();
  const limits = {
    "class/powercap/intel-rapl:0/constraint_0_power_limit_uw": "15000000", // PL1 15 W
    "class/powercap/intel-rapl:0/constraint_1_power_limit_uw": "25000000", // PL2 25 W
  };
  const ok = await grade(
    clock,
    rapl(clock, [{ id: "intel-rapl:0", name: "package-0", energy: steady(28) }], limits),
  );
  assert.equal(ok.g.counter, "rapl", "28 W is inside PL2 25 W + 5 W: not refuted");
  const p = ok.g.plausibility!.counters[0] as { limit_mw: number; status: string };
  assert.deepEqual([p.limit_mw, p.status], [25_000, "not-refuted"]);
  const clock2 = new ScriptedClock();
  const { g } = await grade(
    clock2,
    rapl(clock2, [{ id: "intel-rapl:0", name: "package-0", energy: steady(60) }], limits),
  );
  assert.equal(g.counter, "estimator");
  assert.deepEqual([g.declined[0].rung, g.declined[0].reason], ["rapl", "counter-implausible"]);
});

Deno.test("a RAPL span under its 10 ms window (SPEC §1.3 min_window_ns) is not HwShunt", async () => {
  const clock = new ScriptedClock();
  const { meter } = await grade(
    clock,
    rapl(clock, [{ id: "intel-rapl:0", name: "package-0", energy: steady(20) }]),
  );
  const g = await meter.span(5); // no re-probe: a 5 ms span
  assert.equal(g.end - g.start, 5);
  assert.equal(g.counter, "estimator");
  assert.equal(
    (await verifyEnvelope(signReading(readingCore(g, ID, "h", GENESIS), ID))).valid,
    true,
  );
  assert.equal(g.declined.find((d) => d.rung === "rapl")?.reason, "span-too-short");
});
