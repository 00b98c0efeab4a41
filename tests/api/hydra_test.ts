// The Hydra ApiDocumentation (JouleClaw SPEC §14) read by an independent Hydra client: Alcaeus,
// configured with the @zazuko/env RDF/JS environment, discovers the documentation through the
// Link header of `GET /`, and every operation it finds must exist as a route — and every route
// of the table must be found as an operation. jsonld.js cross-checks the documents as RDF.
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import create from "alcaeus";
import Environment from "@zazuko/env/Environment.js";
import rdf from "@zazuko/env";
import jsonld from "jsonld";
import {
  allRoutes,
  apiDocumentation,
  NS,
  ROUTE_GROUPS,
  statusesOf,
  toUriTemplate,
} from "../../api/mod.ts";
import type { RouteDef } from "../../api/mod.ts";
import { steward, testApp, validEnvelope } from "../../fixtures/app.ts";
import { entryLeafHash, toHex } from "../../verify/mod.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** The RDF/JS "formats" part of the environment: JSON-LD parsed by jsonld.js into env quads. */
function jsonLdParsers(env: Any) {
  const types = ["application/ld+json"];
  const term = (t: Any): Any =>
    t.termType === "NamedNode"
      ? env.namedNode(t.value)
      : t.termType === "BlankNode"
      ? env.blankNode(t.value.replace(/^_:/, ""))
      : t.termType === "Literal"
      ? env.literal(t.value, t.language || env.namedNode(t.datatype.value))
      : env.defaultGraph();
  return {
    keys: () => types[Symbol.iterator](),
    import(
      mediaType: string,
      body: AsyncIterable<Uint8Array | string>,
      opts: { baseIRI?: string },
    ) {
      if (!types.includes(mediaType)) return null;
      const out = new Readable({ objectMode: true, read() {} });
      (async () => {
        let text = "";
        const dec = new TextDecoder();
        for await (const c of body) {
          text += typeof c === "string" ? c : dec.decode(c, { stream: true });
        }
        const quads: Any[] = await jsonld.toRDF(JSON.parse(text), { base: opts.baseIRI }) as Any;
        for (const q of quads) {
          out.push(env.quad(term(q.subject), term(q.predicate), term(q.object), term(q.graph)));
        }
        out.push(null);
      })().catch((e) => out.destroy(e));
      return out;
    },
  };
}

/** The route groups of issue 4 (others' groups are checked only for existence). */
const OWN_GROUPS = new Set(["discovery", "verify", "log-append", "log-read", "log-proofs", "ops"]);
const groupOf = (r: RouteDef) => ROUTE_GROUPS.find((g) => g.routes.includes(r))!.name;

const expand = (curie: string) => {
  const [p, l] = curie.split(":");
  return p in NS ? (NS as Record<string, string>)[p] + l : curie;
};

/** Classes operations return that live at no path (api/http/verdict_doc.ts). */
const RESULT_CLASSES = new Set([NS.jc + "VerificationReport", NS.jc + "AppendResult"]);

Deno.test("hydra: Alcaeus discovers every operation, and every operation is a route", async () => {
  const { fetchFn, app } = await testApp();
  // one entry, so that every templated GET has something to find
  const env0 = validEnvelope(1);
  assert.equal(
    (await app.request("/v1/log/entries", {
      method: "POST",
      headers: { "content-type": "application/cose" },
      body: env0,
    })).status,
    201,
  );

  const env: Any = new Environment(create({ fetch: fetchFn }), { parent: rdf });
  env.formats = { parsers: jsonLdParsers(env) };
  const { representation } = await env.hydra.loadResource("http://localhost/");
  const root = representation.root;
  assert.ok(root, "the EntryPoint parsed");
  assert.deepEqual([...root.types.values()].map((t: Any) => t.id.value), [NS.jc + "EntryPoint"]);
  // discovered through the Link header, not named by us
  assert.equal(env.hydra.apiDocumentations.length, 1);
  const doc = env.hydra.apiDocumentations[0].root;
  assert.equal(doc.id.value, "http://localhost/v1/api-doc");

  // Where each class lives, as the EntryPoint says: a plain link or an IRI template.
  const where = new Map<string, { url?: string; template?: string; vars: string[] }>();
  for (const cls of doc.supportedClass) {
    const id = cls.id.value;
    if (id === NS.jc + "EntryPoint") {
      where.set(id, { url: root.id.value, vars: [] });
      continue;
    }
    if (RESULT_CLASSES.has(id)) {
      // a class operations return (the report, the append answer) lives at no path of its own
      assert.equal([...cls.supportedOperation].length, 0, id);
      continue;
    }
    const link = doc.supportedClass.find((c: Any) => c.id.value === NS.jc + "EntryPoint")
      .supportedProperty.find((sp: Any) =>
        sp.property.pointer.out(env.namedNode(NS.rdfs + "range")).value === id
      );
    assert.ok(link, `EntryPoint has a link property to ${id}`);
    const value = root.get(link.property.id) ?? root[link.property.id.value];
    assert.ok(value, `EntryPoint has a value for ${link.property.id.value}`);
    if (value.template) {
      assert.equal(link.property.types.has(env.namedNode(NS.hydra + "TemplatedLink")), true);
      where.set(id, {
        template: value.template,
        vars: value.mapping.map((m: Any) => m.variable),
      });
    } else where.set(id, { url: value.id.value, vars: [] });
  }

  // JCR-1 §6, SPEC §6: the result classes document the verdict classes
  for (const id of RESULT_CLASSES) {
    const cls = doc.supportedClass.find((c: Any) => c.id.value === id);
    assert.ok(cls, `${id} is documented`);
    const props = [...cls.supportedProperty].map((sp: Any) => sp.property.id.value);
    assert.ok(props.includes(NS.jc + "verificationVerdict"), `${id}: ${props}`);
  }

  const found: { cls: string; method: string; path: string; op: Any }[] = [];
  for (const cls of doc.supportedClass) {
    for (const op of cls.supportedOperation) {
      const w = where.get(cls.id.value)!;
      const path = new URL(w.url ?? w.template!.replace(/\{\?.*\}$/, "")).pathname;
      found.push({ cls: cls.id.value, method: op.method, path: decodeURI(path), op });
    }
  }

  // Every route is a documented operation...
  const routes = allRoutes();
  const key = (m: string, p: string) => `${m} ${p}`;
  const documented = new Set(found.map((f) => key(f.method, f.path)));
  for (const r of routes) {
    assert.ok(
      documented.has(key(r.method, toUriTemplate(r.path))),
      `route ${r.method} ${r.path} has no documented operation`,
    );
  }
  // ...and every documented operation is a route that answers (never 404/405 for the route).
  const leaf = toHex(entryLeafHash(env0));
  const sample: Record<string, string> = {
    index: "0",
    size: "1",
    leaf_hash: leaf,
    first: "1",
    second: "1",
    start: "0",
    limit: "1",
    end: "1",
    query: "ASK%7B%7D",
    did: steward().did,
  };
  assert.equal(found.length, routes.length, "as many operations as routes");
  for (const f of found) {
    const r = routes.find((x) =>
      x.method === f.method && toUriTemplate(x.path) === f.path
    ) as RouteDef;
    assert.ok(r, `documented operation ${f.method} ${f.path} has no route`);
    const concrete = f.path.replace(/\{(\w+)\}/g, (_, v) => sample[v]);
    const q = r.query?.filter((v) => !(v === "leaf_hash" && r.query!.includes("index")))
      .map((v) => `${v}=${sample[v]}`).join("&");
    const res = await app.request(concrete + (q ? `?${q}` : ""), { method: f.method });
    const text = await res.text();
    // The router's own fallbacks (api/http/app.ts notFound) mean "no such route".
    const routerMiss = res.status === 405 ||
      (res.status === 404 && /no such resource"/.test(text));
    // (The SPARQL store answers 503 sparql-loading while it loads in the background, issue 15.)
    const loading = res.status === 503 && /"sparql-loading"/.test(text);
    assert.ok(
      !routerMiss && (res.status < 500 || loading),
      `${f.method} ${concrete}: ${res.status} ${text}`,
    );
    if (OWN_GROUPS.has(groupOf(r))) {
      // this issue's own rows: GETs find the seeded entry; POSTs refuse an empty body
      assert.ok(
        f.method === "GET" ? res.status === 200 : [400, 415].includes(res.status),
        `${f.method} ${concrete}: ${res.status}`,
      );
    }
    // The operation carries what SPEC §14 asks for.
    const op = f.op;
    assert.ok(op.title, `${f.path} title`);
    assert.equal(op.expects.map((e: Any) => e.id.value)[0], expand(r.operation.expects));
    assert.equal(op.returns.id.value, expand(r.operation.returns));
    assert.deepEqual(
      op.possibleStatus.map((s: Any) => s.statusCode).sort((a: number, b: number) => a - b),
      statusesOf(r).map((s) => s.status),
    );
    assert.equal(op.pointer.out(env.namedNode(NS.jc + "toolId")).value, r.operation.toolId);
    assert.equal(
      op.pointer.out(env.namedNode(NS.jc + "mutating")).value,
      String(r.operation.mutating),
    );
  }
});

Deno.test("hydra: a route without its documented operation is caught (and the reverse)", () => {
  const routes = allRoutes();
  const doc = apiDocumentation(routes, "http://x") as Any;
  const ops = doc.supportedClass.flatMap((c: Any) => c.supportedOperation);
  assert.equal(ops.length, routes.length);
  // dropping a row drops exactly its operation
  const fewer = apiDocumentation(routes.slice(1), "http://x") as Any;
  assert.equal(
    fewer.supportedClass.flatMap((c: Any) => c.supportedOperation).length,
    routes.length - 1,
  );
  // two rows on different paths cannot share a class
  assert.throws(
    () => apiDocumentation([routes[0], { ...routes[0], path: "/other" }], "http://x"),
    /Cannot build the Hydra documentation/,
  );
});

Deno.test("hydra: the ApiDocumentation is valid JSON-LD with the Hydra and jc: terms", async () => {
  const doc = apiDocumentation(allRoutes(), "http://x");
  const quads = (await jsonld.toRDF(doc as Any)) as Any[];
  const has = (p: string, o?: string) =>
    quads.some((q) => q.predicate.value === p && (o === undefined || q.object.value === o));
  assert.ok(has("http://www.w3.org/1999/02/22-rdf-syntax-ns#type", NS.hydra + "ApiDocumentation"));
  assert.ok(has(NS.hydra + "supportedClass"));
  assert.ok(has(NS.hydra + "supportedOperation"));
  assert.ok(has(NS.hydra + "possibleStatus"));
  assert.ok(has(NS.hydra + "statusCode"));
  assert.ok(has(NS.hydra + "method", "POST"));
  assert.ok(has(NS.hydra + "expects", NS.owl + "Nothing"));
  assert.ok(has(NS.jc + "toolId", "jouleclaw:log.append"));
  assert.ok(has(NS.jc + "mutating", "true"));
  assert.ok(has(NS.hydra + "entrypoint", "http://x/"));
});
