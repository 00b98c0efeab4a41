// The tile route's fast lane (api/http/app.ts RouteDef.fast, api/http/routes/publication.ts): a request it
// answers is answered exactly as the router answers it (status, every header, body), over random
// valid, partial, beyond-the-tree and malformed paths of both views, GET and HEAD, on a SQLite
// log whose full tile groups are one row; it keeps the rate limit (429 from the same bucket, one
// token per request), the status metric and CORS; a store fault in it is the router's problem
// answer, not a crash.
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Context } from "hono";
import { type Log, LogStorageError } from "../../log/mod.ts";
import { openSqliteLog } from "../../log/sqlite/mod.ts";
import { type AppEnv, createApp, Metrics, resolveConfig, verifierOptions } from "../../api/mod.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** An app over `log`; `lane: false` gives it a custom clientKey, which turns the lane off. */
function appOver(log: Log, o: { lane: boolean; rate?: string; metrics?: Metrics }) {
  const config = resolveConfig({ JC_RATE_READ: o.rate ?? "0", JC_RATE_WRITE: "0" });
  return createApp({
    log,
    config,
    verifier: verifierOptions(config),
    metrics: o.metrics ?? new Metrics(),
    now: () => 0,
    clientKey: o.lane ? undefined : (c: Context<AppEnv>) => String(c.env?.clientAddr ?? "unknown"),
  });
}

async function answer(app: ReturnType<typeof appOver>, path: string, method = "GET") {
  const r = await app.request(`http://localhost${path}`, { method }, { clientAddr: "10.0.0.1" });
  return {
    status: r.status,
    headers: [...r.headers].sort(([a], [b]) => a.localeCompare(b)),
    body: new Uint8Array(await r.arrayBuffer()),
  };
}

async function withLog(n: number, f: (log: Log) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "jc-fast-lane-" });
  const log = await openSqliteLog({ dir, logName: "lane.example/jc", batchAgeMs: 1 });
  try {
    for (let k = 0; k < n; k += 8192) {
      const m = Math.min(8192, n - k);
      await Promise.all(
        Array.from({ length: m }, (_, i) => log.append(enc(`lane entry ${k + i}`))),
      );
    }
    await f(log);
  } finally {
    await log.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const index = (i: number) => {
  let s = String(i % 1000).padStart(3, "0");
  for (let r = Math.floor(i / 1000); r > 0; r = Math.floor(r / 1000)) {
    s = `x${String(r % 1000).padStart(3, "0")}/${s}`;
  }
  return s;
};

Deno.test("fast lane: every answer equals the router's, over random tile paths, GET and HEAD", async () => {
  // 70,000 leaves: full groups at level 0 (and one at level 1), partial tiles at every level
  await withLog(70_000, async (log) => {
    const lane = appOver(log, { lane: true });
    const router = appOver(log, { lane: false });
    const tilePath = fc.tuple(
      fc.constantFrom("blake3", "sha256", "md5"),
      fc.constantFrom("0", "1", "2", "3", "entries", "00", "x"),
      fc.integer({ min: 0, max: 300 }),
      fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
      fc.constantFrom("", "", "", "?q=1", "/", "%30"),
    ).map(([view, level, i, w, tail]) =>
      `/log/${view}/tile/${level}/${index(i)}${w === undefined ? "" : `.p/${w}`}${tail}`
    );
    const junk = fc.string({ maxLength: 12 }).map((s) => `/log/blake3/tile/${s}`);
    // tiles the tree has: level 0 (273 full), level 1 (one full, one partial), bundles
    const valid = fc.tuple(
      fc.constantFrom("blake3", "sha256"),
      fc.constantFrom("0", "0", "1", "entries"),
      fc.integer({ min: 0, max: 272 }),
      fc.option(fc.integer({ min: 1, max: 255 }), { nil: undefined, freq: 4 }),
    ).map(([view, level, i, w]) =>
      `/log/${view}/tile/${level}/${index(level === "1" ? i % 2 : i)}${
        w === undefined ? "" : `.p/${w}`
      }`
    );
    let ok = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(valid, valid, tilePath, junk), fc.boolean(), async (path, head) => {
        const method = head ? "HEAD" : "GET";
        const a = await answer(lane, path, method), b = await answer(router, path, method);
        assert.deepEqual(a, b, `${method} ${path}`);
        if (a.status === 200) ok++;
      }),
      { numRuns: 400 },
    );
    assert.ok(ok > 100, `only ${ok} of the paths were tiles`); // the property saw real tiles
    // a full level-0 tile from a group row, both views
    for (const view of ["blake3", "sha256"]) {
      const a = await answer(lane, `/log/${view}/tile/0/${index(200)}`);
      assert.equal(a.status, 200);
      assert.equal(a.body.length, 8192);
      assert.deepEqual(a, await answer(router, `/log/${view}/tile/0/${index(200)}`));
    }
  });
});

Deno.test("fast lane: the same rate limit (one token per request), status metric and CORS", async () => {
  await withLog(300, async (log) => {
    const metrics = new Metrics();
    const app = appOver(log, { lane: true, rate: "1:3", metrics });
    const path = "/log/blake3/tile/0/000";
    for (let k = 0; k < 3; k++) {
      const a = await answer(app, path);
      assert.equal(a.status, 200);
      const h = Object.fromEntries(a.headers);
      assert.equal(h["cache-control"], "public, max-age=31536000, immutable");
      assert.equal(h["content-type"], "application/octet-stream");
      assert.equal(h["access-control-allow-origin"], "*");
      assert.match(h["link"], /rel="http:\/\/www\.w3\.org\/ns\/hydra\/core#apiDocumentation"/);
    }
    const limited = await answer(app, path); // the bucket (burst 3) is empty now
    assert.equal(limited.status, 429);
    assert.equal(JSON.parse(new TextDecoder().decode(limited.body)).code, "rate-limited");
    assert.ok(limited.headers.some(([k]) => k === "retry-after"));
    // a 404 through the lane took one token, not two (lane + router)
    const fresh = appOver(log, { lane: true, rate: "1:2" });
    assert.equal((await answer(fresh, "/log/blake3/tile/0/999")).status, 404);
    assert.equal((await answer(fresh, path)).status, 200);
    assert.equal((await answer(fresh, path)).status, 429);
    const text = metrics.render();
    assert.match(text, /jc_http_responses_total\{status="200"\} 3\b/);
    assert.match(text, /jc_http_responses_total\{status="429"\} 1\b/);
    assert.match(text, /jc_rate_limited_total\{class="read"\} 1\b/); // counted once
  });
});

Deno.test("fast lane: a store fault is the router's problem answer", async () => {
  await withLog(300, async (log) => {
    const faulty = new Proxy(log, {
      get(t, k, r) {
        if (k === "tile") {
          return () =>
            Promise.reject(new LogStorageError("storage-fault", "Cannot read tile: EIO"));
        }
        const v = Reflect.get(t, k, r);
        return typeof v === "function" ? v.bind(t) : v;
      },
    });
    const a = await answer(appOver(faulty, { lane: true }), "/log/sha256/tile/0/000");
    const b = await answer(appOver(faulty, { lane: false }), "/log/sha256/tile/0/000");
    assert.ok(a.status >= 500, `status ${a.status}`);
    assert.equal(Object.fromEntries(a.headers)["content-type"], "application/problem+json");
    assert.deepEqual(a, b);
  });
});
