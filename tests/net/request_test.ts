// net/ (issue 18) in-process against the hostile server over 127.0.0.1: every misbehaviour ends
// within the deadline with its stable code, and the body budget holds whatever the chunking.
import assert from "node:assert/strict";
import fc from "fast-check";
import { BODY_LIMITS, type NetCode, NetError, readLimited, request } from "../../net/mod.ts";
import { type Behaviour, startHostile } from "./_hostile_server.ts";

const FAST = { connectMs: 1500, totalMs: 3000 };

async function codeOf(p: Promise<unknown>): Promise<NetCode> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof NetError, `not a NetError: ${e}`);
    assert.match(e.message, /limit: .+; seen: .+/);
    return e.code;
  }
  assert.fail("the request succeeded");
}

Deno.test("net: each hostile behaviour ends within the deadline with its code", async () => {
  const h = startHostile();
  try {
    const cases: [Behaviour, string, NetCode, "json" | "checkpoint" | "proof"][] = [
      ["silent", "/v1/log/tree-head", "net-timeout", "checkpoint"],
      ["stall-headers", "/v1/log/tree-head", "net-timeout", "checkpoint"],
      ["endless", "/v1/log/tree-head", "net-body-too-large", "checkpoint"],
      ["big-checkpoint", "/v1/log/tree-head", "net-body-too-large", "checkpoint"],
      ["big-declared", "/v1/log/tree-head", "net-body-too-large", "checkpoint"],
      ["long-proof", "/v1/log/proof/consistency?first=3&second=5", "net-body-too-large", "proof"],
      ["redirect-loop", "/v1/log/tree-head", "net-too-many-redirects", "checkpoint"],
    ];
    for (const [b, path, code, kind] of cases) {
      const t0 = performance.now();
      assert.equal(await codeOf(request(h.base(b) + path, { ...FAST, kind })), code, b);
      const ms = performance.now() - t0;
      assert.ok(ms < FAST.totalMs + 1500, `${b} took ${ms} ms`);
    }
    const utf = await request(h.base("bad-utf8") + "/x", FAST);
    assert.equal(await codeOf(Promise.resolve().then(() => utf.text())), "net-bad-utf8");
    const json = await request(h.base("bad-json") + "/x", FAST);
    assert.equal(await codeOf(Promise.resolve().then(() => json.json())), "net-bad-json");
    // connect: a port nobody listens on
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const closed = `http://127.0.0.1:${(l.addr as Deno.NetAddr).port}/`;
    l.close();
    assert.equal(await codeOf(request(closed, FAST)), "net-connect");
    // the caller's signal
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 50); // well before the connect deadline
    assert.equal(
      await codeOf(request(h.base("silent") + "/", { ...FAST, signal: ctl.signal })),
      "net-aborted",
    );
    // the redirect cap counts: 0 refuses the first one
    const e = await request(h.base("redirect-loop") + "/a", { ...FAST, maxRedirects: 0 }).catch((
      e,
    ) => e);
    assert.ok(e instanceof NetError && e.code === "net-too-many-redirects");
    assert.match(e.message, /0 redirects/);
  } finally {
    await h.close();
  }
});

Deno.test("net: a good server's answers pass; redirects are followed up to the cap; errors are returned", async () => {
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    hits++;
    const u = new URL(req.url);
    const n = Number(u.searchParams.get("hop") ?? 0);
    if (u.pathname === "/hop" && n > 0) {
      return new Response(null, {
        status: n === 1 ? 303 : 307,
        headers: { location: `/hop?hop=${n - 1}` },
      });
    }
    if (u.pathname === "/hop") return Response.json({ method: req.method });
    if (u.pathname === "/err") return Response.json({ code: "nope" }, { status: 404 });
    if (u.pathname === "/big-err") {
      return new Response("x".repeat(BODY_LIMITS.error + 1), { status: 500 });
    }
    return Response.json({ ok: true });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  try {
    assert.deepEqual((await request(`${base}/`, FAST)).json(), { ok: true });
    const r = await request(`${base}/hop?hop=3`, { ...FAST, method: "POST", body: "{}" });
    assert.deepEqual(r.json(), { method: "GET" }, "303 turns a POST into a GET");
    assert.equal(new URL(r.url).pathname, "/hop");
    hits = 0;
    assert.equal(
      await codeOf(request(`${base}/hop?hop=6`, { ...FAST, maxRedirects: 5 })),
      "net-too-many-redirects",
    );
    assert.equal(hits, 6, "the 6th redirect is not followed");
    const err = await request(`${base}/err`, FAST);
    assert.equal(err.status, 404);
    assert.deepEqual(err.json(), { code: "nope" });
    assert.equal(await codeOf(request(`${base}/big-err`, FAST)), "net-body-too-large");
  } finally {
    await server.shutdown();
  }
});

Deno.test("net: readLimited returns the body iff it fits the budget, whatever the chunking (property)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 20 }),
      fc.integer({ min: 0, max: 3000 }),
      async (sizes, limit) => {
        const total = sizes.reduce((a, b) => a + b, 0);
        let pulled = 0;
        let i = 0;
        const stream = new ReadableStream<Uint8Array>({
          pull(c) {
            if (i === sizes.length) return c.close();
            pulled += sizes[i];
            c.enqueue(new Uint8Array(sizes[i++]).fill(i));
          },
        });
        try {
          const out = await readLimited(stream, limit);
          assert.ok(total <= limit);
          assert.equal(out.byteLength, total);
        } catch (e) {
          assert.ok(total > limit, `${e}`);
          // reading stopped at the chunk that crossed the budget
          assert.ok(pulled - limit <= 300);
        }
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("net: the client's deadlines from the environment; a malformed value is refused", async () => {
  const { netOptionsFromEnv } = await import("../../client/net_env.ts");
  const env = (o: Record<string, string>) => (k: string) => o[k];
  assert.deepEqual(netOptionsFromEnv(env({})), {});
  assert.deepEqual(
    netOptionsFromEnv(
      env({ JC_CONNECT_TIMEOUT_MS: "500", JC_TIMEOUT_MS: "2000", JC_MAX_REDIRECTS: "0" }),
    ),
    { connectMs: 500, totalMs: 2000, maxRedirects: 0 },
  );
  for (const bad of ["abc", "-1", "1.5", "0"]) {
    assert.throws(() => netOptionsFromEnv(env({ JC_TIMEOUT_MS: bad })), /JC_TIMEOUT_MS/);
  }
});
