// The cosignature collector (api/services/witness_collector.ts) against two real witness processes (B, C)
// over 127.0.0.1: a log in this process (the same Log the service runs) is cosigned to a 2-of-2
// quorum; with C stopped the served checkpoint falls below quorum; a collector that forgot what
// the witnesses cosigned learns it from their 409s; a forked log (same key, other entries) gets a
// 422 and raises the alarm.
import assert from "node:assert/strict";
import { openMemoryLog } from "../../log/mod.ts";
import { parsePolicy } from "../../log/c2sp/policy.ts";
import { openCheckpointWithPolicy } from "../../log/c2sp/quorum.ts";
import { memoryWitnessState } from "../../log/c2sp/witness_state.ts";
import { WitnessCollector } from "../../api/services/witness_collector.ts";
import { sha256Source } from "../../api/deno/witnessing.ts";
import { Metrics } from "../../api/http/metrics.ts";
import { ed25519GenerateSecret } from "../../verify/mod.ts";
import { type Service, startService } from "../../fixtures/service.ts";

const T = { sanitizeResources: false, sanitizeOps: false };
const enc = new TextEncoder();

async function witnessVkey(svc: Service): Promise<string> {
  return (await (await fetch(`${svc.url}/v1/log/key`)).json()).witness_vkey;
}

async function appendN(log: Awaited<ReturnType<typeof openMemoryLog>>, from: number, n: number) {
  await Promise.all(
    Array.from({ length: n }, (_, i) => log.append(enc.encode(`entry ${from + i}`))),
  );
}

Deno.test({
  name: "collector: 2-of-2 quorum with B and C; C stopped → below quorum; 409 learning; 422 alarm",
  ...T,
  async fn() {
    const secret = ed25519GenerateSecret();
    const log = await openMemoryLog({ secretKey: secret, logName: "collector.test/a" });
    const tmp = await Deno.makeTempDir({ prefix: "jc-collector-" });
    const env = (n: string) => ({
      DATA_DIR: `${tmp}/${n}`,
      JC_WITNESS_LOGS: log.vkeys().sha256,
      JC_WITNESS_NAME: `${n}.witness.test`,
    });
    const b = await startService(env("b"));
    let c: Service | undefined = await startService(env("c"));
    try {
      const wb = { url: b.url, vkey: await witnessVkey(b) };
      const wc = { url: c.url, vkey: await witnessVkey(c) };
      const policy = parsePolicy(enc.encode(
        `log ${log.vkeys().sha256}\nwitness B ${wb.vkey}\nwitness C ${wc.vkey}\n` +
          `group both all B C\nquorum both\n`,
      ));
      const state = memoryWitnessState();
      const metrics = new Metrics();
      const alarms: string[] = [];
      const collector = new WitnessCollector({
        witnesses: [wb, wc],
        source: sha256Source(log),
        state,
        metrics,
        log: (l) => alarms.push(l),
      });
      await appendN(log, 0, 300);
      await collector.round();
      let served = collector.served(await log.checkpoint("sha256"));
      const ok = await openCheckpointWithPolicy(served, policy);
      assert.deepEqual(ok.cosigners.sort(), ["B", "C"]);
      assert.equal(ok.checkpoint.size, 300);
      // the log grows: each witness gets a consistency proof from the size it cosigned
      await appendN(log, 300, 700);
      await collector.round();
      served = collector.served(await log.checkpoint("sha256"));
      assert.equal((await openCheckpointWithPolicy(served, policy)).checkpoint.size, 1000);
      const st = await collector.status();
      assert.deepEqual(st.map((s) => [s.cosignedSize, s.lag, s.failures]), [[1000, 0, 0], [
        1000,
        0,
        0,
      ]]);
      assert.match(metrics.render(), /jc_witness_cosigned_size\{witness="b\.witness\.test"\} 1000/);

      // C stops: the next checkpoint is cosigned by B only, below the 2-of-2 quorum
      await c.stop();
      c = undefined;
      await appendN(log, 1000, 5);
      await collector.round();
      served = collector.served(await log.checkpoint("sha256"));
      await assert.rejects(openCheckpointWithPolicy(served, policy), /below the policy's quorum/);
      const st2 = await collector.status();
      assert.equal(st2[1].failures, 1);
      assert.equal(st2[1].lag, 5);
      assert.ok(alarms.some((l) => l.includes("c.witness.test")), alarms.join("\n"));

      // a collector that forgot everything (fresh state) learns B's size from its 409
      const fresh = new WitnessCollector({
        witnesses: [wb],
        source: sha256Source(log),
        state: memoryWitnessState(),
        log: () => {},
      });
      await appendN(log, 1005, 3);
      await fresh.round();
      assert.deepEqual((await fresh.status())[0].cosignedSize, 1008);

      // a fork: same key and name, other entries; B has cosigned 1008 of the real log → 422
      const fork = await openMemoryLog({ secretKey: secret, logName: "collector.test/a" });
      await appendN(fork, 5000, 1010);
      const forkAlarms: string[] = [];
      const fm = new Metrics();
      const forked = new WitnessCollector({
        witnesses: [wb],
        source: sha256Source(fork),
        state: memoryWitnessState(),
        metrics: fm,
        log: (l) => forkAlarms.push(l),
      });
      await forked.round();
      const fs = (await forked.status())[0];
      assert.match(fs.alarm ?? "", /^422/);
      assert.ok(
        forkAlarms.some((l) => l.startsWith("witness collector: ALARM")),
        forkAlarms.join(),
      );
      assert.match(fm.render(), /jc_witness_alarms_total\{witness="b\.witness\.test"\} 1/);
      await fork.close();
    } finally {
      await c?.stop();
      await b.stop();
      await log.close();
    }
  },
});
