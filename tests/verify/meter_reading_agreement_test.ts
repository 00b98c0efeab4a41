// issue 26: meter-reading/1 has two implementations — verify/profiles/meter_reading*.ts and the
// Python verifier's conformance/python/jcverify/meter_reading.py, written from the document — and
// they answer the same (valid, failing codes in step order) on every published reading vector and
// on 10^4 readings from a property generator that aims at every threshold's edge. The Python side
// runs under Debian's /usr/bin/python3 (python3-cbor2, python3-nacl), all readings in one process.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  coseSign1,
  encodeCbor,
  failureCodes,
  fromHex,
  fromJson,
  toHex,
  verifyEnvelope,
} from "../../verify/mod.ts";
import { didSigner } from "../../conformance/gen/build.ts";
import { BASES, type Core } from "../../conformance/gen/meter_reading_cores.ts";
import { runPython } from "./_python.ts";

const PY = `
import json, sys
sys.path.insert(0, ${JSON.stringify(new URL("../../conformance/python", import.meta.url).pathname)})
from jcverify import receipts
from jcverify.config import Config
cfg = Config({})
out = []
for h in json.load(sys.stdin):
    valid, codes, _verdict = receipts.verify(bytes.fromhex(h), cfg)
    out.append([valid, codes])
json.dump(out, sys.stdout)
`;

type Verdict = [boolean, string[]];

async function typescript(envs: Uint8Array[]): Promise<Verdict[]> {
  const out: Verdict[] = [];
  for (const e of envs) {
    const r = await verifyEnvelope(e);
    out.push([r.valid, failureCodes(r)]);
  }
  return out;
}

async function python(envs: Uint8Array[]): Promise<Verdict[]> {
  return await runPython(PY, envs.map(toHex)) as Verdict[];
}

Deno.test("meter-reading/1: the TypeScript and Python verifiers agree on every reading vector", async () => {
  const file = JSON.parse(
    await Deno.readTextFile(
      new URL("../../conformance/vectors/meter-reading.json", import.meta.url),
    ),
  );
  const vs = file.vectors as {
    name: string;
    cose_sign1_hex: string;
    expected: { codes: string[] };
  }[];
  assert.ok(vs.length >= 30, `${vs.length} reading vectors`);
  const refusals = new Set(
    vs.flatMap((v) => v.expected.codes).filter((c) => c !== "bad-signature"),
  );
  assert.ok(refusals.size >= 15, `${refusals.size} distinct refusal codes`);
  const envs = vs.map((v) => fromHex(v.cose_sign1_hex));
  const [ts, py] = [await typescript(envs), await python(envs)];
  for (let i = 0; i < vs.length; i++) {
    assert.deepEqual(py[i], ts[i], `${vs[i].name}: Python ${JSON.stringify(py[i])}`);
    assert.deepEqual(ts[i][1], vs[i].expected.codes, `${vs[i].name}: the expected codes`);
  }
  console.log(`agreement: ${vs.length} vectors, ${refusals.size} refusal codes, 0 disagreements`);
});

// ------------------------------------------------------------------ the property generator

const AGENT = didSigner("meter-agent");
const RUNGS = ["rapl", "nvml", "ina3221", "model", "estimator"];
const DOMAINS = ["cpu-packages", "gpu", "board", "host"];
const NAMES = [
  "package-0",
  "package-1",
  "package-2",
  "package-01",
  "psys",
  "gpu0",
  "gpu1:Fake",
  "gpu2",
  "dram",
];
/** Interval lengths around the 25 ms tick and the 75 ms limit. */
const US = fc.constantFrom(0, 1, 24_999, 25_000, 25_001, 74_999, 75_000, 75_001, 300_000);

type Counter = Record<string, unknown>;
const mutations: fc.Arbitrary<(c: Core) => void>[] = [
  // the span, around the windows (10, 50, 100 ms) and empty or reversed
  fc.constantFrom(-1, 0, 1, 9, 10, 49, 50, 99, 100, 2000).map((d) => (c: Core) => {
    c.end = (c.start as number) + d < 0 ? 0 : (c.start as number) + d;
  }),
  // the evidence's age, around the 120 s bound and the span's end
  fc.integer({ min: -121_000, max: 3_000 }).map((d) => (c: Core) => {
    const l = c.liveness as Counter | undefined;
    if (l) l.probed_at = (c.start as number) + d;
  }),
  fc.constantFrom(-120_001, -120_000, 0).map((d) => (c: Core) => {
    const l = c.liveness as Counter | undefined;
    if (l) l.probed_at = (c.start as number) + d;
  }),
  fc.constantFrom(...RUNGS).map((r) => (c: Core) => (c.counter = r)),
  fc.constantFrom(...DOMAINS).map((d) => (c: Core) => (c.domain = d)),
  fc.constantFrom("HwShunt", "ModelBased", "Estimator").map(
    (p) => (c: Core) => (c.energy_provenance = p),
  ),
  fc.boolean().map(
    (b) => (c: Core) => (b ? (c.energy_coverage = "Partial") : delete c.energy_coverage),
  ),
  fc.constantFrom(1, 7, 1000, 2000).map((r) => (c: Core) => (c.resolution_uj = r)),
  fc.constantFrom(0, 1, 1000, 999_000, 40_000_000, 500_000_000).map(
    (e) => (c: Core) => (c.energy_uj = e),
  ),
  fc.array(fc.constantFrom(...RUNGS), { maxLength: 3 }).map((rs) => (c: Core) => {
    c.declined = rs.map((rung) => ({ rung, reason: "rung-absent" }));
  }),
  fc.boolean().map(
    (b) => (c: Core) => (b ? (c.calibration = "c0".repeat(32)) : delete c.calibration),
  ),
  fc.tuple(fc.nat(3), fc.constantFrom(0, 1, 5)).map(([s, p]) => (c: Core) => {
    c.seq = s;
    if (p === 1) c.prev = "0".repeat(64);
    if (p === 5) c.prev = "5a".repeat(32);
  }),
  // the liveness evidence: names, tick, intervals and advances
  fc.tuple(fc.nat(3), fc.constantFrom(...NAMES)).map(([i, n]) => (c: Core) => {
    const cs = (c.liveness as { counters: Counter[] } | undefined)?.counters;
    if (cs?.length) cs[i % cs.length].name = n;
  }),
  fc.constantFrom(25_000, 10_000).map((t) => (c: Core) => {
    const l = c.liveness as Counter | undefined;
    if (l) l.tick_us = t;
  }),
  fc.tuple(
    fc.nat(3),
    fc.array(fc.tuple(US, fc.constantFrom(0, 0, 1, 7)), { maxLength: 20 }),
    fc.boolean(),
  )
    .map(([i, ivs, skew]) => (c: Core) => {
      const cs = (c.liveness as { counters: Counter[] } | undefined)?.counters;
      if (!cs?.length) return;
      const k = cs[i % cs.length];
      k.interval_us = ivs.map(([u]) => u);
      k.delta = ivs.map(([, d]) => d).slice(skew ? 1 : 0);
    }),
  fc.boolean().map((drop) => (c: Core) => (drop ? delete c.liveness : delete c.plausibility)),
  // the span evidence: energies, rates, limits, draws, statuses, names
  fc.tuple(
    fc.nat(3),
    fc.constantFrom("energy_uj", "rate_mw", "limit_mw", "draw_mean_mw"),
    fc.constantFrom(0, 1, 4_999, 5_000, 10_000, 20_000, 61_250, 71_500, 71_501, 250_000, 510_001),
  )
    .map(([i, f, v]) => (c: Core) => {
      const cs = (c.plausibility as { counters: Counter[] } | undefined)?.counters;
      if (cs?.length) cs[i % cs.length][f] = v;
    }),
  fc.tuple(fc.nat(3), fc.constantFrom("not-refuted", "no-bound", "implausible", "unjudgeable"))
    .map(([i, s]) => (c: Core) => {
      const cs = (c.plausibility as { counters: Counter[] } | undefined)?.counters;
      if (cs?.length) cs[i % cs.length].status = s;
    }),
  fc.tuple(fc.nat(3), fc.constantFrom(...NAMES)).map(([i, n]) => (c: Core) => {
    const cs = (c.plausibility as { counters: Counter[] } | undefined)?.counters;
    if (cs?.length) cs[i % cs.length].name = n;
  }),
  fc.boolean().map((all) => (c: Core) => {
    const cs = (c.plausibility as { counters: Counter[] } | undefined)?.counters;
    if (cs?.length) all ? cs.splice(0) : cs.pop();
  }),
  // rescaled consistently: the rate follows the energy (exercises the bounds, not the rate check)
  fc.constantFrom(0, 1, 3, 40).map((k) => (c: Core) => {
    const cs = (c.plausibility as { counters: Counter[] } | undefined)?.counters ?? [];
    const ms = (c.end as number) - (c.start as number);
    let sum = 0;
    for (const p of cs) {
      p.energy_uj = (p.energy_uj as number) * k;
      if (ms > 0) p.rate_mw = Math.floor((p.energy_uj as number) / ms);
      sum += p.energy_uj as number;
    }
    if (cs.length) c.energy_uj = sum;
  }),
  fc.constantFrom("restart", "refused", "other").map((g) => (c: Core) => (c.gap = g)),
];

const reading = fc.tuple(
  fc.constantFrom(...Object.keys(BASES)),
  fc.array(fc.oneof(...mutations), { maxLength: 4 }),
).map(([base, ms]) => {
  const c = BASES[base]();
  for (const m of ms) m(c);
  return coseSign1(encodeCbor(fromJson({ ...c, agent: AGENT.kid })), AGENT.secret, AGENT.kid);
});

Deno.test("meter-reading/1: the two verifiers agree on 10^4 generated readings", async () => {
  const envs = fc.sample(reading, { numRuns: 10_000, seed: 26 });
  const [ts, py] = [await typescript(envs), await python(envs)];
  const codes = new Map<string, number>();
  let valid = 0;
  for (let i = 0; i < envs.length; i++) {
    assert.deepEqual(
      py[i],
      ts[i],
      `reading ${i} (${toHex(envs[i])}): Python ${JSON.stringify(py[i])}`,
    );
    if (ts[i][0]) valid++;
    for (const c of ts[i][1]) codes.set(c, (codes.get(c) ?? 0) + 1);
  }
  // the generator reaches every rule: valid readings and each reading-* refusal
  for (
    const c of [
      "reading-stale-evidence",
      "reading-span-below-window",
      "reading-counters-incomplete",
      "reading-not-advanced",
      "reading-calibration",
      "reading-not-live",
      "reading-implausible",
    ]
  ) {
    assert.ok((codes.get(c) ?? 0) > 0, `the generator reached ${c}`);
  }
  assert.ok(valid > 100, `${valid} valid readings`);
  console.log(
    `agreement: ${envs.length} generated readings, ${valid} valid, 0 disagreements; codes ${
      JSON.stringify(Object.fromEntries([...codes].sort()))
    }`,
  );
});
