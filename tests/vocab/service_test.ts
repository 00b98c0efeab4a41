// The RDF side of the real running service (API.md, SPEC §13–15): the service is started on
// 127.0.0.1 (free port, memory log), receipts are appended over HTTP, and then independent clients
// read them back: fetch-sparql-endpoint queries /v1/sparql for the total joules_uj per tier and
// per provenance, Python's rdflib parses v1.ttl, v1.shapes.ttl and the N-Quads export and computes
// the same sums with its own SPARQL engine; both must equal the sums computed from the receipts'
// JSON. Also: entry content negotiation, the vocabulary files, /v1/validate, the SPARQL protocol.
import assert from "node:assert/strict";
import { SparqlEndpointFetcher } from "fetch-sparql-endpoint";
import { startService } from "../../api/deno/main.ts";
import {
  blake3,
  coseSign1,
  didKeyFromPublicKey,
  ed25519PublicKey,
  encodeCbor,
  fromHex,
  toHex,
} from "../../verify/mod.ts";
import { JC } from "../../vocab/mod.ts";
import { vectorDocs } from "./_docs.ts";

const TIERS = ["L0", "L1", "L2", "L3", "L4"];
const PROVS = ["HwShunt", "ModelBased", "Estimator"];
const IRI: Record<string, string> = {
  L0: "Cache",
  L1: "Lawful",
  L2: "Embed",
  L3: "Model",
  L4: "Wire",
};

/** Our own receipts: every tier × provenance, so each group has several members. */
function ownReceipts(): { json: Record<string, unknown>; envelope: Uint8Array }[] {
  const secret = new Uint8Array(32).fill(42);
  const did = didKeyFromPublicKey(ed25519PublicKey(secret));
  const out = [];
  for (let n = 0; n < 30; n++) {
    const prov = PROVS[n % 3];
    const tier = TIERS[n % 5];
    const joules = prov === "HwShunt" ? 4200 + n : 1000 * (5 + n); // resolution floor (JCR-1 §2.3)
    const json = {
      jc_receipt: "1",
      id: `svc-${n}`,
      closed_at: "2026-05-31T18:04:22Z",
      input_hash: toHex(blake3(new TextEncoder().encode(`svc ${n}`))),
      tier,
      joules_uj: joules,
      energy_provenance: prov,
      steward: did,
      tools_touched: [{ tool_id: "iac:x", joules_uj: joules, energy_provenance: prov }],
      ...(tier === "L0" || tier === "L1" ? {} : { claims: [] }),
    };
    out.push({ json, envelope: coseSign1(encodeCbor(json), secret, did) });
  }
  return out;
}

async function python(args: string[]) {
  const r = await new Deno.Command("/usr/bin/python3", { args, stdout: "piped", stderr: "piped" })
    .output();
  const err = new TextDecoder().decode(r.stderr);
  if (r.code === 3) {
    throw new Error(`rdflib check cannot run: ${err.trim()} — install python3-rdflib`);
  }
  assert.equal(r.code, 0, err);
  return JSON.parse(new TextDecoder().decode(r.stdout));
}

Deno.test("service: RDF, SPARQL and validation over the real running service", async (t) => {
  const svc = await startService({
    PORT: "0",
    HOST: "127.0.0.1",
    JC_STORE: "memory",
    JC_RATE_READ: "0",
    JC_RATE_WRITE: "0",
  });
  try {
    const base = svc.url;
    // ---- append: every positive conformance vector the default configuration accepts, and ours
    const accepted: Record<string, unknown>[] = [];
    const vectors = JSON.parse(
      await Deno.readTextFile(new URL("../../conformance/vectors/jcr1.json", import.meta.url)),
    ).vectors;
    const sibling = JSON.parse(
      await Deno.readTextFile(
        new URL("../../conformance/vectors/siblings.json", import.meta.url),
      ),
    ).vectors;
    const envelopes: { json: Record<string, unknown>; envelope: Uint8Array }[] = [
      ...[...vectors, ...sibling].filter((v: { expected: { valid: boolean } }) => v.expected.valid)
        .map((v: { json: Record<string, unknown>; cose_sign1_hex: string }) => ({
          json: v.json,
          envelope: fromHex(v.cose_sign1_hex),
        })),
      ...ownReceipts(),
    ];
    for (const e of envelopes) {
      const res = await fetch(`${base}/v1/log/entries`, {
        method: "POST",
        headers: { "content-type": "application/cose" },
        body: e.envelope.slice(),
      });
      await res.body?.cancel();
      if (res.status === 201) accepted.push(e.json);
    }
    assert.ok(accepted.length >= 40, `only ${accepted.length} entries appended`);
    // Sums from the JSON (u64 exact: bigints).
    const expTier: Record<string, string> = {};
    const expProv: Record<string, string> = {};
    for (const j of accepted) {
      if (j.jc_receipt !== "1") continue;
      const v = BigInt(j.joules_uj as string | number);
      const t1 = JC + IRI[j.tier as string];
      const p1 = JC + (j.energy_provenance as string);
      expTier[t1] = String(BigInt(expTier[t1] ?? 0) + v);
      expProv[p1] = String(BigInt(expProv[p1] ?? 0) + v);
    }
    assert.equal(Object.keys(expTier).length, 5);

    await t.step("fetch-sparql-endpoint: SUM(joules_uj) per tier and per provenance", async () => {
      // The store loads in the background from the first query on (503 sparql-loading until then).
      for (let i = 0;; i++) {
        const r = await fetch(`${base}/v1/sparql?query=${encodeURIComponent("ASK {}")}`);
        const body = await r.text();
        if (r.status === 200) break;
        assert.equal(JSON.parse(body).code, "sparql-loading", body);
        assert.ok(Number(r.headers.get("retry-after")) >= 1);
        assert.ok(i < 300, "the SPARQL store never became ready");
        await new Promise((res) => setTimeout(res, 100));
      }
      const fetcher = new SparqlEndpointFetcher({ method: "POST" });
      for (const [prop, expected] of [["tier", expTier], ["energyProvenance", expProv]] as const) {
        // Oxigraph's xsd:integer is 64-bit signed: a u64 above 2^63-1 (vector jcr1-11) is summed
        // exactly through its lexical form as xsd:decimal (docs/RDF.md).
        const q = `PREFIX jc: <${JC}> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
          SELECT ?k (SUM(xsd:decimal(STR(?j))) AS ?total) WHERE { ?r a jc:Receipt ; jc:${prop} ?k ; jc:joulesUj ?j } GROUP BY ?k`;
        const got: Record<string, string> = {};
        const stream = await fetcher.fetchBindings(`${base}/v1/sparql`, q);
        for await (const b of stream as AsyncIterable<Record<string, { value: string }>>) {
          got[b.k.value] = BigInt(b.total.value.replace(/\.0*$/, "")).toString();
        }
        assert.deepEqual(got, expected, prop);
      }
      assert.equal(
        await fetcher.fetchAsk(
          `${base}/v1/sparql`,
          `ASK { ?r <${JC}logIndex> ${accepted.length - 1} }`,
        ),
        true,
      );
    });

    let exportText = "";
    await t.step("export: one named graph per entry, with log index and leaf hash", async () => {
      const res = await fetch(`${base}/v1/log/export`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/n-quads");
      exportText = await res.text();
      for (let i = 0; i < accepted.length; i++) {
        assert.ok(
          exportText.includes(
            `<${JC}logIndex> "${i}"^^<http://www.w3.org/2001/XMLSchema#nonNegativeInteger> <${base}/v1/log/entries/${i}> .`,
          ),
          `entry ${i}`,
        );
      }
      const part = await (await fetch(`${base}/v1/log/export?start=2&end=4`)).text();
      assert.equal(new Set(part.trim().split("\n").map((l) => l.split(" ").at(-2))).size, 2);
      const bad = await fetch(`${base}/v1/log/export?start=5&end=4`);
      assert.equal(bad.status, 400);
      assert.equal((await bad.json()).code, "bad-parameter");
    });

    await t.step(
      "rdflib: parses v1.ttl, v1.shapes.ttl and the export; its SPARQL gives the same sums",
      async () => {
        const dir = await Deno.makeTempDir();
        try {
          const f = `${dir}/export.nq`;
          await Deno.writeTextFile(f, exportText);
          const vocab = new URL("../../vocab/", import.meta.url).pathname;
          const r = await python([
            new URL("./rdflib_check.py", import.meta.url).pathname,
            `${vocab}v1.ttl`,
            `${vocab}v1.shapes.ttl`,
            f,
          ]);
          assert.ok(r.ontology_triples > 1000 && r.ontology_classes >= 40, JSON.stringify(r));
          assert.ok(r.node_shapes >= 35, JSON.stringify(r));
          assert.equal(r.graphs, accepted.length);
          assert.deepEqual(r.log_indexes, [...Array(accepted.length).keys()]);
          assert.deepEqual(r.by_tier, expTier);
          assert.deepEqual(r.by_provenance, expProv);
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
      },
    );

    await t.step("entries as RDF by content negotiation", async () => {
      const url = `${base}/v1/log/entries/0`;
      const ld = await fetch(url, { headers: { accept: "application/ld+json" } });
      assert.equal(ld.headers.get("content-type"), "application/ld+json");
      assert.match(ld.headers.get("vary") ?? "", /Accept/);
      const doc = await ld.json();
      assert.equal(doc["@id"], url);
      assert.equal(doc["@context"], "https://jouleclaw.transaction.science/vocab/v1.jsonld");
      assert.equal(doc.log_index, 0);
      const nq = await (await fetch(url, { headers: { accept: "application/n-quads" } })).text();
      assert.ok(
        nq.includes(`<${url}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${JC}Receipt>`),
        nq,
      );
      const ttl = await fetch(url, { headers: { accept: "text/turtle" } });
      assert.match(ttl.headers.get("content-type") ?? "", /text\/turtle/);
      assert.match(await ttl.text(), /jc:logIndex/);
      const no = await fetch(url, { headers: { accept: "image/png" } });
      assert.equal(no.status, 406);
      assert.equal((await no.json()).code, "not-acceptable");
    });

    await t.step(
      "SPARQL protocol: GET, forms, formats, 400/406/415, no updates, service description",
      async () => {
        const ep = `${base}/v1/sparql`;
        const q = `SELECT (COUNT(*) AS ?n) WHERE { ?s <${JC}logIndex> ?i }`;
        const get = await fetch(`${ep}?query=${encodeURIComponent(q)}`);
        assert.equal(get.status, 200);
        assert.equal((await get.json()).results.bindings[0].n.value, String(accepted.length));
        assert.equal(get.headers.get("jc-tree-size"), String(accepted.length));
        const form = await fetch(ep, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/csv" },
          body: new URLSearchParams({ query: q }),
        });
        assert.equal((await form.text()).trim().split(/\r?\n/)[1], String(accepted.length));
        const tsv = await fetch(ep, {
          method: "POST",
          headers: {
            "content-type": "application/sparql-query",
            accept: "text/tab-separated-values",
          },
          body: q,
        });
        assert.match(await tsv.text(), /^\?n/);
        const xml = await fetch(`${ep}?query=${encodeURIComponent("ASK {}")}`, {
          headers: { accept: "application/sparql-results+xml" },
        });
        assert.match(await xml.text(), /<boolean>true<\/boolean>/);
        const construct = `CONSTRUCT { ?s <${JC}logIndex> ?i } WHERE { ?s <${JC}logIndex> ?i }`;
        const nt = await fetch(`${ep}?query=${encodeURIComponent(construct)}`, {
          headers: { accept: "application/n-triples" },
        });
        assert.equal(nt.status, 200);
        assert.equal((await nt.text()).trim().split("\n").length, accepted.length);
        const r406 = await fetch(`${ep}?query=${encodeURIComponent(construct)}`, {
          headers: { accept: "application/sparql-results+json" },
        });
        assert.equal(r406.status, 406);
        await r406.body?.cancel();
        const r415 = await fetch(ep, {
          method: "POST",
          headers: { "content-type": "text/plain" },
          body: q,
        });
        assert.equal(r415.status, 415);
        await r415.body?.cancel();
        const bad = await fetch(`${ep}?query=${encodeURIComponent("SELECT WHERE {")}`);
        assert.equal(bad.status, 400);
        assert.equal((await bad.json()).code, "sparql-bad-query");
        for (
          const body of [
            new URLSearchParams({ query: "INSERT DATA { <a> <b> <c> }" }),
            new URLSearchParams({ update: "DELETE WHERE { ?s ?p ?o }" }),
          ]
        ) {
          const up = await fetch(ep, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body,
          });
          assert.equal(up.status, 400);
          assert.equal((await up.json()).code, "sparql-update-refused");
        }
        // GET ?update= (alone or beside a query): refused too, never the service description
        for (
          const qs of [
            "update=DELETE+WHERE+%7B+%3Fs+%3Fp+%3Fo+%7D",
            `update=x&query=${encodeURIComponent(q)}`,
          ]
        ) {
          const up = await fetch(`${ep}?${qs}`);
          assert.equal(up.status, 400, qs);
          assert.equal(up.headers.get("content-type"), "application/problem+json");
          assert.equal((await up.json()).code, "sparql-update-refused", qs);
        }
        // Nothing was changed by the refused updates.
        const again = await fetch(`${ep}?query=${encodeURIComponent(q)}`);
        assert.equal((await again.json()).results.bindings[0].n.value, String(accepted.length));
        const sd = await fetch(ep);
        assert.equal(sd.status, 200);
        assert.match(await sd.text(), /sd:SPARQL11Query/);
      },
    );

    await t.step("vocabulary files and /v1/validate", async () => {
      for (
        const [p, ct] of [
          ["/vocab/v1.jsonld", "application/ld+json"],
          ["/vocab/v1.ttl", "text/turtle"],
          ["/vocab/v1.shapes.ttl", "text/turtle"],
          ["/vocab/v1", "text/html"],
        ]
      ) {
        const r = await fetch(base + p);
        assert.equal(r.status, 200, p);
        assert.match(r.headers.get("content-type") ?? "", new RegExp(ct.replace("+", "\\+")), p);
        await r.body?.cancel();
      }
      const v = async (body: string, ct = "application/json", q = "") =>
        await fetch(`${base}/v1/validate${q}`, {
          method: "POST",
          headers: { "content-type": ct },
          body,
        });
      const ok = await v(JSON.stringify(vectorDocs()[0].json));
      const okBody = await ok.json();
      assert.equal(okBody.conforms, true);
      assert.ok(okBody.focus_nodes >= 1);
      assert.equal(
        okBody.report["@graph"] ? "graph" : okBody.report["@type"],
        "sh:ValidationReport",
      );
      const bad = await (await v(JSON.stringify({ ...vectorDocs()[0].json, tier: "L7" }))).json();
      assert.equal(bad.conforms, false);
      assert.equal(bad.results[0].path, "jc:tier");
      assert.equal(bad.results[0].field, "tier");
      const th = await (await v(
        JSON.stringify(await (await fetch(`${base}/v1/log/tree-head`)).json()),
        "application/json",
        "?class=TreeHead",
      )).json();
      assert.equal(th.conforms, true, JSON.stringify(th.results));
      for (
        const [body, ct, status, code] of [
          ["{", "application/json", 400, "bad-json"],
          ['{"hello":1}', "application/json", 400, "unknown-document-type"],
          [
            '{"@context":"https://evil.example/ctx","@type":"x"}',
            "application/ld+json",
            400,
            "context-not-available",
          ],
          ["{}", "text/plain", 415, "unsupported-media-type"],
        ] as const
      ) {
        const r = await v(body, ct);
        assert.equal(r.status, status, body);
        assert.equal((await r.json()).code, code, body);
      }
    });
  } finally {
    await svc.shutdown();
  }
});
