// Issue 27, "Connections": the real service (`deno task start`) over real TCP. An idle flood past
// a lowered descriptor limit (prlimit 256) never stops the service: /healthz answers within a
// bound during and after, appends go on, and every acknowledged append is still there. A head
// that never ends is cut at conn_header_timeout_ms, a kept-alive connection left idle at
// conn_idle_timeout_ms; a connection in use is never cut.
import assert from "node:assert/strict";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { startService } from "../../fixtures/service.ts";
import { alive, closedAfter, idleFlood, portOf, timedGet } from "./_hostile_client.ts";

const S = steward(27);

/** Appends receipt `n`; returns its acknowledgement (index, leaf_hash). */
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

/** Every acknowledged append is still in the log, at its index. */
export async function assertAllPresent(url: string, acks: { index: number; leaf_hash: string }[]) {
  for (const a of acks) {
    const r = await fetch(`${url}/v1/log/leaves/${a.leaf_hash}`);
    const body = await r.json();
    assert.equal(r.status, 200, `leaf ${a.leaf_hash} lost: ${JSON.stringify(body)}`);
    assert.equal(body.index, a.index);
  }
}

Deno.test({
  name: "connections: an idle flood past a 256-descriptor limit never stops the service",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-conn-" });
    const svc = await startService(
      { DATA_DIR: `${dir}/data`, JC_CONN_HEADER_TIMEOUT_MS: "3000" },
      ["prlimit", "--nofile=256:256", "--"],
    );
    const acks = [await append(svc.url, 0)];
    const flood = await idleFlood(portOf(svc.url), 400);
    try {
      console.log(`flood: ${flood.conns.length} idle connections open, ${flood.refused} refused`);
      // During: /healthz within 2 s every time, and an append is acknowledged.
      for (let i = 0; i < 3; i++) {
        const h = await timedGet(`${svc.url}/healthz`, 2000);
        console.log(`healthz during the flood: ${h.status} in ${Math.round(h.ms)} ms`);
        assert.equal(h.status, 200, "healthz answers during the flood");
      }
      acks.push(await append(svc.url, 1));
      assert.ok(flood.conns.length >= 300, "the flood went past the descriptor limit");
      // A second wave while the first is still open.
      const wave = await idleFlood(portOf(svc.url), 300);
      const h = await timedGet(`${svc.url}/healthz`, 2000);
      console.log(`healthz during the second wave: ${h.status} in ${Math.round(h.ms)} ms`);
      assert.equal(h.status, 200);
      acks.push(await append(svc.url, 2));
      wave.close();
    } finally {
      flood.close();
    }
    try {
      const h = await timedGet(`${svc.url}/healthz`, 2000);
      assert.equal(h.status, 200, "healthz answers after the flood");
      acks.push(await append(svc.url, 3));
      assert.ok(alive(svc.pid), "the service never exited");
      await assertAllPresent(svc.url, acks);
    } finally {
      const st = await svc.stop();
      const err = svc.stderr();
      await Deno.remove(dir, { recursive: true });
      assert.equal(st.code, 0, `a clean shutdown after the flood:\n${err}`);
    }
  },
});

Deno.test({
  name: "connections: an unfinished head and an idle keep-alive are closed; one in use is not",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-conn-" });
    const svc = await startService({
      DATA_DIR: `${dir}/data`,
      JC_CONN_HEADER_TIMEOUT_MS: "1000",
      JC_CONN_IDLE_TIMEOUT_MS: "1500",
    });
    const port = portOf(svc.url);
    const enc = new TextEncoder();
    try {
      // A head that never ends (slowloris): cut between 1 s and 1 s + a sweep + slack.
      const partial = await Deno.connect({ hostname: "127.0.0.1", port });
      await partial.write(enc.encode("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "));
      // A connection that never sends a byte.
      const silent = await Deno.connect({ hostname: "127.0.0.1", port });
      // A kept-alive connection, idle after one answer.
      const kept = await Deno.connect({ hostname: "127.0.0.1", port });
      await kept.write(enc.encode("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
      const first = new Uint8Array(4096);
      assert.ok((await kept.read(first)) ?? 0 > 0, "the first answer arrives");
      // A connection in use: a request every 400 ms for 3 s, past both timeouts.
      const busy = await Deno.connect({ hostname: "127.0.0.1", port });
      const inUse = (async () => {
        const buf = new Uint8Array(4096);
        for (let i = 0; i < 8; i++) {
          await busy.write(enc.encode("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
          const n = await busy.read(buf);
          if (n === null) return i;
          await new Promise((r) => setTimeout(r, 400));
        }
        return 8;
      })();
      const [p, s, k, served] = await Promise.all([
        closedAfter(partial, 6000),
        closedAfter(silent, 6000),
        closedAfter(kept, 6000),
        inUse,
      ]);
      busy.close();
      console.log(`closed after: unfinished head ${p} ms, silent ${s} ms, idle keep-alive ${k} ms`);
      assert.ok(p !== undefined && p >= 900 && p < 3500, `unfinished head closed at ${p} ms`);
      assert.ok(s !== undefined && s >= 900 && s < 3500, `silent connection closed at ${s} ms`);
      assert.ok(k !== undefined && k >= 1300 && k < 4000, `idle keep-alive closed at ${k} ms`);
      assert.equal(served, 8, "a connection in use is never cut");
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
