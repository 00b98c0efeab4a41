// GET /v1/openapi.json: an OpenAPI 3.1 document that @seriousme/openapi-schema-validator (the
// official 3.1 JSON Schema) accepts, generated from the same route table as the Hydra
// ApiDocumentation: every row is exactly one operation of each, and a row dropped from the table
// is dropped from both.
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { allRoutes } from "../../api/http/routes.ts";
import { apiDocumentation } from "../../api/http/hydra.ts";
import { openApiDocument } from "../../api/http/openapi.ts";
import { pathParams, type RouteDef, toUriTemplate } from "../../api/http/route.ts";
import { testApp } from "../../fixtures/app.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

async function validate(doc: unknown) {
  const v = new Validator();
  const r = await v.validate(doc as Any);
  return { ...r, version: v.version };
}

function hydraToolIds(routes: RouteDef[]): string[] {
  const doc = apiDocumentation(routes, "http://x") as Any;
  return doc.supportedClass.flatMap((c: Any) => c.supportedOperation.map((o: Any) => o.jc_tool_id))
    .sort();
}

function openApiOps(doc: Any): { method: string; path: string; op: Any }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item as Any).map(([method, op]) => ({ method, path, op }))
  );
}

Deno.test("openapi: the served document is valid OpenAPI 3.1", async () => {
  const { app } = await testApp();
  const res = await app.request("/v1/openapi.json");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^application\/json/);
  const doc = await res.json();
  assert.equal(doc.openapi, "3.1.0");
  assert.equal(doc.servers[0].url, "http://localhost");
  const r = await validate(doc);
  assert.equal(r.version, "3.1");
  assert.deepEqual(r.errors, undefined, JSON.stringify(r.errors)?.slice(0, 1000));
  assert.equal(r.valid, true);
  // and the validator can fail: responses that are not an object, a parameter without `in`
  const broken = structuredClone(doc);
  broken.paths["/v1/log/tree-head"].get.responses = "none";
  assert.equal((await validate(broken)).valid, false);
  const broken2 = structuredClone(doc);
  delete broken2.paths["/v1/log/proof/inclusion"].get.parameters[0].in;
  assert.equal((await validate(broken2)).valid, false);
});

Deno.test("openapi: one operation per route-table row, the same rows as the Hydra documentation", () => {
  const routes = allRoutes();
  const doc = openApiDocument(routes, "http://x") as Any;
  const ops = openApiOps(doc);
  assert.equal(ops.length, routes.length);
  for (const r of routes) {
    const op = doc.paths[toUriTemplate(r.path)]?.[r.method.toLowerCase()];
    assert.ok(op, `${r.method} ${r.path} is in the OpenAPI document`);
    assert.equal(op.summary, r.operation.title);
    const declared = (op.parameters ?? []).filter((p: Any) => p.in === "path").map((p: Any) =>
      p.name
    );
    assert.deepEqual(declared, pathParams(r.path), `${r.path}: path parameters`);
    for (const p of op.parameters ?? []) assert.ok(p.description, `${r.path} ${p.name} described`);
  }
  // The same rows as Hydra: the tool ids of both documents are the table's.
  const ids = routes.map((r) => r.operation.toolId).sort();
  assert.deepEqual(hydraToolIds(routes), ids);
  assert.deepEqual(ops.map((o) => `jouleclaw:${o.op.operationId}`).sort(), ids);
  assert.equal(new Set(ids).size, ids.length, "operationIds are unique");
  // Dropping a row drops it from both.
  const fewer = routes.filter((r) => r.operation.toolId !== "jouleclaw:log.key");
  assert.equal(openApiOps(openApiDocument(fewer, "http://x")).length, routes.length - 1);
  assert.equal(hydraToolIds(fewer).length, routes.length - 1);
  assert.ok(!("/v1/log/key" in (openApiDocument(fewer, "http://x") as Any).paths));
  // A row whose request body type is not described is refused, not published vaguely.
  const odd = {
    ...routes[0],
    method: "POST" as const,
    operation: { ...routes[0].operation, expects: "jc:Nope" },
  };
  assert.throws(() => openApiDocument([odd], "http://x"), /BODIES does not describe/);
});

Deno.test("openapi: reports and append answers carry the verdict classes (JCR-1 §6, SPEC §6)", () => {
  const doc = openApiDocument(allRoutes(), "http://x") as Any;
  assert.deepEqual(doc.components.schemas.Verdict.enum, [
    "valid",
    "joule-unverified",
    "alert",
    "invalid",
  ]);
  const append = doc.paths["/v1/log/entries"].post.responses;
  for (const status of ["200", "201"]) {
    const s = append[status].content["application/json"].schema;
    assert.ok(s.required.includes("verdict"), status);
    assert.equal(s.properties.verdict.$ref, "#/components/schemas/Verdict");
    assert.equal(s.properties.drift_alert.$ref, "#/components/schemas/DriftAlert");
  }
  const report = doc.paths["/v1/verify"].post.responses["200"].content["application/json"].schema;
  assert.ok(report.required.includes("verdict"));
  assert.match(append["422"].description, /verdict is invalid/);
});
