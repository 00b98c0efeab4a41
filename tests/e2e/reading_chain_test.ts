// issue 26, measured from outside: the real service (`deno task start`, SQLite store) and a
// registered agent posting to POST /v1/readings over HTTP on 127.0.0.1. A span overlapping the
// agent's previous one, one ending ten minutes in the future, one whose liveness probe is six
// hours old, one after a gap it does not explain, and a model figure whose calibration is not
// the agent's latest logged HwShunt reading of its domain are each refused with their code — a
// batch answering the bad reading's code and still logging the good one before it — and the
// state these checks read (the last span's end, the calibrations) survives a SIGKILL of the
// service, because the store keeps it in the commit of the reading.
import assert from "node:assert/strict";
import {
  blake3,
  coseSign1,
  didKeyFromPublicKey,
  ed25519PublicKey,
  encodeCbor,
  envelopeContentId,
  fromJson,
  toHex,
} from "../../verify/mod.ts";
import { BASES, type Core } from "../../conformance/gen/meter_reading_cores.ts";
import { startService } from "../../fixtures/service.ts";

const MIN = 60_000;
/** An agent: its key, and the next seq / prev of its chain as the test believes the service has it. */
function agent(fill: number) {
  const secret = new Uint8Array(32).fill(fill);
  const did = didKeyFromPublicKey(ed25519PublicKey(secret));
  const a = {
    did,
    seq: 0,
    prev: "0".repeat(64),
    /** A reading at [start, start + ms] from base `base`, signed at the chain's current head. */
    make(base: string, start: number, over: (c: Core) => void = () => {}, ms = 2000): Uint8Array {
      const c = BASES[base]();
      const shift = start - (c.start as number);
      c.start = start;
      c.end = start + ms;
      const l = c.liveness as { probed_at: number } | undefined;
      if (l) l.probed_at += shift;
      Object.assign(c, { agent: did, seq: a.seq, prev: a.prev });
      over(c);
      return coseSign1(encodeCbor(fromJson(c)), secret, did);
    },
    /** Records an accepted reading as the chain's head. */
    accepted(env: Uint8Array) {
      a.seq++;
      a.prev = toHex(blake3(env));
    },
  };
  return a;
}

/** A model figure of the GPU domain naming `calibration`. */
const gpuModel = (calibration: string) => (c: Core) => {
  Object.assign(c, {
    domain: "gpu",
    energy_coverage: "Partial",
    declined: [{ rung: "nvml", reason: "span-not-advanced" }],
    calibration,
  });
  delete c.gap;
};

Deno.test("e2e readings: overlap, future, stale evidence, gap and calibration refused over HTTP; the state survives a SIGKILL", async () => {
  const A = agent(31), B = agent(32);
  const dir = await Deno.makeTempDir({ prefix: "reading-chain-" });
  const env = { DATA_DIR: dir, JC_STORE: "sqlite", JC_AGENTS: `${A.did}=a,${B.did}=b` };
  let svc = await startService(env);
  const post = async (...envs: Uint8Array[]) => {
    const r = await fetch(`${svc.url}/v1/readings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ envelopes: envs.map(toHex) }),
    });
    assert.equal(r.status, 200);
    return (await r.json()).results as { seq: number; index?: number; code?: string }[];
  };
  const size = async () => (await (await fetch(`${svc.url}/v1/log/tree-head`)).json()).size;
  try {
    const T = Math.floor(Date.now() / 1000) * 1000 - 60 * MIN;
    const r0 = A.make("nvml", T);
    assert.equal((await post(r0))[0].index, 0);
    A.accepted(r0);

    // a batch: the contiguous reading is logged, the overlapping one after it is refused
    const r1 = A.make("nvml", T + 2000);
    const before = await size();
    A.seq++, A.prev = toHex(blake3(r1)); // the overlap chains from r1
    const overlap = A.make("nvml", T + 3000);
    A.seq--, A.prev = toHex(blake3(r0));
    const [ok1, bad1] = await post(r1, overlap);
    assert.equal(ok1.index, 1);
    assert.equal(bad1.code, "reading-overlap");
    assert.equal(await size(), before + 1, "the good reading before the bad one is logged");
    A.accepted(r1);

    const future = A.make("nvml", Date.now() + 10 * MIN - 2000, (c) => (c.gap = "restart"));
    assert.equal((await post(future))[0].code, "reading-future");
    const stale = A.make("nvml", T + 4000, (c) => {
      (c.liveness as { probed_at: number }).probed_at = T + 4000 - 6 * 60 * MIN;
    });
    assert.equal((await post(stale))[0].code, "reading-stale-evidence");
    const unexplained = A.make("nvml", T + 10_000);
    assert.equal((await post(unexplained))[0].code, "reading-gap-unexplained");
    const r2 = A.make("nvml", T + 10_000, (c) => (c.gap = "restart"));
    assert.equal((await post(r2))[0].index, 2);
    A.accepted(r2);

    // calibration: the agent's latest logged HwShunt reading of the domain, nothing else
    const id = (e: Uint8Array) => toHex(envelopeContentId(e)!);
    const b0 = B.make("nvml", T);
    assert.equal((await post(b0))[0].index, 3);
    for (
      const [cal, why] of [["ab".repeat(32), "never logged"], [id(r0), "not the latest"], [
        id(b0),
        "another agent's",
      ]]
    ) {
      const m = A.make("model", T + 12_000, gpuModel(cal));
      assert.equal((await post(m))[0].code, "reading-calibration-unknown", why);
    }
    const m3 = A.make("model", T + 12_000, gpuModel(id(r2)));
    assert.equal((await post(m3))[0].index, 4);
    A.accepted(m3);
    const head = await (await fetch(`${svc.url}/v1/agents/${A.did}`)).json();
    assert.equal(head.last_end, T + 14_000);
    assert.equal(head.calibrations.gpu.reading, id(r2));
    assert.equal(head.calibrations.gpu.power_mw, 250_000);

    // a crash: the state is the store's, written with each reading
    await svc.stop("SIGKILL");
    svc = await startService(env);
    const again = A.make("nvml", T + 13_000);
    assert.equal((await post(again))[0].code, "reading-overlap", "the span end survived");
    const m4 = A.make("model", T + 14_000, gpuModel(id(r2)));
    assert.equal((await post(m4))[0].index, 5, "the calibration survived");
  } finally {
    await svc.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
