// The stream state survives SIGKILL under load (issue 24): 8 stewards append their JCP §8.1
// chains concurrently (some links withheld: gaps; some positions signed twice: forks), the
// service is SIGKILLed mid-load, restarted, appended to again and stopped; then the state its
// store holds (streams and findings of every steward) equals the state recomputed from the
// log's entries alone (tests/_streams_recompute.ts). The checks run in each batch's commit
// transaction, so no crash can leave the state ahead of or behind the entries. Each steward's
// receipts are then searched (GET /v1/log/search) and must answer exactly the steward's entries,
// wherever their keys were when the kill came (docs/STORAGE.md "Lagging search index").
import assert from "node:assert/strict";
import { startService } from "../../fixtures/service.ts";
import { appendStatus, killUnderLoad } from "./_kill_under_load.ts";
import { openSqliteStorage } from "../../log/sqlite/mod.ts";
import { steward } from "../../fixtures/app.ts";
import { cidOf, jcpEnvelope, ZEROS } from "../_streams.ts";
import { recompute } from "../_streams_recompute.ts";
import { fromHex } from "../../verify/mod.ts";

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

Deno.test({
  name: "e2e streams: the stream state survives SIGKILL under load, equal to a recomputation",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-streams-crash-" });
    // search_key_lag 16: the search keys move every few batches, so kills also land in moves
    const env = { DATA_DIR: dir, JC_BATCH_AGE_MS: "2", JC_SEARCH_KEY_LAG: "16" };
    let svc = await startService(env);
    const gens = Array.from({ length: WORKERS }, (_, w) => links(w));
    let acked = 0;
    try {
      svc = await killUnderLoad(
        { env, lanes: WORKERS, acked: () => acked, first: 400, more: 200 },
        async (w, url) => {
          if ((await appendStatus(url, gens[w].next().value!)) === 201) acked++;
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
        // every search key the recomputation wrote answers exactly its entries, wherever the
        // kills left it (search_tail or search_keys)
        let searched = 0;
        for (const [hex, list] of want.keys) {
          assert.deepEqual(await x.search([fromHex(hex)], -1, 1_000_000), list, `search ${hex}`);
          searched++;
        }
        assert.ok(searched > WORKERS, `${searched} keys searched`);
        const tail = s.db.prepare("SELECT count(*) AS n FROM search_tail").get() as { n: number };
        assert.ok(tail.n <= 16, `${tail.n} entries in the tail, lag 16`);
      } finally {
        await s.close();
      }
    } finally {
      await svc.stop().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});
