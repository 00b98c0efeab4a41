// The app over a memory log, in-process: every route's answers, errors (problem+json, stable
// codes, nothing appended), limits, CORS, Link headers, and the checking client run against it.
import assert from "node:assert/strict";
import { blake3Hasher, PushbackError, verifyConsistency } from "../../log/mod.ts";
import type { Log } from "../../log/mod.ts";
import { entryLeafHash, fromHex, toHex } from "../../verify/mod.ts";
import { API_DOC_LINK } from "../../api/mod.ts";
import { LogClient } from "../../client/mod.ts";
import { badSignatureEnvelope, steward, testApp, validEnvelope } from "../../fixtures/app.ts";

const COSE = { "content-type": "application/cose" };

async function problemOf(res: Response, status: number, code: string) {
  assert.equal(res.status, status, `status of ${code}`);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  assert.ok(res.headers.get("link")?.includes(API_DOC_LINK), "problem carries the Link header");
  const p = await res.json();
  assert.equal(p.code, code);
  assert.equal(p.status, status);
  assert.equal(p.type, `urn:jouleclaw:problem:${code}`);
  assert.match(p.detail, /^Cannot /);
  assert.equal(typeof p.title, "string");
  return p;
}

Deno.test("app: append, resubmit, read back, prove — checked by the client", async () => {
  const { app, fetchFn, base, log } = await testApp();
  const client = new LogClient(base, undefined, fetchFn);
  const envs = Array.from({ length: 7 }, (_, i) => validEnvelope(i));
  const heads = [];
  for (const [i, e] of envs.entries()) {
    const a = await client.submit(e);
    assert.equal(a.index, i);
    assert.equal(a.created, true);
    heads.push(a.tree_head);
  }
  // resubmission: 200, same index, exactly once
  const again = await app.request("/v1/log/entries", {
    method: "POST",
    headers: COSE,
    body: envs[3],
  });
  assert.equal(again.status, 200);
  assert.equal((await again.json()).index, 3);
  assert.equal((await log.latestHead()).size, 7);
  // JSON body form
  const viaJson = await app.request("/v1/log/entries", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ envelope: toHex(envs[4]) }),
  });
  assert.equal(viaJson.status, 200);
  // first append answered 201 + Location
  const fresh = await app.request("/v1/log/entries", {
    method: "POST",
    headers: COSE,
    body: validEnvelope(99),
  });
  assert.equal(fresh.status, 201);
  assert.equal(fresh.headers.get("location"), "/v1/log/entries/7");

  // entries: JSON, COSE, 406
  const j = await (await app.request("/v1/log/entries/2")).json();
  assert.equal(j.index, 2);
  assert.equal(j.envelope, toHex(envs[2]));
  assert.equal(j.leaf_hash, toHex(entryLeafHash(envs[2])));
  assert.equal(j.schema, "1");
  assert.equal(j.steward, steward().did);
  assert.equal(j.receipt.id, "rcpt-2");
  const raw = await app.request("/v1/log/entries/2", { headers: { accept: "application/cose" } });
  assert.match(raw.headers.get("content-type")!, /^application\/cose/);
  assert.deepEqual(new Uint8Array(await raw.arrayBuffer()), envs[2]);
  await problemOf(
    await app.request("/v1/log/entries/2", { headers: { accept: "image/png" } }),
    406,
    "not-acceptable",
  );
  await problemOf(await app.request("/v1/log/entries/800"), 404, "not-found");
  await problemOf(await app.request("/v1/log/entries/01"), 400, "bad-parameter");
  await problemOf(await app.request("/v1/log/entries/-1"), 400, "bad-parameter");

  // proofs by index and by leaf hash, through the checking client
  for (let i = 0; i < 8; i++) {
    const p = await client.prove(i);
    assert.equal(p.size, 8);
    const q = await client.prove(p.leaf_hash);
    assert.equal(q.index, i);
  }
  // leaves
  const leaf = toHex(entryLeafHash(envs[5]));
  assert.deepEqual(await (await app.request(`/v1/log/leaves/${leaf}`)).json(), {
    index: 5,
    leaf_hash: leaf,
  });
  await problemOf(await app.request(`/v1/log/leaves/${"0".repeat(64)}`), 404, "not-found");
  await problemOf(await app.request(`/v1/log/leaves/ABC`), 400, "bad-parameter");

  // consistency between every pair of heads seen, checked independently
  for (const h1 of heads) {
    for (const h2 of heads) {
      if (h1.size > h2.size) continue;
      await client.checkConsistency(h1, h2);
      const r =
        await (await app.request(`/v1/log/proof/consistency?first=${h1.size}&second=${h2.size}`))
          .json();
      assert.ok(
        verifyConsistency(
          blake3Hasher,
          h1.size,
          h2.size,
          r.path.map(fromHex),
          fromHex(h1.root),
          fromHex(h2.root),
        ),
      );
    }
  }
  // heads at sizes
  for (const h of heads) assert.deepEqual(await client.headAt(h.size), h);
  await problemOf(await app.request("/v1/log/tree-heads/9999"), 404, "not-found");
  // proof parameter errors
  for (
    const q of [
      "",
      "index=1&leaf_hash=" + leaf,
      "index=8",
      "index=0&size=9",
      "index=x",
      "index=0&size=0",
    ]
  ) {
    await problemOf(await app.request(`/v1/log/proof/inclusion?${q}`), 400, "bad-parameter");
  }
  for (const q of ["first=0&second=3", "first=4&second=3", "first=1&second=99", "first=1"]) {
    await problemOf(await app.request(`/v1/log/proof/consistency?${q}`), 400, "bad-parameter");
  }
  // page of entries
  const page = await (await app.request("/v1/log/entries?start=2&limit=3")).json();
  assert.equal(page["@type"], "hydra:Collection");
  assert.equal(page["hydra:totalItems"], 8);
  assert.deepEqual(page["hydra:member"].map((m: { index: number }) => m.index), [2, 3, 4]);
  assert.match(page["hydra:view"]["hydra:next"]["@id"], /start=5&limit=3$/);
  assert.match(page["hydra:view"]["hydra:previous"]["@id"], /start=0&limit=3$/);
  // key
  const key = await (await app.request("/v1/log/key")).json();
  assert.equal(key.signer, log.signer());
  assert.equal(key.public_key, toHex(log.publicKey()));
});

Deno.test("app: invalid envelopes are 422 with their code and never appended", async () => {
  const { app, log, deps } = await testApp();
  const cases: [Uint8Array<ArrayBuffer>, string][] = [
    [badSignatureEnvelope(1), "bad-signature"],
    [new Uint8Array([0x80]), ""],
    [new Uint8Array([1, 2, 3]), ""],
  ];
  for (const [env, code] of cases) {
    const res = await app.request("/v1/log/entries", { method: "POST", headers: COSE, body: env });
    const p = await problemOf(res, 422, res.status === 422 ? (await res.clone().json()).code : "?");
    if (code) assert.equal(p.code, code);
    assert.equal(p.report.valid, false);
    assert.deepEqual(p.codes[0], p.code);
    // verify answers 200 with the same report
    const v = await app.request("/v1/verify", { method: "POST", headers: COSE, body: env });
    assert.equal(v.status, 200);
    const report = await v.json();
    assert.equal(report.valid, false);
    assert.deepEqual(report, p.report);
  }
  assert.equal((await log.latestHead()).size, 0, "nothing appended");
  assert.match(deps.metrics.render(), /jc_verifications_total\{code="bad-signature"\} 2/);
});

Deno.test("app: unusable requests get 400/413/415, method errors 405, unknown paths 404", async () => {
  const { app, log } = await testApp({ JC_BODY_LIMIT: "2048" });
  for (const path of ["/v1/verify", "/v1/log/entries"]) {
    await problemOf(
      await app.request(path, { method: "POST", body: "x" }),
      415,
      "unsupported-media-type",
    );
    await problemOf(
      await app.request(path, {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: "x",
      }),
      415,
      "unsupported-media-type",
    );
    await problemOf(await app.request(path, { method: "POST", headers: COSE }), 400, "empty-body");
    const json = { "content-type": "application/json" };
    await problemOf(
      await app.request(path, { method: "POST", headers: json, body: "{" }),
      400,
      "bad-request",
    );
    await problemOf(
      await app.request(path, { method: "POST", headers: json, body: "{}" }),
      400,
      "bad-request",
    );
    await problemOf(
      await app.request(path, { method: "POST", headers: json, body: '{"envelope":"ABC"}' }),
      400,
      "bad-envelope-encoding",
    );
    await problemOf(
      await app.request(path, { method: "POST", headers: COSE, body: new Uint8Array(4096) }),
      413,
      "body-too-large",
    );
    // a body that lies about its length is still cut off at the limit
    const stream = new ReadableStream({
      pull(c) {
        c.enqueue(new Uint8Array(1000));
      },
    });
    await problemOf(
      await app.request(
        path,
        { method: "POST", headers: COSE, body: stream, duplex: "half" } as RequestInit,
      ),
      413,
      "body-too-large",
    );
  }
  const m = await problemOf(
    await app.request("/v1/log/tree-head", { method: "DELETE" }),
    405,
    "method-not-allowed",
  );
  assert.match(m.detail, /GET/);
  await problemOf(await app.request("/nope"), 404, "not-found");
  assert.equal((await log.latestHead()).size, 0);
});

Deno.test("app: rate limit answers 429 with Retry-After; /healthz is exempt", async () => {
  const { app } = await testApp({ JC_RATE_READ: "1:3", JC_RATE_WRITE: "1:1" });
  for (let i = 0; i < 3; i++) assert.equal((await app.request("/v1/log/tree-head")).status, 200);
  const r = await app.request("/v1/log/tree-head");
  await problemOf(r, 429, "rate-limited");
  assert.equal(r.headers.get("retry-after"), "1");
  for (let i = 0; i < 5; i++) assert.equal((await app.request("/healthz")).status, 200);
  assert.equal(
    (await app.request("/v1/log/entries", {
      method: "POST",
      headers: COSE,
      body: validEnvelope(1),
    })).status,
    201,
  );
  await problemOf(
    await app.request("/v1/log/entries", { method: "POST", headers: COSE, body: validEnvelope(2) }),
    429,
    "rate-limited",
  );
});

function wrapLog(log: Log, over: Partial<Log>): Log {
  return new Proxy(log, {
    get(t, k) {
      const v = (over as Record<string | symbol, unknown>)[k] ??
        (t as unknown as Record<string | symbol, unknown>)[k];
      return typeof v === "function" ? v.bind(k in over ? over : t) : v;
    },
  });
}

Deno.test("app: sequencer pushback is 503 + Retry-After; timeouts 503; broken store fails /healthz", async () => {
  const push = await testApp(
    {},
    (l) =>
      wrapLog(l, { append: () => Promise.reject(new PushbackError("Cannot append: full", 2500)) }),
  );
  const r = await push.app.request("/v1/log/entries", {
    method: "POST",
    headers: COSE,
    body: validEnvelope(1),
  });
  await problemOf(r, 503, "sequencer-busy");
  assert.equal(r.headers.get("retry-after"), "3");
  assert.match(push.deps.metrics.render(), /^jc_pushback_total 1$/m);

  const slow = await testApp(
    { JC_REQUEST_TIMEOUT_MS: "30" },
    (l) => wrapLog(l, { latestHead: () => new Promise(() => {}) }),
  );
  const t = await slow.app.request("/v1/log/tree-head");
  await problemOf(t, 503, "timeout");
  assert.equal(t.headers.get("retry-after"), "1");

  const broken = await testApp(
    {},
    (l) => wrapLog(l, { check: () => Promise.reject(new Error("disk gone")) }),
  );
  const origError = console.error;
  console.error = () => {};
  try {
    await problemOf(await broken.app.request("/healthz"), 503, "storage-unavailable");
  } finally {
    console.error = origError;
  }
  const ok = await push.app.request("/healthz");
  assert.deepEqual(await ok.json(), { status: "ok", tree_size: 0 });
});

Deno.test("app: a meter reading is refused on /v1/log/entries (only /v1/readings appends it)", async () => {
  const file = JSON.parse(
    await Deno.readTextFile(
      new URL("../../conformance/vectors/meter-reading.json", import.meta.url),
    ),
  );
  const vector = file.vectors.find((v: { expected: { valid: boolean } }) => v.expected.valid);
  assert.ok(vector, "a valid meter-reading vector");
  const reading = new Uint8Array(fromHex(vector.cose_sign1_hex));
  const { app, log } = await testApp();
  const verified = await app.request("/v1/verify", {
    method: "POST",
    headers: COSE,
    body: reading,
  });
  assert.equal((await verified.json()).valid, true, "the reading itself verifies");
  await problemOf(
    await app.request("/v1/log/entries", {
      method: "POST",
      headers: COSE,
      body: reading,
    }),
    422,
    "readings-route-only",
  );
  assert.equal((await log.latestHead()).size, 0, "nothing appended");
});

Deno.test("app: listed stewards only", async () => {
  const other = steward(9);
  const { app, log } = await testApp({ JC_APPENDS: "listed", JC_STEWARDS: steward().did });
  assert.equal(
    (await app.request("/v1/log/entries", {
      method: "POST",
      headers: COSE,
      body: validEnvelope(1),
    })).status,
    201,
  );
  await problemOf(
    await app.request("/v1/log/entries", {
      method: "POST",
      headers: COSE,
      body: validEnvelope(2, other),
    }),
    403,
    "steward-not-allowed",
  );
  assert.equal((await log.latestHead()).size, 1);
});

Deno.test("app: Link header everywhere, CORS on public routes, preflight, metrics, home page", async () => {
  const { app } = await testApp();
  for (const p of ["/", "/v1/api-doc", "/v1/log/tree-head", "/healthz", "/metrics", "/nope"]) {
    const res = await app.request(p);
    await res.body?.cancel();
    assert.ok(res.headers.get("link")?.includes(API_DOC_LINK), p);
  }
  const read = await app.request("/v1/log/tree-head", { headers: { origin: "https://x.example" } });
  assert.equal(read.headers.get("access-control-allow-origin"), "*");
  const ops = await app.request("/metrics");
  assert.equal(ops.headers.get("access-control-allow-origin"), null);
  assert.match(ops.headers.get("content-type")!, /^text\/plain; version=0.0.4/);
  assert.match(await ops.text(), /# TYPE jc_append_ack_seconds histogram/);
  const pre = await app.request("/v1/verify", {
    method: "OPTIONS",
    headers: { origin: "https://x.example", "access-control-request-method": "POST" },
  });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get("access-control-allow-origin"), "*");
  assert.match(pre.headers.get("access-control-allow-methods")!, /POST/);
  const html = await app.request("/", { headers: { accept: "text/html" } });
  assert.match(html.headers.get("content-type")!, /^text\/html/);
  assert.match(await html.text(), /href="\/v1\/api-doc"/);
  const ld = await app.request("/", { headers: { accept: "application/ld+json" } });
  assert.match(ld.headers.get("content-type")!, /^application\/ld\+json/);
  assert.equal((await ld.json())["@type"], "jc:EntryPoint");
  await problemOf(
    await app.request("/", { headers: { accept: "image/png" } }),
    406,
    "not-acceptable",
  );
});
