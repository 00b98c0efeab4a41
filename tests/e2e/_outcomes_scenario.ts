// The JCP §5.2, §5.3 scenario over real HTTP (issue 30), for the Deno service
// (tests/e2e/outcomes_test.ts) and the edge (tests/edge/outcomes_edge_test.ts): intercept/1 and
// efficiency/1 are accepted with verdicts; an outcome's activities are resolved from the log at
// append; an activity bound by a second outcome is refused — after `restart` too (the binding is
// the store's, written in the first outcome's commit).
import assert from "node:assert/strict";
import { steward } from "../../fixtures/app.ts";
import { contentIdOf, efficiencyCore, interceptCore, seal } from "../../fixtures/outcomes.ts";

export async function post(url: string, e: Uint8Array<ArrayBuffer>) {
  const r = await fetch(`${url}/v1/log/entries`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: e,
  });
  return { status: r.status, body: await r.json() };
}

async function postBulk(url: string, es: Uint8Array[]) {
  const all = new Uint8Array(es.reduce((n, e) => n + e.length, 0));
  let at = 0;
  for (const e of es) all.set(e, (at += e.length) - e.length);
  const r = await fetch(`${url}/v1/log/entries`, {
    method: "POST",
    headers: { "content-type": "application/cbor-seq" },
    body: all,
  });
  return { status: r.status, body: await r.json() };
}

/**
 * Runs the scenario against `url` with steward `seed`; `restart` restarts the service over the same
 * state and answers its URL.
 */
export async function exerciseOutcomes(
  start: string,
  restart: () => Promise<string>,
  seed = 61,
): Promise<void> {
  let url = start;
  const s = steward(seed);
  const a1 = seal(interceptCore(s.did, 1), s);
  const a2 = seal(interceptCore(s.did, 2, { coverage: "Partial" }), s);
  const a3 = seal(interceptCore(s.did, 3, { provenance: "Estimator" }), s);
  const fig = (e: Uint8Array, uj: number) => ({ cid: contentIdOf(e), uj });
  for (const a of [a1, a2, a3]) {
    const r = await post(url, a);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.verdict, "valid");
  }
  // §5.2: a step receipt saying "Whole" is refused, not read either way
  const whole = await post(url, seal(interceptCore(s.did, 9, { coverage: "Whole" }), s));
  assert.equal(whole.status, 422);
  assert.equal(whole.body.code, "bad-coverage");

  // an activity not in the log: refused, nothing bound
  const ghost = seal(interceptCore(s.did, 99), s);
  const o0 = seal(efficiencyCore(s.did, [fig(a1, 1001), fig(ghost, 1099)], 10), s);
  const r0 = await post(url, o0);
  assert.equal(r0.status, 422, JSON.stringify(r0.body));
  assert.equal(r0.body.code, "activity-unresolved");

  // figures that do not re-add: refused
  const lie = seal(efficiencyCore(s.did, [fig(a1, 900)], 10), s);
  assert.equal((await post(url, lie)).body.code, "activities-sum-mismatch");
  // a Partial activity under an outcome that does not say Partial: refused (the floor)
  const cov = seal(efficiencyCore(s.did, [fig(a2, 1002)], 10), s);
  assert.equal((await post(url, cov)).body.code, "coverage-above-floor");
  // an Estimator activity under a HwShunt outcome: refused (the floor)
  const prov = seal(efficiencyCore(s.did, [fig(a3, 1003)], 10), s);
  assert.equal((await post(url, prov)).body.code, "provenance-above-floor");

  // the first outcome binding a1: logged, residual negative (a finding the receipt carries)
  const o1 = seal(efficiencyCore(s.did, [fig(a1, 1001)], -1), s);
  const r1 = await post(url, o1);
  assert.equal(r1.status, 201, JSON.stringify(r1.body));
  assert.equal(r1.body.verdict, "valid");
  // the same outcome resubmitted: its entry (200), not a second binding
  const again = await post(url, o1);
  assert.equal(again.status, 200);
  assert.equal(again.body.index, r1.body.index);
  // a second outcome binding a1: refused before the sum
  const o2 = seal(efficiencyCore(s.did, [fig(a1, 1001)], 5), s);
  const r2 = await post(url, o2);
  assert.equal(r2.status, 422, JSON.stringify(r2.body));
  assert.equal(r2.body.code, "activity-bound-twice");

  // in one bulk: two outcomes binding the same activity, one logged, the other refused
  const b1 = seal(efficiencyCore(s.did, [fig(a2, 1002)], 0, { energy_coverage: "Partial" }), s);
  const b2 = seal(efficiencyCore(s.did, [fig(a2, 1002)], 7, { energy_coverage: "Partial" }), s);
  const bulk = await postBulk(url, [b1, b2]);
  assert.equal(bulk.status, 200);
  // (one sequencer decides the order: at the edge the two may reach it in either order)
  const got = bulk.body.results.map((r: { status: number; code?: string }) =>
    `${r.status} ${r.code ?? ""}`.trim()
  ).sort();
  assert.deepEqual(got, ["201", "422 activity-bound-twice"], JSON.stringify(bulk.body));

  // restart: the bindings are the store's
  url = await restart();
  const o3 = seal(efficiencyCore(s.did, [fig(a1, 1001)], 9), s);
  const r3 = await post(url, o3);
  assert.equal(r3.status, 422, JSON.stringify(r3.body));
  assert.equal(r3.body.code, "activity-bound-twice");
  assert.match(r3.body.detail, new RegExp(`entry ${r1.body.index}\\b`));
  // a3 is still free: an Estimator outcome over it is logged
  const o4 = seal(
    efficiencyCore(s.did, [fig(a3, 1003)], 0, { energy_provenance: "Estimator" }),
    s,
  );
  assert.equal((await post(url, o4)).status, 201);
}
