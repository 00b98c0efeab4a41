// The stream state survives SIGKILL under load (issue 24): 8 stewards append their JCP §8.1
// chains concurrently (some links withheld: gaps; some positions signed twice: forks), the
// service is SIGKILLed mid-load, restarted, appended to again and stopped; then the state its
// store holds (streams and findings of every steward) equals the state recomputed from the
// log's entries alone (tests/_streams_recompute.ts). The checks run in each batch's commit
// transaction, so no crash can leave the state ahead of or behind the entries.
import assert from "node:assert/strict";
import { startService } from "../../fixtures/service.ts";
import { killUnderLoad } from "./_kill_under_load.ts";
import { openSqliteStorage } from "../../log/sqlite/mod.ts";
import { steward } from "../../fixtures/app.ts";
import { cidOf, jcpEnvelope, ZEROS } from "../_streams.ts";
import { recompute } from "../_streams_recompute.ts";

const WORKERS = 8;

/** Worker w's chain, link by link: some links withheld, some positions forked. */
function* links(w: number) {
  const s = steward(40 + w);
  let prev = ZEROS;
  for (let seq = 0;; seq++) {
    const e = jcpEnvelope(w * 1_000_000 + seq, { seq, prev }, s);
    prev = cidOf(e);
    if (seq % 37 === 5) continue; // withheld: a gap that never clears
    yield e;
    if (seq % 53 === 7) yield jcpEnvelope(w * 1_000_000 + 500_000 + seq, { seq, prev: ZEROS }, s);
  }
}

async function post(url: string, e: Uint8Array<ArrayBuffer>): Promise<number> {
  const r = await fetch(`${url}/v1/log/entries`, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: e,
  });
  await r.body?.cancel();
  return r.status;
}

Deno.test({
  name: "e2e streams: the stream state survives SIGKILL under load, equal to a recomputation",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-streams-crash-" });
    const env = { DATA_DIR: dir, JC_BATCH_AGE_MS: "2" };
    let svc = await startService(env);
    const gens = Array.from({ length: WORKERS }, (_, w) => links(w));
    let acked = 0;
    try {
      svc = await killUnderLoad(
        { env, lanes: WORKERS, acked: () => acked, first: 400, more: 200 },
        async (w, url) => {
          if ((await post(url, gens[w].next().value!)) === 201) acked++;
        },
        svc,
      );
      await svc.stop();

      const s = openSqliteStorage(`${dir}/log.sqlite`);
      try {
        const size = (await s.latestHead())!.size;
        const want = await recompute(s, size, 300_000);
        const x = s.capabilities().streamIndex!;
        let forks = 0, gaps = 0;
        for (let w = 0; w < WORKERS; w++) {
          const did = steward(40 + w).did;
          assert.deepEqual(await x.streams(did), want.streams.get(did) ?? [], `streams of ${w}`);
          const strip = ({ id: _id, ...f }: { id?: number }) => f;
          const got = (await x.streamFindings(did, 0, 1_000_000)).map(strip);
          const exp = want.findings.filter((f) => f.steward === did).map(strip);
          assert.deepEqual(got, exp, `findings of steward ${w}`);
          forks += exp.filter((f) => (f as { code: string }).code === "stream-fork").length;
          gaps += exp.filter((f) => (f as { code: string }).code === "stream-gap").length;
        }
        assert.ok(forks > 0 && gaps > 0, `the load made forks (${forks}) and gaps (${gaps})`);
      } finally {
        await s.close();
      }
    } finally {
      await svc.stop().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});
