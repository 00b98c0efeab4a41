// The front door (api/http/front_door.ts): stages ahead of the router, composed in one place; `fetch`
// and `request` both run them; what a stage passes on the router answers as any request.
import assert from "node:assert/strict";
import { composeStages, type FrontStage, ServiceApp } from "../../api/http/front_door.ts";
import { testApp } from "../../fixtures/app.ts";

Deno.test("stages run first-outermost, each may answer or pass on", async () => {
  const seen: string[] = [];
  const tag = (name: string, answer = false): FrontStage => async (req, env, ctx, next) => {
    seen.push(name);
    if (answer) return new Response(name);
    const res = await next(req, env, ctx);
    seen.push(`/${name}`);
    return res;
  };
  const last = () => new Response("router");
  const f = composeStages([tag("a"), tag("b")], last);
  assert.equal(await (await f(new Request("http://x/"))).text(), "router");
  assert.deepEqual(seen, ["a", "b", "/b", "/a"]);
  seen.length = 0;
  const g = composeStages([tag("a"), tag("b", true), tag("c")], last);
  assert.equal(await (await g(new Request("http://x/"))).text(), "b");
  assert.deepEqual(seen, ["a", "b", "/a"]);
  assert.equal(composeStages([], last), last);
});

Deno.test("a ServiceApp's fetch and request run its stages, then its router", async () => {
  const app = new ServiceApp();
  app.get("/r", (c) => c.text("routed"));
  app.onError((_e, c) => c.text("handled", 500));
  assert.equal(await (await app.request("/r")).text(), "routed");
  app.front([
    (req, env, ctx, next) =>
      new URL(req.url).pathname === "/s" ? new Response("stage") : next(req, env, ctx),
  ]);
  assert.equal(await (await app.request("/s")).text(), "stage");
  assert.equal(await (await app.fetch(new Request("http://x/s"))).text(), "stage");
  assert.equal(await (await app.request("/r")).text(), "routed");
  // the router's own fetch stays as Hono built it (no stage)
  assert.equal((await app.routerFetch(new Request("http://x/s"))).status, 404);
});

Deno.test("createApp's front door: a tile lane answer and the router's carry the same bytes", async () => {
  const { app, log } = await testApp();
  await log.append(new Uint8Array([1, 2, 3]));
  // deno-lint-ignore no-explicit-any
  const sa = app as any as ServiceApp;
  assert.ok(sa instanceof ServiceApp);
  const path = "/log/blake3/tile/0/000.p/1";
  const a = await sa.fetch(new Request(`http://localhost${path}`), { clientAddr: "t" });
  const b = await sa.routerFetch(new Request(`http://localhost${path}`), { clientAddr: "t" });
  assert.equal(a.status, 200);
  assert.equal(a.status, b.status);
  assert.equal(await a.text(), await b.text());
});

Deno.test("the host's stages run before the app's own, whichever is set first", async () => {
  const seen: string[] = [];
  const tag = (name: string): FrontStage => (req, env, ctx, next) => {
    seen.push(name);
    return next(req, env, ctx);
  };
  const app = new ServiceApp();
  app.get("/r", (c) => c.text("routed"));
  app.front([tag("own")]).host([tag("host")]);
  assert.equal(await (await app.request("/r")).text(), "routed");
  assert.deepEqual(seen, ["host", "own"]);
});
