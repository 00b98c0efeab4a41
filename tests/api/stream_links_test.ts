// A malformed JCP §8.1 link on an append (issue 24: "Malformed seq/prev ...: 400 with a code,
// nothing written"): a `jcp` receipt whose `seq` is not an unsigned integer, whose `prev` is not
// a content id (64 lowercase hex), or that carries one without the other is 400
// `stream-link-malformed` on a single append and that envelope's refusal (status 400, the code)
// in a bulk; the log does not grow; a well-formed link beside it in the bulk is logged.
import assert from "node:assert/strict";
import { concatBytes } from "../../verify/mod.ts";
import { testApp } from "../../fixtures/app.ts";
import { openLog } from "../../log/mod.ts";
import { openSqliteStorage } from "../../log/sqlite/mod.ts";
import { createApp, Metrics, resolveConfig, verifierOptions } from "../../api/mod.ts";
import { cidOf, jcpEnvelope, ZEROS } from "../_streams.ts";

const COSE = { "content-type": "application/cose" };

/** Envelopes whose link is malformed, each with what is wrong. */
const MALFORMED: [string, Uint8Array<ArrayBuffer>][] = [
  ["seq a text string", jcpEnvelope(1, { seq: "1", prev: ZEROS })],
  ["seq negative", jcpEnvelope(2, { seq: -1, prev: ZEROS })],
  ["seq a list", jcpEnvelope(3, { seq: [1], prev: ZEROS })],
  ["prev upper-case hex", jcpEnvelope(4, { seq: 0, prev: "AB".repeat(32) })],
  ["prev 63 hex digits", jcpEnvelope(5, { seq: 0, prev: "0".repeat(63) })],
  ["prev a byte string", jcpEnvelope(6, { seq: 0, prev: new Uint8Array(32) })],
  ["prev with a b3: prefix", jcpEnvelope(7, { seq: 0, prev: `b3:${ZEROS}` })],
  ["seq without prev", jcpEnvelope(8, { seq: 0 })],
  ["prev without seq", jcpEnvelope(9, { prev: ZEROS })],
];

async function size(base: string, app: { request: (u: string) => Response | Promise<Response> }) {
  const r = await app.request(`${base}/v1/log/tree-head`);
  return ((await r.json()) as { size: number }).size;
}

Deno.test("stream links: a malformed seq or prev is 400 stream-link-malformed, nothing written", async () => {
  const { app, log, base } = await testApp();
  try {
    const before = await size(base, app);
    for (const [what, env] of MALFORMED) {
      const r = await app.request("/v1/log/entries", { method: "POST", headers: COSE, body: env });
      const p = await r.json();
      assert.equal(r.status, 400, `${what}: ${JSON.stringify(p)}`);
      assert.equal(p.code, "stream-link-malformed", what);
      assert.match(p.detail, /seq|prev/, what);
    }
    assert.equal(await size(base, app), before, "nothing was written");
    // a well-formed link is logged
    const ok = jcpEnvelope(10, { seq: 0, prev: ZEROS });
    const r = await app.request("/v1/log/entries", { method: "POST", headers: COSE, body: ok });
    assert.equal(r.status, 201);
  } finally {
    await log.close();
  }
});

Deno.test("stream links: in a bulk, each malformed link is that envelope's 400 refusal", async () => {
  const { app, log, base } = await testApp();
  try {
    const before = await size(base, app);
    const first = jcpEnvelope(20, { seq: 0, prev: ZEROS });
    const second = jcpEnvelope(21, { seq: 1, prev: cidOf(first) });
    const items = [first, ...MALFORMED.map(([, e]) => e), second];
    const r = await app.request("/v1/log/entries", {
      method: "POST",
      headers: { "content-type": "application/cbor-seq" },
      body: new Uint8Array(concatBytes(...items)),
    });
    assert.equal(r.status, 200);
    const a = await r.json() as { results: { status: number; code?: string; detail?: string }[] };
    assert.equal(a.results.length, items.length);
    assert.equal(a.results[0].status, 201);
    assert.equal(a.results[items.length - 1].status, 201);
    MALFORMED.forEach(([what], k) => {
      const x = a.results[k + 1];
      assert.equal(x.status, 400, what);
      assert.equal(x.code, "stream-link-malformed", what);
      assert.match(x.detail!, /seq|prev/, what);
    });
    assert.equal(await size(base, app), before + 2, "only the two well-formed links were written");
  } finally {
    await log.close();
  }
});

Deno.test("stream links: a seq past 2^53 - 1 is 400 stream-seq-range, single and in a bulk", async () => {
  // a log that keeps streams (SQLite): the memory log of testApp keeps none
  const dir = await Deno.makeTempDir();
  const log = await openLog(openSqliteStorage(`${dir}/log.sqlite`), {
    secretKey: new Uint8Array(32).fill(3),
    batchAgeMs: 1,
  });
  const config = resolveConfig({
    JC_PUBLIC_URL: "http://localhost",
    JC_RATE_READ: "0",
    JC_RATE_WRITE: "0",
  });
  const app = createApp({ log, config, verifier: verifierOptions(config), metrics: new Metrics() });
  const base = "http://localhost";
  try {
    const before = await size(base, app);
    const big = jcpEnvelope(30, { seq: 2n ** 53n, prev: ZEROS });
    const r = await app.request(`${base}/v1/log/entries`, {
      method: "POST",
      headers: COSE,
      body: big,
    });
    const p = await r.json();
    assert.equal(r.status, 400, JSON.stringify(p));
    assert.equal(p.code, "stream-seq-range");
    const ok = jcpEnvelope(31, { seq: 0, prev: ZEROS });
    const b = await app.request(`${base}/v1/log/entries`, {
      method: "POST",
      headers: { "content-type": "application/cbor-seq" },
      body: concatBytes(jcpEnvelope(32, { seq: 2n ** 60n, prev: ZEROS }), ok).slice(),
    });
    const bulk = await b.json();
    assert.equal(b.status, 200, JSON.stringify(bulk));
    assert.equal(bulk.results[0].status, 400, JSON.stringify(bulk.results[0]));
    assert.equal(bulk.results[0].code, "stream-seq-range");
    assert.equal(bulk.results[1].status, 201);
    assert.equal(await size(base, app), before + 1, "only the well-formed link was written");
  } finally {
    await log.close();
    await Deno.remove(dir, { recursive: true });
  }
});
