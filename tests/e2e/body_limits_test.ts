// Issue 27, "Bodies": the real service (`deno task start`) over real TCP. Bodies trickled one byte
// per TCP segment over 20 connections are cut at the least rate (408 body-too-slow) or at the
// request's deadline (503 timeout, and the read stops there), with the service's RSS growth
// bounded and printed; POST /v1/validate and POST /v1/sparql refuse an oversize body, declared
// (Content-Length) or chunked, with 413 body-too-large after reading at most body_limit bytes.
// Appends made around the abuse are all still there.
import assert from "node:assert/strict";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { startService } from "../../fixtures/service.ts";
import { type Answer, byteByByte, chunked, portOf, rssKiB, sendSlowly } from "./_hostile_client.ts";

const S = steward(28);
/**
 * The most the service's RSS may grow under each abuse here, MiB. Each byte of a trickled body
 * arrives in a fresh 64 KiB read buffer of the runtime; the reader copies it out, so the buffers
 * are garbage, bounded by the next collection (a plateau near 90 MiB over 11 s and 70,000
 * segments, measured); a reader keeping the chunks grew 1.37 GB in 2.4 s.
 */
const RSS_BOUND_MIB = 160;

async function append(url: string, n: number): Promise<{ index: number; leaf_hash: string }> {
  const r = await fetch(`${url}/v1/log/entries`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: validEnvelope(n, S),
  });
  const body = await r.json();
  assert.equal(r.status, 201, JSON.stringify(body));
  return body;
}

async function assertAllPresent(url: string, acks: { index: number; leaf_hash: string }[]) {
  for (const a of acks) {
    const r = await fetch(`${url}/v1/log/leaves/${a.leaf_hash}`);
    const body = await r.json();
    assert.equal(r.status, 200, `leaf ${a.leaf_hash} lost: ${JSON.stringify(body)}`);
    assert.equal(body.index, a.index);
  }
}

/**
 * The service's RSS once its start-up has settled: the Workers it starts (verification,
 * validation warmed before it answers ready) grow it for a while after the first answer, and that
 * growth is not the abuse's. Sampled once a second until two samples are within 2 MiB (at most
 * 60 s).
 */
async function settledRss(pid: number): Promise<number> {
  let last = rssKiB(pid);
  for (let i = 0; i < 60; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = rssKiB(pid);
    if (Math.abs(now - last) < 2048) return now;
    last = now;
  }
  return last;
}

/** Runs `abuse` while sampling the service's RSS every 25 ms; prints and bounds the growth. */
async function withRss<T>(pid: number, label: string, abuse: () => Promise<T>): Promise<T> {
  const before = await settledRss(pid);
  let peak = before;
  let done = false;
  const poll = (async () => {
    while (!done) {
      peak = Math.max(peak, rssKiB(pid));
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  try {
    return await abuse();
  } finally {
    done = true;
    await poll;
    await new Promise((r) => setTimeout(r, 500));
    const after = rssKiB(pid);
    const mib = (k: number) => (k / 1024).toFixed(1);
    console.log(
      `${label}: RSS before ${mib(before)} MiB, peak ${mib(peak)} MiB (+${mib(peak - before)}), ` +
        `after ${mib(after)} MiB (bound: +${RSS_BOUND_MIB} MiB)`,
    );
    assert.ok(peak - before < RSS_BOUND_MIB * 1024, `${label}: RSS grew ${mib(peak - before)} MiB`);
  }
}

const HEAD = (path: string, ct: string, extra: string) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${ct}\r\n${extra}`;

/** 20 connections, each sending a 60,000-byte append body one byte per segment. */
function trickle(port: number, maxMs: number, afterAnswerMs = 0): Promise<Answer[]> {
  return Promise.all(Array.from({ length: 20 }, () =>
    sendSlowly(
      port,
      HEAD("/v1/log/entries", "application/cose", "Content-Length: 60000"),
      byteByByte(60_000),
      { gapMs: 1, maxMs, afterAnswerMs },
    )));
}

function codeOf(a: Answer): string | undefined {
  try {
    return JSON.parse(a.body).code;
  } catch {
    return undefined;
  }
}

Deno.test({
  name: "bodies: trickled one byte per segment, cut at the least rate or the deadline; RSS bounded",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-body-" });
    // The least rate: 2,048 bytes/s after 2 s; a deadline of 6 s behind it.
    const svc = await startService({
      DATA_DIR: `${dir}/data`,
      JC_BODY_MIN_RATE: "2048",
      JC_REQUEST_TIMEOUT_MS: "6000",
    });
    const port = portOf(svc.url);
    const acks = [await append(svc.url, 0)];
    try {
      const slow = await withRss(svc.pid, "trickle, least rate", () => trickle(port, 8000));
      const got = slow.map((a) => `${a.status} ${codeOf(a)} ${Math.round(a.ms)} ms ${a.sent} B`);
      console.log(`least rate: ${got.slice(0, 3).join("; ")} ...`);
      for (const a of slow) {
        assert.equal(a.status, 408, `a trickled body: ${a.status} ${a.body}`);
        assert.equal(codeOf(a), "body-too-slow");
        assert.ok(a.ms < 4000, `cut at ${Math.round(a.ms)} ms, within the grace and a second`);
        assert.ok(a.closed, "the rest of the body is not read: the connection is closed");
      }
      acks.push(await append(svc.url, 1));
    } finally {
      await svc.stop();
    }
    // No least rate: the request's deadline (2 s) answers 503 and the read stops there: the
    // connection is closed while the client is still sending.
    const svc2 = await startService({
      DATA_DIR: `${dir}/data`,
      JC_BODY_MIN_RATE: "0",
      JC_REQUEST_TIMEOUT_MS: "2000",
    });
    try {
      const late = await withRss(
        svc2.pid,
        "trickle, deadline",
        () => trickle(portOf(svc2.url), 6000, 2000),
      );
      for (const a of late) {
        assert.equal(a.status, 503, `a trickled body at the deadline: ${a.status} ${a.body}`);
        assert.equal(codeOf(a), "timeout");
        assert.ok(a.ms < 3500, `answered at ${Math.round(a.ms)} ms`);
        assert.ok(a.closed, "the body is not read past the deadline: the connection is closed");
      }
      acks.push(await append(svc2.url, 2));
      await assertAllPresent(svc2.url, acks);
    } finally {
      await svc2.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "bodies: /v1/validate and /v1/sparql refuse oversize bodies, declared or chunked (413)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-body-" });
    const svc = await startService({ DATA_DIR: `${dir}/data` }); // body_limit 65,536
    const port = portOf(svc.url);
    const acks = [await append(svc.url, 10)];
    const routes: [string, string][] = [
      ["/v1/validate", "application/ld+json"],
      ["/v1/sparql", "application/sparql-query"],
      ["/v1/sparql", "application/x-www-form-urlencoded"],
    ];
    try {
      for (const [path, ct] of routes) {
        // Declared: 10 MB refused before the body is read.
        const declared = await withRss(svc.pid, `${path} ${ct} 10 MB declared`, () =>
          sendSlowly(
            port,
            HEAD(path, ct, "Content-Length: 10000000"),
            chunked(65_536, 10_000_000).bind(null),
            { maxMs: 10_000 },
          ));
        assert.equal(declared.status, 413, `${path} declared: ${declared.status}`);
        assert.equal(codeOf(declared), "body-too-large");
        // Chunked: 200 MB offered, refused once past body_limit.
        const streamed = await withRss(svc.pid, `${path} ${ct} 200 MB chunked`, () =>
          sendSlowly(
            port,
            HEAD(path, ct, "Transfer-Encoding: chunked"),
            chunked(65_536, 200_000_000),
            { maxMs: 20_000 },
          ));
        console.log(
          `${path} (${ct}): declared 10 MB → ${declared.status} after ${declared.sent} B sent; ` +
            `chunked → ${streamed.status} after ${streamed.sent} B sent`,
        );
        assert.equal(streamed.status, 413, `${path} chunked: ${streamed.status} ${streamed.body}`);
        assert.equal(codeOf(streamed), "body-too-large");
        assert.ok(streamed.sent < 50_000_000, `refused early, not after ${streamed.sent} bytes`);
        assert.ok(streamed.closed && declared.closed, "the rest is not drained: closed");
      }
      acks.push(await append(svc.url, 11));
      await assertAllPresent(svc.url, acks);
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
