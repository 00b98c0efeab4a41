// Issue 25 (docs/RDF.md "Identities"): an identity is a typed resource, not only JSON. GET
// /v1/keys/{identity} answers JSON-LD, N-Quads or Turtle by content negotiation (a jc:Identity
// node, its key events named by their entry URLs), and /v1/sparql's store holds one jc:Identity
// node per identity, replaced as its key events load: after a rotation it shows the new current
// key and seq, once. Chains built by conformance/python/jckeys (written from JCP §2.1's text),
// over real HTTP on the real service.
import assert from "node:assert/strict";
import { Store } from "oxigraph";
import { startService } from "../../fixtures/service.ts";
import { postTo, pyKeys } from "./_keys_http.ts";

const JC = "https://jouleclaw.transaction.science/vocab/v1#";

interface Step {
  name: string;
  hex: string;
  expect: string;
}

/** The identity's node in /v1/sparql's store once it covers `size` entries: seq, current, events. */
async function sparqlIdentity(u: string, id: string, size: number) {
  const q = `PREFIX jc: <${JC}>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
SELECT ?node ?seq ?current ?next (GROUP_CONCAT(STR(?ev); separator=" ") AS ?events) WHERE {
  ?node a jc:Identity ; jc:identity "${id}" ; jc:seq ?seq ; jc:currentKey ?current ;
    jc:nextKeyHash ?next ; jc:keyEvents/rdf:rest*/rdf:first ?ev .
  ?ev jc:logIndex ?i ; jc:identity "${id}" .
} GROUP BY ?node ?seq ?current ?next`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await fetch(`${u}/v1/sparql`, {
      method: "POST",
      headers: {
        "content-type": "application/sparql-query",
        accept: "application/sparql-results+json",
      },
      body: q,
    });
    const loaded = Number(r.headers.get("jc-tree-size") ?? -1);
    if ((r.status === 503 || (r.status === 200 && loaded < size)) && Date.now() < deadline) {
      await r.body?.cancel();
      await new Promise((res) => setTimeout(res, 200));
      continue;
    }
    const body = await r.json();
    assert.equal(r.status, 200, JSON.stringify(body));
    return body.results.bindings as Record<string, { value: string }>[];
  }
}

Deno.test({
  name: "e2e keys rdf: GET /v1/keys/{identity} negotiates RDF; /v1/sparql holds the identity",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-keys-rdf-" });
    const svc = await startService({ DATA_DIR: dir, JC_BATCH_AGE_MS: "2" });
    const u = svc.url;
    try {
      const doc = await pyKeys(["lifecycle", "5"]) as {
        identity: string;
        keys: string[];
        steps: Step[];
      };
      const id = doc.identity;
      const at: Record<string, number> = {};
      const send = async (upTo?: string) => {
        for (const s of doc.steps) {
          if (s.name in at || !(s.expect === "logged" || s.expect === "fork")) continue;
          const route = s.name.startsWith("receipt") ? "/v1/log/entries" : "/v1/keys/events";
          const r = await postTo(u, route, s.hex);
          assert.equal(r.status, 201, `${s.name}: ${JSON.stringify(r.body)}`);
          at[s.name] = r.body.index as number;
          if (s.name === upTo) return;
        }
      };
      const size = async () => (await (await fetch(`${u}/v1/log/tree-head`)).json()).size;

      // after the first rotation: seq 1, the rotated-to key, two events
      await send("rotation-1");
      let rows = await sparqlIdentity(u, id, await size());
      assert.equal(rows.length, 1, JSON.stringify(rows));
      assert.equal(rows[0].node.value, `${u}/v1/keys/${id}`);
      assert.equal(rows[0].seq.value, "1");
      assert.equal(rows[0].current.value, doc.keys[1]);
      assert.equal(rows[0].events.value.split(" ").length, 2);

      // after the second rotation and a fork: replaced, not added to (one node, one seq)
      await send();
      rows = await sparqlIdentity(u, id, await size());
      assert.equal(rows.length, 1, JSON.stringify(rows));
      assert.equal(rows[0].seq.value, "2");
      assert.equal(rows[0].current.value, doc.keys[2]);
      const json = await (await fetch(`${u}/v1/keys/${id}`)).json();
      assert.equal(rows[0].next.value, json.next_hash);
      assert.deepEqual(
        rows[0].events.value.split(" ").sort(),
        json.events.map((i: number) => `${u}/v1/log/entries/${i}`).sort(),
      );

      // content negotiation: JSON by default, JSON-LD, N-Quads, Turtle; 406 otherwise
      const get = (accept: string) => fetch(`${u}/v1/keys/${id}`, { headers: { accept } });
      const ld = await get("application/ld+json");
      assert.equal(ld.headers.get("content-type"), "application/ld+json");
      assert.equal(ld.headers.get("cache-control"), "no-cache");
      const node = await ld.json();
      assert.equal(node["@id"], `${u}/v1/keys/${id}`);
      assert.equal(node["@type"], "Identity");
      assert.equal(node.current, doc.keys[2]);
      assert.equal(node.forked_at, `${u}/v1/log/entries/${at["fork-at-2"]}`);
      const nq = await (await get("application/n-quads")).text();
      const store = new Store();
      store.load(nq, { format: "application/n-quads" });
      const ask = (q: string) => store.query(`PREFIX jc: <${JC}> ${q}`) as boolean;
      assert.ok(
        ask(
          `ASK { <${u}/v1/keys/${id}> a jc:Identity ; jc:seq 2 ; jc:currentKey "${
            doc.keys[2]
          }" ; jc:forkedAt <${u}/v1/log/entries/${at["fork-at-2"]}> }`,
        ),
      );
      const ttl = await get("text/turtle");
      assert.match(ttl.headers.get("content-type") ?? "", /^text\/turtle/);
      assert.match(await ttl.text(), /jc:Identity/);
      const none = await get("image/png");
      assert.equal(none.status, 406);
      await none.body?.cancel();
      // the shapes accept the node (the vocabulary's own validation route)
      const v = await fetch(`${u}/v1/validate`, {
        method: "POST",
        headers: { "content-type": "application/ld+json" },
        body: JSON.stringify(node),
      });
      const report = await v.json();
      assert.equal(report.conforms, true, JSON.stringify(report));
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
