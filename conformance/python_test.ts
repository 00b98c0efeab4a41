// The independent Python verifier (conformance/python/jcverify) re-verifies every published vector
// in CI. Its dependencies are Debian packages; when one is missing this test FAILS naming it.

import assert from "node:assert/strict";
import { SETS } from "./gen/all.ts";

const PY = "/usr/bin/python3";
const here = new URL(".", import.meta.url).pathname;
const vectorsDir = new URL("./vectors/", import.meta.url).pathname;
const tracesDir = new URL("./traces/", import.meta.url).pathname;

async function sh(cmd: string, args: string[], cwd = here) {
  try {
    const o = await new Deno.Command(cmd, {
      args,
      cwd,
      stdout: "piped",
      stderr: "piped",
      env: { PYTHONDONTWRITEBYTECODE: "1" },
    }).output();
    return {
      code: o.code,
      out: new TextDecoder().decode(o.stdout),
      err: new TextDecoder().decode(o.stderr),
    };
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { code: -1, out: "", err: String(e) };
    throw e;
  }
}

async function requireDeps() {
  const py = await sh(PY, ["-c", "print(1)"]);
  assert.equal(
    py.code,
    0,
    `Cannot run the Python verifier: ${PY} is missing (install Debian package python3)`,
  );
  for (
    const [mod, pkg] of [
      ["cbor2", "python3-cbor2"],
      ["nacl.signing", "python3-nacl"],
      ["cryptography.hazmat.primitives.asymmetric.ec", "python3-cryptography"],
    ]
  ) {
    const r = await sh(PY, ["-c", `import ${mod}`]);
    assert.equal(
      r.code,
      0,
      `Cannot run the Python verifier: module ${mod} is missing (install Debian package ${pkg})`,
    );
  }
  const b3 = await sh("b3sum", ["--version"]);
  assert.equal(
    b3.code,
    0,
    "Cannot run the Python verifier: the b3sum command is missing (install Debian package b3sum)",
  );
}

async function vectorCount(dir: string): Promise<number> {
  let n = 0;
  for (const f of Object.keys(SETS)) {
    n += JSON.parse(await Deno.readTextFile(`${dir}/${f}`)).vectors.length;
  }
  const traces = `${tracesDir}/outcome-traces.json`;
  return n + JSON.parse(await Deno.readTextFile(traces)).vectors.length;
}

Deno.test("python: jcverify re-verifies every published vector with no disagreement", async () => {
  await requireDeps();
  const r = await sh(PY, ["-m", "jcverify", vectorsDir, tracesDir], `${here}python`);
  assert.equal(r.code, 0, r.err + r.out);
  const n = await vectorCount(vectorsDir);
  // every schema is implemented here (meter-reading/1 too, issue 26): nothing envelope-only
  assert.match(r.out, /\(0 envelope-only/, r.out);
  assert.match(r.out, new RegExp(`checked ${n} vectors, 0 disagreements`), r.out);
});

Deno.test("python: jcverify notices a vector whose expectation is wrong (it can fail)", async () => {
  await requireDeps();
  const tmp = await Deno.makeTempDir();
  try {
    await Deno.copyFile(`${tracesDir}/outcome-traces.json`, `${tmp}/outcome-traces.json`);
    for (const f of [...Object.keys(SETS), "operator-config.json"]) {
      await Deno.copyFile(`${vectorsDir}/${f}`, `${tmp}/${f}`);
    }
    const neg = JSON.parse(await Deno.readTextFile(`${tmp}/negative.json`));
    const v = neg.vectors.find((x: { name: string }) => x.name === "neg-provenance-not-worst");
    v.expected.codes = ["joules-below-tools"]; // a wrong code
    const pos = JSON.parse(await Deno.readTextFile(`${tmp}/jcr1.json`));
    pos.vectors[0].expected = { valid: false, verdict: "invalid", codes: ["bad-signature"] }; // a valid one claimed refused
    // the alert vector claimed plain valid: the verdict class is compared too (SPEC §6)
    const al = pos.vectors.find((x: { name: string }) => x.name === "jcr1-13-alert-out-of-band");
    al.expected = { valid: true, verdict: "valid", codes: [] };
    // ES256: a valid high-s envelope with one signature bit flipped still claimed valid, and an
    // r-range refusal claimed as an s-range one (so ES256 verification itself is exercised)
    const es = JSON.parse(await Deno.readTextFile(`${tmp}/es256.json`));
    const hs = es.vectors.find((x: { name: string }) => x.name === "es256-high-s");
    hs.cose_sign1_hex = hs.cose_sign1_hex.slice(0, -2) +
      (parseInt(hs.cose_sign1_hex.slice(-2), 16) ^ 1).toString(16).padStart(2, "0");
    const rz = es.vectors.find((x: { name: string }) => x.name === "neg-es256-r-zero");
    rz.expected.codes = ["es256-s-range"];
    await Deno.writeTextFile(`${tmp}/es256.json`, JSON.stringify(es));
    // meter-reading/1 judged, not only its envelope: a stale-evidence refusal claimed not-live
    const mr = JSON.parse(await Deno.readTextFile(`${tmp}/meter-reading.json`));
    const st = mr.vectors.find((x: { name: string }) => x.name === "neg-reading-stale-evidence");
    st.expected.codes = ["reading-not-live"];
    await Deno.writeTextFile(`${tmp}/meter-reading.json`, JSON.stringify(mr));
    await Deno.writeTextFile(`${tmp}/negative.json`, JSON.stringify(neg));
    // JCP §5.3: a clamped residual claimed as a per-unit refusal, and a twice-bound activity's
    // outcome claimed logged (the replay of the log is judged too)
    const oc = JSON.parse(await Deno.readTextFile(`${tmp}/outcomes.json`));
    const cl = oc.vectors.find((x: { name: string }) =>
      x.name === "neg-efficiency-residual-clamped"
    );
    cl.expected.codes = ["partial-per-unit"];
    await Deno.writeTextFile(`${tmp}/outcomes.json`, JSON.stringify(oc));
    const tr = JSON.parse(await Deno.readTextFile(`${tmp}/outcome-traces.json`));
    const bt = tr.vectors.find((x: { name: string }) => x.name === "trace-bound-twice");
    bt.expected[2] = "logged";
    await Deno.writeTextFile(`${tmp}/outcome-traces.json`, JSON.stringify(tr));
    await Deno.writeTextFile(`${tmp}/jcr1.json`, JSON.stringify(pos));
    const r = await sh(PY, ["-m", "jcverify", tmp], `${here}python`);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /8 disagreements/);
    assert.match(r.err, /neg-efficiency-residual-clamped/);
    assert.match(r.err, /trace-bound-twice/);
    assert.match(r.err, /jcr1-13-alert-out-of-band: expected valid \[\], got alert/);
    assert.match(r.err, /neg-reading-stale-evidence/);
    assert.match(r.err, /neg-provenance-not-worst/);
    assert.match(r.err, /es256-high-s/);
    assert.match(r.err, /neg-es256-r-zero/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
