// deno-lint-ignore-file no-explicit-any -- JSON answers read field by field
// Issue 23, the configuration in force published and logged, over real processes and real HTTP:
// a verifier-config/1 entry is appended at start when the rules change (and only then), `GET
// /v1/verifier-config` names it, every report, append answer and entry view names the
// configuration it was judged under; a configuration envelope is refused on the public route; a
// malformed or oversize configuration stops the start naming the key; no byte the service writes
// holds a gateway secret; the Python verifier re-derives every entry's verdict from what the log
// publishes, entry by entry in agreement with the service's answers, across a configuration change.
import assert from "node:assert/strict";
import { ROOT, runClient, type Service, startService } from "../../fixtures/service.ts";
import { blake3, fromHex, toHex } from "../../verify/mod.ts";

const VECTORS = `${ROOT}conformance/vectors`;
const PY = "/usr/bin/python3";
type Vector = { name: string; cose_sign1_hex: string; expected: { valid: boolean } };

async function vectors(file: string): Promise<Vector[]> {
  return JSON.parse(await Deno.readTextFile(`${VECTORS}/${file}`)).vectors;
}

/** Every answer body the test read, for the secret grep. */
const answers: string[] = [];

async function call(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  answers.push(text);
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const post = (url: string, hex: string) =>
  call(url, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: fromHex(hex).slice().buffer as ArrayBuffer,
  });

/** The verdict a report states (`verdict`, issue 23: every report and append answer has one). */
function reportVerdict(r: any): string {
  assert.equal(typeof r.verdict, "string", `a report without its verdict: ${JSON.stringify(r)}`);
  return r.verdict;
}

async function pythonVerdicts(url: string): Promise<any[]> {
  const o = await new Deno.Command(PY, {
    args: ["-m", "jcverify.verdicts", url],
    cwd: `${ROOT}conformance/python`,
    env: { PYTHONDONTWRITEBYTECODE: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(o.stderr);
  assert.equal(o.code, 0, `python verdicts: ${err}`);
  return new TextDecoder().decode(o.stdout).trim().split("\n").map((l) => JSON.parse(l));
}

const JC = "https://jouleclaw.transaction.science/vocab/v1#";

/** Each entry's `jc:verificationVerdict` and `jc:verifierConfig` (by entry IRI) in an export. */
function exportFacts(nquads: string): Map<string, { v?: string; c?: string }> {
  const out = new Map<string, { v?: string; c?: string }>();
  for (const line of nquads.split("\n")) {
    const m = /^<([^>]+)> <([^>]+)> (.+) <([^>]+)> \.$/.exec(line);
    if (!m || m[1] !== m[4]) continue; // the entry's own node, in its own graph
    const at = out.get(m[1]) ?? {};
    if (m[2] === `${JC}verificationVerdict`) {
      assert.equal(at.v, undefined, `${m[1]}: one verdict`);
      at.v = /^"([^"]*)"/.exec(m[3])![1];
    } else if (m[2] === `${JC}verifierConfig`) {
      assert.equal(at.c, undefined, `${m[1]}: one configuration`);
      at.c = /^<([^>]+)>$/.exec(m[3])![1];
    } else continue;
    out.set(m[1], at);
  }
  return out;
}

/** The SPARQL store's `?e jc:verificationVerdict ?v; jc:verifierConfig ?c`, once it holds `n`. */
async function sparqlFacts(url: string, n: number): Promise<Map<string, { v: string; c: string }>> {
  const q = `PREFIX jc: <${JC}>\n` +
    "SELECT ?e ?v ?c WHERE { ?e jc:verificationVerdict ?v; jc:verifierConfig ?c }";
  const until = Date.now() + 60_000;
  for (;;) {
    const r = await call(`${url}/v1/sparql?query=${encodeURIComponent(q)}`, {
      headers: { accept: "application/sparql-results+json" },
    });
    if (r.status === 200 && r.body.results.bindings.length >= n) {
      const out = new Map<string, { v: string; c: string }>();
      for (const b of r.body.results.bindings) {
        assert.ok(!out.has(b.e.value), `${b.e.value}: one row`);
        out.set(b.e.value, { v: b.v.value, c: b.c.value });
      }
      return out;
    }
    if (r.status !== 200) assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.ok(Date.now() < until, `SPARQL: ${JSON.stringify(r.body).slice(0, 300)}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...await walk(p));
    else if (e.isFile) out.push(p);
  }
  return out;
}

function contains(hay: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

Deno.test({
  name: "verifier-config: logged when it changes, named by every answer, re-derived in Python",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-vconfig-" });
    const full = JSON.parse(await Deno.readTextFile(`${VECTORS}/operator-config.json`));
    // A: one reference vector fewer (its receipt joule-unverified under A); B: the vectors' own
    const a = { ...full, reference_vectors: { ...full.reference_vectors } };
    delete a.reference_vectors[Object.keys(full.reference_vectors)[0]];
    await Deno.writeTextFile(`${dir}/a.json`, JSON.stringify(a));
    await Deno.writeTextFile(`${dir}/b.json`, JSON.stringify(full));
    const reading = (await vectors("meter-reading.json"))[0];
    const agent = JSON.parse(await Deno.readTextFile(`${VECTORS}/meter-reading.json`)).vectors[0]
      .json.agent as string;
    const env = (f: string) => ({
      DATA_DIR: `${dir}/data`,
      JC_OPERATOR_CONFIG: `${dir}/${f}`,
      JC_AGENTS: `${agent}=meter`,
    });
    const positives = [
      ...(await vectors("jcr1.json")),
      ...(await vectors("siblings.json")),
      ...(await vectors("es256.json")),
    ];
    // the alert (joules out of band: appended, SPEC §6) is submitted on its own, under B
    const ALERT = "jcr1-13-alert-out-of-band";
    const outOfBand = positives.find((v) => v.name === ALERT)!;
    positives.splice(positives.indexOf(outOfBand), 1);
    positives.splice(0, positives.length, ...positives.filter((v) => v.expected.valid));
    const negatives = await vectors("negative.json");
    const invalid = negatives.find((v) => !v.expected.valid)!;
    const half = Math.ceil(positives.length / 2);
    const seen = new Map<number, { verdict: string; config: unknown }>();
    const services: Service[] = [];
    const submit = async (svc: Service, v: Vector) => {
      const rep = await post(`${svc.url}/v1/verify`, v.cose_sign1_hex);
      assert.equal(rep.status, 200);
      const app = await post(`${svc.url}/v1/log/entries`, v.cose_sign1_hex);
      assert.deepEqual(
        app.body.verifier_config ?? rep.body.verifier_config,
        rep.body.verifier_config,
      );
      if (app.status === 201) {
        seen.set(app.body.index, {
          verdict: reportVerdict(rep.body),
          config: app.body.verifier_config,
        });
      } else if (app.status === 422) {
        assert.notEqual(reportVerdict(rep.body), "valid", `${v.name} refused`);
      }
    };
    try {
      // 1. first start under A: the configuration is entry 0
      let svc = await startService(env("a.json"));
      services.push(svc);
      const c1 = (await call(`${svc.url}/v1/verifier-config`)).body;
      assert.equal(c1.index, 0);
      const e0 = new Uint8Array(
        await (await fetch(`${svc.url}/v1/log/entries/0`, {
          headers: { accept: "application/cose" },
        })).arrayBuffer(),
      );
      assert.equal(c1.digest, toHex(blake3(e0)), "digest: BLAKE3 of the logged envelope");
      assert.equal(c1.config.jc_config, "verifier-config/1");
      assert.equal(c1.config.seq, 1);
      assert.deepEqual(c1.config.gateways, ["gw-core-2", "gw-edge-7"]);
      assert.equal(Object.keys(c1.config.reference_vectors).length, 3);
      for (const r of Object.values(c1.config.reference_vectors) as { joules_uj: unknown }[]) {
        assert.equal(typeof r.joules_uj, "string", "a u64 as a decimal string");
      }
      // a configuration envelope is never appended through the public route
      const again = await post(`${svc.url}/v1/log/entries`, toHex(e0));
      assert.equal(again.status, 422);
      assert.equal(again.body.code, "verifier-config-not-appendable");
      for (const v of positives.slice(0, half)) await submit(svc, v);
      await submit(svc, invalid);
      const j0 = (await call(`${svc.url}/v1/log/entries/0`)).body;
      assert.equal(j0.schema, "verifier-config/1");
      assert.equal(j0.config.seq, 1);
      assert.equal(await svc.stop(), await svc.stop());
      // 2. the same rules again: nothing is appended
      svc = await startService(env("a.json"));
      services.push(svc);
      const size1 = (await call(`${svc.url}/v1/log/tree-head`)).body.size;
      assert.deepEqual((await call(`${svc.url}/v1/verifier-config`)).body.index, 0);
      await svc.stop();
      // 3. B: a second configuration entry names the first
      svc = await startService(env("b.json"));
      services.push(svc);
      const c2 = (await call(`${svc.url}/v1/verifier-config`)).body;
      assert.equal(c2.index, size1);
      assert.equal(c2.config.seq, 2);
      assert.deepEqual(c2.config.previous, { digest: c1.digest, index: 0 });
      // the client checks it against its entry: digest, operator signature, document
      const cl = await runClient(["verifier-config", "--url", svc.url]);
      assert.equal(cl.code, 0, cl.stderr);
      const clj = JSON.parse(cl.stdout);
      assert.equal(clj.verified, true);
      assert.equal(clj.index, c2.index);
      answers.push(cl.stdout);
      for (const v of positives.slice(half)) await submit(svc, v);
      await submit(svc, outOfBand);
      // every profile: a meter reading, appended by its own route, names the configuration too
      const rrep = await post(`${svc.url}/v1/verify`, reading.cose_sign1_hex);
      const rd = await call(`${svc.url}/v1/readings`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ envelopes: [reading.cose_sign1_hex] }),
      });
      assert.equal(rd.status, 200);
      assert.equal(typeof rd.body.results[0].index, "number", JSON.stringify(rd.body));
      assert.equal(rd.body.results[0].verdict, reportVerdict(rrep.body), "a reading's verdict");
      assert.deepEqual(rd.body.verifier_config, { digest: c2.digest, index: c2.index });
      seen.set(rd.body.results[0].index, {
        verdict: reportVerdict(rrep.body),
        config: rd.body.verifier_config,
      });
      const size = (await call(`${svc.url}/v1/log/tree-head`)).body.size;
      // every entry's JSON view names the configuration it was judged under
      for (let i = 0; i < size; i++) {
        const e = (await call(`${svc.url}/v1/log/entries/${i}`)).body;
        const want = i === 0 ? undefined : i <= size1 ? { digest: c1.digest, index: 0 } : {
          digest: c2.digest,
          index: c2.index,
        };
        assert.deepEqual(e.verifier_config, want, `entry ${i}`);
        if (seen.has(i)) assert.deepEqual(seen.get(i)!.config, want, `append answer ${i}`);
      }
      // and its RDF view too
      const ld = (await call(`${svc.url}/v1/log/entries/1`, {
        headers: { accept: "application/ld+json" },
      })).body;
      assert.deepEqual(ld.verifier_config, { "@id": `${svc.url}/v1/log/entries/0` });
      // 4. the Python verifier, from what the log publishes, agrees entry by entry
      const py = await pythonVerdicts(svc.url);
      assert.equal(py.length, size);
      const classes = new Set<string>();
      for (const r of py) {
        if (r.index === 0 || r.index === c2.index) {
          assert.equal(r.verdict, "configuration", `entry ${r.index}`);
          continue;
        }
        const s = seen.get(r.index);
        assert.ok(s, `entry ${r.index} was appended by this test`);
        assert.equal(r.verdict, s.verdict, `entry ${r.index}: python ${r.verdict}`);
        // and the service's own view of the logged entry says the same
        const view = (await call(`${svc.url}/v1/log/entries/${r.index}`)).body;
        assert.equal(view.verdict, r.verdict, `entry ${r.index}: the entry's JSON view`);
        assert.deepEqual(r.verifier_config, s.config, `entry ${r.index}: configuration`);
        classes.add(r.verdict);
      }
      // 4b. the export and the SPARQL store say the same, entry by entry: each receipt's verdict
      // under the configuration it was judged under (not today's), and that configuration's IRI
      const iri = (i: number) => `${svc.url}/v1/log/entries/${i}`;
      const exp = await fetch(`${svc.url}/v1/log/export`);
      assert.equal(exp.status, 200);
      const text = await exp.text();
      answers.push(text);
      const ex = exportFacts(text);
      const receipts = py.filter((r) => r.verdict !== "configuration");
      const sq = await sparqlFacts(svc.url, receipts.length);
      assert.equal(sq.size, receipts.length, "one row per receipt, none per configuration");
      for (const r of py) {
        const e = ex.get(iri(r.index)) ?? {};
        if (r.verdict === "configuration") {
          // no verdict class; it names the configuration before it, as its JSON view does
          assert.equal(e.v, undefined, `export: configuration entry ${r.index} has no verdict`);
          assert.equal(e.c, r.index === 0 ? undefined : iri(0), `export: entry ${r.index}`);
          continue;
        }
        const want = { v: r.verdict, c: iri(r.verifier_config.index) };
        assert.deepEqual(e, want, `export: entry ${r.index} (python ${JSON.stringify(want)})`);
        assert.deepEqual(sq.get(iri(r.index)), want, `SPARQL: entry ${r.index}`);
      }
      // the change mattered: a receipt joule-unverified under A would be valid under B's vectors
      assert.ok(
        py.some((r) => r.verdict === "joule-unverified" && r.verifier_config.index === 0),
        "a receipt classed under the first configuration's vectors",
      );
      // every appendable class is in the log (invalid ones are the 422s above)
      assert.deepEqual([...classes].sort(), ["alert", "joule-unverified", "valid"]);
      assert.ok(py.some((r) => r.operator_attested), "a gateway HMAC is operator-attested");
      // 5. no byte the service wrote holds a gateway secret
      const stdio = services.map((s) => s.stdout() + s.stderr()).join("\n");
      for (const hex of Object.values(full.gateway_keys) as string[]) {
        assert.ok(!stdio.includes(hex), "stdout/stderr");
        assert.ok(!answers.some((t) => t.includes(hex)), "answers");
        for (const f of await walk(`${dir}/data`)) {
          const bytes = await Deno.readFile(f);
          assert.ok(!contains(bytes, new TextEncoder().encode(hex)), `${f}: hex secret`);
          assert.ok(!contains(bytes, fromHex(hex)), `${f}: raw secret`);
        }
      }
      await svc.stop();
    } finally {
      for (const s of services) await s.stop().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});

async function failedStart(env: Record<string, string>) {
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "start"],
    cwd: ROOT,
    env: { PORT: "0", HOST: "127.0.0.1", NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: o.code, err: new TextDecoder().decode(o.stderr) };
}

Deno.test("verifier-config: a malformed or oversize configuration stops the start, naming the key", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-vconfig-bad-" });
  try {
    await Deno.writeTextFile(`${dir}/bad.json`, JSON.stringify({ gateway_keys: { "gw-x": 5 } }));
    const bad = await failedStart({ DATA_DIR: `${dir}/d1`, JC_OPERATOR_CONFIG: `${dir}/bad.json` });
    assert.equal(bad.code, 1);
    assert.match(bad.err, /gateway_keys\.gw-x/);
    assert.match(bad.err, /\(verifier-config-malformed\)/);
    const refs: Record<string, { joules_uj: number }> = {};
    for (let i = 0; i < 1200; i++) {
      refs[toHex(blake3(new TextEncoder().encode(String(i))))] = { joules_uj: 1000 + i };
    }
    await Deno.writeTextFile(`${dir}/big.json`, JSON.stringify({ reference_vectors: refs }));
    const big = await failedStart({ DATA_DIR: `${dir}/d2`, JC_OPERATOR_CONFIG: `${dir}/big.json` });
    assert.equal(big.code, 1);
    assert.match(big.err, /reference_vectors/);
    assert.match(big.err, /\(verifier-config-too-large\)/);
    const hex = await failedStart({
      DATA_DIR: `${dir}/d3`,
      JC_OPERATOR_CONFIG: `${dir}/nope.json`,
    });
    assert.equal(hex.code, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
