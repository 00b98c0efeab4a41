// Unknown query parameters are refused, never silently ignored (issue 28: `GET
// /v1/log/entries/0?steward=x` answered the entry, as if it filtered): every route of the table,
// with and without query parameters of its own, answers 400 `unknown-query-parameter` naming the
// parameter; the parameters each route declares (RouteDef.query, the list the OpenAPI and Hydra
// documents publish) still work; the page's own parameters (`/?view=explore`) are the page's.
import assert from "node:assert/strict";
import { allRoutes } from "../../api/http/routes.ts";
import { testApp } from "../../fixtures/app.ts";

const SAMPLE: Record<string, string> = {
  index: "0",
  size: "1",
  leaf_hash: "0".repeat(64),
  view: "sha256",
  path: "0/000.p/1",
  did: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
  origin_hash: "0".repeat(64),
};

function concrete(path: string): string {
  return path.replace(/:([a-z_]+)(\{[^}]*\})?/g, (_, name) => SAMPLE[name] ?? "x");
}

Deno.test("every route refuses a query parameter it does not take: 400 unknown-query-parameter", async () => {
  const { app } = await testApp();
  const receipt = await Deno.readFile(new URL("../../examples/receipt.cose", import.meta.url));
  const a = await app.request("/v1/log/entries", {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: receipt,
  });
  assert.equal(a.status, 201, await a.text());
  let checked = 0;
  for (const r of allRoutes()) {
    if (r.ownQuery === "page") continue;
    // the routes that do take `steward` (issue 24: /v1/streams, /v1/log/search) get another name
    const name = r.query?.includes("steward") ? "colour" : "steward";
    const url = `${concrete(r.path)}?${name}=x`;
    const res = await app.request(url, { method: r.method });
    assert.equal(res.status, 400, `${r.method} ${url}: ${res.status}`);
    const p = await res.json();
    assert.equal(p.code, "unknown-query-parameter", `${r.method} ${url}`);
    assert.equal(p.parameter, name);
    assert.match(
      p.detail,
      new RegExp(`unknown query parameter "${name}" \\(it takes (none|[a-z_, ]+)\\)`),
    );
    if (r.query?.length) assert.match(p.detail, new RegExp(r.query.join(", ")));
    checked++;
  }
  assert.ok(checked >= 30, `${checked} routes checked`);
  // a known parameter beside an unknown one: still refused
  const mixed = await app.request("/v1/log/entries?start=0&limit=1&steward=x");
  assert.equal(mixed.status, 400);
  await mixed.body?.cancel();
});

Deno.test("declared query parameters still work; the page's parameters are the page's", async () => {
  const { app } = await testApp();
  const receipt = await Deno.readFile(new URL("../../examples/receipt.cose", import.meta.url));
  const a = await app.request("/v1/log/entries", {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: receipt,
  });
  const { leaf_hash } = await a.json();
  for (
    const url of [
      "/v1/log/entries?start=0&limit=1",
      "/v1/log/proof/inclusion?index=0&size=1",
      `/v1/log/proof/inclusion?leaf_hash=${leaf_hash}`,
      "/v1/log/proof/consistency?first=1&second=1",
      "/v1/log/proof/tlog-proof?index=0&view=sha256",
      "/v1/log/export?start=0&end=1",
      "/assets/app.js?v=1",
      "/?view=explore",
      "/?index=0",
      `/?leaf=${leaf_hash}`,
      "/log/sha256/tile/0/000.p/1",
    ]
  ) {
    const res = await app.request(url);
    assert.equal(res.status, 200, `${url}: ${await res.clone().text()}`);
    await res.body?.cancel();
  }
  // a tile with a query leaves the fast lane for the router, which refuses it
  const tile = await app.request("/log/sha256/tile/0/000.p/1?cache=no");
  assert.equal(tile.status, 400);
  assert.equal((await tile.json()).code, "unknown-query-parameter");
});
