// Shared by the verdict tests of both deployments (tests/e2e/verdicts_test.ts over the Deno service,
// tests/edge/verdicts_edge_test.ts over workerd): one conformance vector of each verdict class
// (JCR-1 §6, SPEC §6), the operator configuration they are judged under, and the checks every
// deployment must pass over real HTTP.
import assert from "node:assert/strict";
import { concatBytes, fromHex } from "../verify/mod.ts";

const VECTORS = new URL("../conformance/vectors/", import.meta.url);

interface Vec {
  name: string;
  cose_sign1_hex: string;
  expected: { verdict: string; codes: string[] };
}

async function vectorsOf(file: string): Promise<Vec[]> {
  return JSON.parse(await Deno.readTextFile(new URL(file, VECTORS))).vectors;
}

/** The operator configuration (verify/'s format) the vectors are judged under, as text. */
export function operatorConfigText(): Promise<string> {
  return Deno.readTextFile(new URL("operator-config.json", VECTORS));
}

/** The path of that configuration file. */
export const OPERATOR_CONFIG_PATH = new URL("operator-config.json", VECTORS).pathname;

/** One envelope of each class, in append order: valid, joule-unverified, alert; then invalid. */
export async function classVectors() {
  const jcr1 = await vectorsOf("jcr1.json");
  const neg = await vectorsOf("negative.json");
  const pick = (vs: Vec[], name: string) => {
    const v = vs.find((x) => x.name === name)!;
    return { name, verdict: v.expected.verdict, envelope: fromHex(v.cose_sign1_hex) };
  };
  const out = [
    pick(jcr1, "jcr1-05-l3-local-model"), // within the ±35% band of its reference
    pick(jcr1, "jcr1-02-l1-deterministic"), // no reference vector
    pick(jcr1, "jcr1-13-alert-out-of-band"), // outside ±10%: SPEC §6 DriftAlert
    pick(neg, "neg-joules-below-tools"), // step 5 fails
  ];
  assert.deepEqual(out.map((v) => v.verdict), ["valid", "joule-unverified", "alert", "invalid"]);
  return out;
}

/** The DriftAlert of jcr1-13-alert-out-of-band under the conformance configuration. */
export const ALERT_FIGURES = {
  provenance: "HwShunt",
  joules_uj: 2_100_000,
  reference_uj: 1_500_000,
  band_percent: 10,
  low_uj: 1_350_000,
  high_uj: 1_650_000,
};

/** POSTs an envelope as application/cose; the status and the JSON body. */
export async function postCose(base: string | URL, path: string, envelope: Uint8Array) {
  const res = await fetch(new URL(path, base), {
    method: "POST",
    headers: { "content-type": "application/cose", accept: "application/json" },
    body: envelope.slice(),
  });
  return { status: res.status, body: await res.json() };
}

/** GETs a path with an Accept header; the body as text. */
export async function getText(base: string | URL, path: string, accept: string) {
  const res = await fetch(new URL(path, base), { headers: { accept } });
  const text = await res.text();
  assert.equal(res.status, 200, `${path} (${accept}): ${text}`);
  return text;
}

/** POST /v1/validate of a JSON-LD document; the answer. */
async function validate(base: string | URL, doc: unknown) {
  const res = await fetch(new URL("/v1/validate", base), {
    method: "POST",
    headers: { "content-type": "application/ld+json" },
    body: JSON.stringify(doc),
  });
  assert.equal(res.status, 200);
  return await res.json();
}

const VERDICT_IRI = "https://jouleclaw.transaction.science/vocab/v1#verificationVerdict";

/**
 * Appends the four class vectors to a fresh log at `base` and checks, over HTTP: the append
 * answers (201 with verdict; alert with drift_alert; invalid 422 and nothing appended), the
 * verification reports, and the verdict in the entry's JSON, JSON-LD (SHACL-valid under the
 * shapes, which refuse a fifth class), N-Quads and Turtle views,
 * in the N-Quads export and in the metrics' per-verdict counts. Returns the entries' indexes.
 */
export async function checkVerdictsOver(base: string | URL): Promise<number[]> {
  const vs = await classVectors();
  const indexes: number[] = [];
  // entries before these: the verifier configuration the service logs at start (issue 23)
  const cfg = await (await fetch(new URL("/v1/verifier-config", base))).json();
  const first = cfg.index === null ? 0 : cfg.index + 1;
  for (const v of vs) {
    const rep = await postCose(base, "/v1/verify", v.envelope);
    assert.equal(rep.status, 200);
    assert.equal(rep.body.verdict, v.verdict, `${v.name}: ${JSON.stringify(rep.body)}`);
    assert.equal(rep.body.valid, v.verdict !== "invalid");
    const a = await postCose(base, "/v1/log/entries", v.envelope);
    if (v.verdict === "invalid") {
      assert.equal(a.status, 422, JSON.stringify(a.body));
      assert.equal(a.body.report.verdict, "invalid");
      continue;
    }
    assert.equal(a.status, 201, `${v.name}: ${JSON.stringify(a.body)}`);
    assert.equal(a.body.verdict, v.verdict, v.name);
    assert.equal(a.body.index, first + indexes.length);
    indexes.push(a.body.index);
    if (v.verdict === "alert") {
      assert.deepEqual({ ...a.body.drift_alert, input_hash: undefined }, {
        ...ALERT_FIGURES,
        input_hash: undefined,
      });
      assert.deepEqual(rep.body.drift_alert, a.body.drift_alert);
      assert.deepEqual(rep.body.steps[5].code, "out-of-band");
    } else {
      assert.equal(a.body.drift_alert, undefined);
    }
    // resubmitted: 200, the same entry, the same verdict
    const again = await postCose(base, "/v1/log/entries", v.envelope);
    assert.equal(again.status, 200);
    assert.equal(again.body.verdict, v.verdict);
  }
  assert.equal(indexes.length, 3, "valid, joule-unverified and alert are all appended");

  // a bulk append (application/cbor-seq) answers each item's verdict the same way
  const bulk = await fetch(new URL("/v1/log/entries", base), {
    method: "POST",
    headers: { "content-type": "application/cbor-seq", accept: "application/json" },
    body: concatBytes(...vs.map((v) => v.envelope)).slice(),
  });
  const b = await bulk.json();
  assert.equal(bulk.status, 200, JSON.stringify(b));
  for (const [k, v] of vs.entries()) {
    const r = b.results[k];
    if (v.verdict === "invalid") assert.equal(r.code, "joules-below-tools", JSON.stringify(r));
    else {
      assert.deepEqual([r.status, r.index, r.verdict], [200, indexes[k], v.verdict]);
      assert.equal(r.drift_alert !== undefined, v.verdict === "alert");
    }
  }

  const appended = vs.filter((v) => v.verdict !== "invalid");
  for (const [k, v] of appended.entries()) {
    const path = `/v1/log/entries/${indexes[k]}`;
    const json = JSON.parse(await getText(base, path, "application/json"));
    assert.equal(json.verdict, v.verdict, `${path} JSON`);
    const ld = JSON.parse(await getText(base, path, "application/ld+json"));
    assert.equal(ld.verification_verdict, v.verdict, `${path} JSON-LD`);
    // the shapes hold the entry's view, and refuse a verdict outside the four classes
    const valid = await validate(base, ld);
    assert.equal(valid.conforms, true, `${path}: ${JSON.stringify(valid.results)}`);
    const bogus = await validate(base, { ...ld, verification_verdict: "fine" });
    assert.equal(bogus.conforms, false);
    assert.equal(bogus.results[0].path, "jc:verificationVerdict");
    const nq = await getText(base, path, "application/n-quads");
    assert.match(nq, new RegExp(`<${VERDICT_IRI}> "${v.verdict}" \\.`), `${path} N-Quads`);
    const ttl = await getText(base, path, "text/turtle");
    assert.match(ttl, new RegExp(`jc:verificationVerdict "${v.verdict}"`), `${path} Turtle`);
  }
  const exported = await getText(base, "/v1/log/export", "application/n-quads");
  for (const [k, v] of appended.entries()) {
    assert.ok(
      exported.includes(`<${VERDICT_IRI}> "${v.verdict}" <`) &&
        exported.includes(`/v1/log/entries/${indexes[k]}> .`),
      `export: entry ${indexes[k]} ${v.verdict}`,
    );
  }
  const metrics = await getText(base, "/metrics", "text/plain");
  // each class verified on /v1/verify, the append and the bulk; appended ones once more (resent)
  for (
    const [verdict, n] of [["valid", 4], ["joule-unverified", 4], ["alert", 4], ["invalid", 3]]
  ) {
    assert.match(metrics, new RegExp(`^jc_verdicts_total\\{verdict="${verdict}"\\} ${n}$`, "m"));
  }
  return indexes;
}
