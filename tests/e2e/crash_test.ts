// Crash safety end to end (ARCHITECTURE Decision 7: nothing acknowledged is ever lost): the
// service is SIGKILLed while 8 clients submit concurrently; after a restart every entry it
// answered 201/200 for is at its index with a verifying proof, and the monitor — which watched
// the log before the crash — sees a consistent log after it.
import assert from "node:assert/strict";
import { emptyState, LogClient, poll } from "../../client/mod.ts";
import { steward, validEnvelope } from "../../fixtures/app.ts";
import { monitoredSize, runClient, startService } from "../../fixtures/service.ts";
import { checkViews, httpPublication, viewStates } from "../log/_views.ts";

const CLIENTS = 8;

Deno.test({
  name: "e2e: SIGKILL under 8 concurrent submitters loses nothing acknowledged",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-crash-" });
    const env = { DATA_DIR: dataDir };
    let svc = await startService(env);
    try {
      const monitorState = emptyState();
      assert.equal((await poll(svc.url, monitorState)).ok, true);
      const cliState = `${dataDir}/monitor.json`;
      const m0 = await runClient(["monitor", svc.url, "--state", cliState, "--once"]);
      assert.equal(m0.code, 0, m0.stderr);
      const acked: { leaf: string; index: number }[] = [];
      let stop = false;
      let killedAt = 0;
      const s = steward(3);
      const workers = Array.from({ length: CLIENTS }, async (_, w) => {
        const client = new LogClient(svc.url, svc.signer);
        for (let n = 0; !stop; n++) {
          try {
            const a = await client.submit(validEnvelope(w * 1_000_000 + n, s));
            acked.push({ leaf: a.leaf_hash, index: a.index });
            if (w === 0 && n % 10 === 0) {
              const r = await poll(svc.url, monitorState);
              assert.equal(r.ok, true, JSON.stringify(r));
            }
          } catch (e) {
            if (!killedAt) throw e; // before the kill every submission must succeed
            return; // after it, connections fail: expected
          }
        }
      });
      // let the clients run until enough has been acknowledged, then crash the service
      while (acked.length < 100) await new Promise((r) => setTimeout(r, 20));
      const mid = await runClient(["monitor", svc.url, "--state", cliState, "--once"]);
      assert.equal(mid.code, 0, mid.stderr);
      assert.ok((monitoredSize(mid.stdout) ?? 0) >= 100, "the CLI monitor saw a non-empty head");
      // Both views' checkpoints as a C2SP client saw them before the crash.
      const before = await viewStates(await httpPublication(svc.url));
      while (acked.length < 200) await new Promise((r) => setTimeout(r, 20));
      killedAt = acked.length;
      const st = await svc.stop("SIGKILL");
      assert.equal(st.success, false);
      stop = true;
      await Promise.all(workers);
      assert.ok(acked.length >= killedAt);

      svc = await startService(env);
      const client = new LogClient(svc.url, svc.signer);
      const head = await client.head();
      for (const { leaf, index } of acked) {
        const p = await client.prove(leaf); // checks the proof against the signed head
        assert.equal(p.index, index, `acknowledged leaf ${leaf} moved`);
      }
      assert.ok(head.size >= new Set(acked.map((a) => a.leaf)).size);
      // Both published views, over HTTP: consistent with each other, with the head, with every
      // acknowledged entry and with the checkpoints seen before the crash (PUBLICATION.md P1).
      await checkViews(
        await httpPublication(svc.url),
        new Map(acked.map((a) => [a.index, a.leaf])),
        before,
        head,
      );
      const r = await poll(svc.url, monitorState);
      assert.equal(r.ok, true, `monitor after restart: ${JSON.stringify(r)}`);
      // the monitor CLI, which saw the log before the crash, sees no inconsistency after it
      const m1 = await runClient(["monitor", svc.url, "--state", cliState, "--once"]);
      assert.equal(m1.code, 0, m1.stderr);
      assert.equal(monitoredSize(m1.stdout), head.size);
    } finally {
      await svc.stop("SIGTERM");
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "e2e: SIGTERM drains — every append in flight is answered and kept",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "jc-drain-" });
    const env = { DATA_DIR: dataDir };
    let svc = await startService(env);
    try {
      const s = steward(4);
      const client = new LogClient(svc.url, svc.signer);
      await client.submit(validEnvelope(0, s)); // connections warm
      let answered = 0;
      const results = await Promise.allSettled(
        Array.from({ length: 400 }, async (_, i) => {
          const a = await client.submit(validEnvelope(i + 1, s));
          answered++;
          return { leaf: a.leaf_hash, index: a.index };
        }).concat([
          (async () => {
            while (answered < 40) await new Promise((r) => setTimeout(r, 2));
            const st = await svc.stop("SIGTERM"); // while the rest are in flight
            assert.equal(st.code, 0, `graceful exit: ${svc.stderr()}`);
            return { leaf: "", index: -1 };
          })(),
        ]),
      );
      const acked = results.flatMap((r) =>
        r.status === "fulfilled" && r.value.index >= 0 ? [r.value] : []
      );
      // anything not answered was refused before it was accepted (connection closed), never
      // accepted and dropped: each acknowledged one is in the log after a restart
      svc = await startService(env);
      const again = new LogClient(svc.url, svc.signer);
      for (const { leaf, index } of acked) assert.equal((await again.prove(leaf)).index, index);
      const failed = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
      assert.ok(acked.length > 40, `answered while draining: ${acked.length}`);
      for (const f of failed) {
        assert.doesNotMatch(String(f.reason), /VerificationFailure|HTTP 5\d\d/, String(f.reason));
      }
    } finally {
      await svc.stop("SIGTERM");
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
