// The monitor's checks, in-process: consistent growth passes; a split view (same key, other
// tree), a rollback, two roots at one size, a changed key and a forged head all alarm; network
// trouble is transient, not an alarm; a failed poll leaves the state as it was.
import assert from "node:assert/strict";
import { emptyState, poll } from "../../client/mod.ts";
import { steward, testApp, validEnvelope } from "../../fixtures/app.ts";

const COSE = { "content-type": "application/cose" };

type App = Awaited<ReturnType<typeof testApp>>["app"];

async function append(app: App, n: number) {
  const r = await app.request("/v1/log/entries", {
    method: "POST",
    headers: COSE,
    body: validEnvelope(n),
  });
  assert.equal(r.status, 201);
}

Deno.test("monitor: growth passes; split view, rollback and equivocation alarm", async () => {
  const key = steward(21).secret;
  const a = await testApp({}, undefined, key);
  const b = await testApp({}, undefined, key); // same log key, different tree
  const route = (url: string) => url.startsWith("http://a/") ? a : b;
  const fetchFn = ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const t = route(url);
    return t.fetchFn(url.replace(/^http:\/\/[ab]\//, "http://localhost/"), init);
  }) as typeof fetch;

  const st = emptyState();
  assert.equal((await poll("http://a", st, fetchFn)).ok, true, "empty log");
  for (let i = 0; i < 3; i++) await append(a.app, i);
  const r1 = await poll("http://a", st, fetchFn);
  assert.ok(r1.ok && r1.head.size === 3);
  for (let i = 10; i < 15; i++) await append(b.app, i);
  const split = await poll("http://b", st, fetchFn);
  assert.equal(split.ok, false);
  assert.ok(!split.ok && !split.transient && /split view/.test(split.alarm), JSON.stringify(split));
  assert.equal(st.heads[Object.keys(st.heads)[0]].at(-1)!.size, 3, "a failed poll changes nothing");

  // equal size, different root
  await append(a.app, 3);
  await append(a.app, 4);
  assert.equal((await poll("http://a", st, fetchFn)).ok, true);
  const eq = await poll("http://b", st, fetchFn);
  assert.ok(!eq.ok && /two signed roots at size 5/.test(eq.alarm), JSON.stringify(eq));

  // rollback: a state that has seen a larger head than the log now shows
  const st2 = emptyState();
  await append(b.app, 15);
  assert.equal((await poll("http://b", st2, fetchFn)).ok, true);
  const back = await poll("http://a", st2, fetchFn);
  assert.ok(!back.ok && /went back from size 6 to 5/.test(back.alarm), JSON.stringify(back));
});

Deno.test("monitor: a changed key and a forged head alarm; network trouble is transient", async () => {
  const a = await testApp();
  const other = await testApp();
  let target = a;
  let forge = false;
  const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await target.fetchFn(String(input), init);
    if (forge && String(input).endsWith("/v1/log/tree-head")) {
      const h = await res.json();
      h.timestamp += 1; // signature no longer covers the fields
      return new Response(JSON.stringify(h), { headers: { "content-type": "application/json" } });
    }
    return res;
  }) as typeof fetch;
  const st = emptyState();
  assert.equal((await poll("http://localhost", st, fetchFn)).ok, true);
  forge = true;
  const f = await poll("http://localhost", st, fetchFn);
  assert.ok(!f.ok && !f.transient && /bad signature/.test(f.alarm), JSON.stringify(f));
  forge = false;
  target = other;
  const k = await poll("http://localhost", st, fetchFn);
  assert.ok(!k.ok && !k.transient && /log key changed/.test(k.alarm), JSON.stringify(k));
  const down = await poll(
    "http://localhost",
    st,
    (() => Promise.reject(new TypeError("connection refused"))) as typeof fetch,
  );
  assert.ok(!down.ok && down.transient, JSON.stringify(down));
});
