// Issue 18 acceptance for the meter agent's delivery: the bundled agent under real Node 20
// (/usr/bin/node) streams to a hostile server, one per behaviour. Each batch ends within its
// deadline (`--timeout`) with the NetError code on stderr, the agent backs off and keeps every
// reading in its spool, its peak RSS stays under 100 MB (and within 10 MB of the same agent
// streaming to a well-behaved service), and SIGTERM stops it within a deadline.
import assert from "node:assert/strict";
import { buildAgent } from "../../meter-agent/build.ts";
import { GENESIS, identityFromSecret } from "../../meter-agent/src/reading.ts";
import { decodeCbor, parseCoseSign1, splitCoseSequence, toHex } from "../../verify/mod.ts";
import { type Behaviour, startHostile } from "./_hostile_server.ts";
import { measure, pool } from "./_measure.ts";

const NODE = "/usr/bin/node";
const TIMEOUT_S = 2;
const RSS_CAP_KIB = 100 * 1024;

const CASES: [Behaviour | "closed" | "good", string][] = [
  ["good", "streaming"], // the control: a well-behaved service (as bench/suites/agent.ts)
  ["silent", "net-timeout"],
  ["stall-headers", "net-timeout"],
  ["endless", "net-body-too-large"],
  ["big-declared", "net-body-too-large"],
  ["long-proof", "net-body-too-large"],
  ["redirect-loop", "net-too-many-redirects"],
  ["bad-utf8", "net-bad-utf8"],
  ["bad-json", "net-bad-json"],
  ["closed", "net-connect"],
];

Deno.test("agent: delivery to a hostile server under Node 20 ends each batch in time, keeps the spool, stays under 100 MB", async () => {
  const nodeVersion = new TextDecoder().decode(
    (await new Deno.Command(NODE, { args: ["--version"] }).output()).stdout,
  );
  assert.match(nodeVersion, /^v(2\d|[3-9]\d)\./, `this test needs Node >= 20 at ${NODE}`);
  const tmp = await Deno.makeTempDir({ prefix: "hostile-agent-" });
  const servers = CASES.map(([b]) => b === "closed" || b === "good" ? undefined : startHostile(b));
  let index = 0;
  const good = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    // the agent sends its batch as a CBOR sequence of envelopes (RFC 8742; docs/METER-READING.md)
    assert.equal(req.headers.get("content-type"), "application/cbor-seq");
    const envelopes = splitCoseSequence(new Uint8Array(await req.arrayBuffer()));
    const seqOf = (e: Uint8Array) =>
      Number((decodeCbor(parseCoseSign1(e).payload) as Map<string, unknown>).get("seq"));
    return Response.json({
      results: envelopes.map((e) => ({ seq: seqOf(e), index: index++ })),
    });
  });
  try {
    const bundle = await buildAgent(`${tmp}/dist`);
    await Deno.mkdir(`${tmp}/sys`); // no counters: the Estimator meters
    const results = await pool(
      3,
      CASES.map(([b, code], i) => async () => {
        let url = b === "good" ? `http://127.0.0.1:${good.addr.port}` : servers[i]?.url;
        if (!url) {
          const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
          url = `http://127.0.0.1:${(l.addr as Deno.NetAddr).port}`;
          l.close();
        }
        const spool = `${tmp}/spool-${b}`;
        // An agent that has run before: its key and a spool that knows its chain (at genesis). A
        // fresh spool would first ask the service for its chain head (GET /v1/agents/{did},
        // issue 16) and meter nothing until it answers; this test is about delivery.
        const secret = crypto.getRandomValues(new Uint8Array(32));
        await Deno.writeTextFile(`${tmp}/key-${b}`, toHex(secret) + "\n");
        await Deno.mkdir(spool, { recursive: true });
        await Deno.writeTextFile(
          `${spool}/chain.json`,
          JSON.stringify({ did: identityFromSecret(secret).did, ...GENESIS }),
        );
        let firstError = -1;
        let stopAt = -1;
        const t0 = performance.now();
        const r = await measure(
          NODE,
          [
            bundle,
            "--server",
            url,
            "--key",
            `${tmp}/key-${b}`,
            "--interval",
            "0.2",
            "--sysfs",
            `${tmp}/sys`,
            "--rungs",
            "rapl",
            "--reprobe",
            "3600",
            "--spool",
            spool,
            "--timeout",
            String(TIMEOUT_S),
          ],
          { watchdogMs: 60_000 },
          async (child, live) => {
            // two failed batches, each reported with its code, then a graceful stop
            const deadline = performance.now() + 30_000;
            while (
              (live.stderr.match(new RegExp(code, "g"))?.length ?? 0) < 2 &&
              performance.now() < deadline
            ) {
              if (firstError < 0 && live.stderr.includes(code)) firstError = performance.now() - t0;
              await new Promise((r) => setTimeout(r, 50));
            }
            if (firstError < 0 && live.stderr.includes(code)) firstError = performance.now() - t0;
            stopAt = performance.now();
            child.kill("SIGTERM");
          },
        );
        const pending = [...Deno.readDirSync(`${spool}/pending`)].filter((e) =>
          e.name.endsWith(".cose")
        ).length;
        return { b, code, r, firstError, stopMs: performance.now() - stopAt, pending };
      }),
    );
    const control = results.find((x) => x.b === "good")!;
    console.log(
      `agent × good service (control): ${index} readings delivered, ${control.pending} left, peak ${
        Math.round(control.r.peakKiB / 1024)
      } MB`,
    );
    assert.ok(index >= 5 && control.pending <= 1, control.r.stderr);
    for (const { b, code, r, firstError, stopMs, pending } of results) {
      if (b === "good") continue;
      console.log(
        `agent × ${b}: first ${code} after ${Math.round(firstError)} ms, stopped ${
          Math.round(stopMs)
        } ms after SIGTERM, exit ${r.code}, ${pending} readings kept, peak ${
          Math.round(r.peakKiB / 1024)
        } MB`,
      );
      const what = `${b}:\n${r.stderr}`;
      assert.equal(r.killed, false, `hung: ${what}`);
      assert.match(
        r.stderr,
        new RegExp(`Cannot fetch .*: ${code} \\(limit: .+; seen: .+\\)`),
        what,
      );
      // the agent's start (Node, sampling the first span) plus one batch deadline, generously
      assert.ok(firstError > 0 && firstError < 15_000 + TIMEOUT_S * 1000, what);
      assert.ok(stopMs < TIMEOUT_S * 1000 + 5_000, `stop took ${stopMs} ms: ${what}`);
      assert.equal(r.code, 0, what);
      assert.ok(pending >= 2, `spool lost readings (${pending} left): ${what}`);
      assert.ok(r.peakKiB > 0 && r.peakKiB < RSS_CAP_KIB, `${r.peakKiB} KiB: ${what}`);
      // Node's own fetch (undici) costs ~40 MB on first use: the hostile server adds nothing to it
      assert.ok(r.peakKiB < control.r.peakKiB + 10 * 1024, `${r.peakKiB} KiB vs control: ${what}`);
    }
  } finally {
    await Promise.all([...servers.map((s) => s?.close()), good.shutdown()]);
    await Deno.remove(tmp, { recursive: true });
  }
});
