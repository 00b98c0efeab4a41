// The accounts survive SIGKILL under load and a restart (issue 30): 6 stewards append decision
// receipts concurrently (allows, capped debits, debit-point denials, refusals, holds settled in
// either order and some never, firings), the service is SIGKILLed mid-load, restarted, appended
// to again and stopped; then the accounts its store holds equal the accounts recomputed from the
// log's entries alone (tests/_accounts_recompute.ts), over the whole log and over windows. The
// fold runs in each batch's commit transaction, so no crash can leave the accounts ahead of or
// behind the entries.
import assert from "node:assert/strict";
import { startService } from "../../fixtures/service.ts";
import { appendStatus, killUnderLoad } from "./_kill_under_load.ts";
import { openSqliteStorage } from "../../log/sqlite/mod.ts";
import { steward } from "../../fixtures/app.ts";
import { cidOf, jcpEnvelope } from "../_streams.ts";
import { recomputeAccounts } from "../_accounts_recompute.ts";

const WORKERS = 6;
const G2 = "ab".repeat(32);

/** Worker w's receipts: every kind, holds settled after (or before) them, some never. */
function* receipts(w: number) {
  const s = steward(60 + w);
  for (let n = 0;; n++) {
    const id = w * 1_000_000 + n * 10;
    switch (n % 6) {
      case 0:
        yield jcpEnvelope(id, { cost_uj: 100 + n }, s);
        break;
      case 1:
        yield jcpEnvelope(id, {
          cost_uj: 900,
          debited_uj: 450,
          chain_ids: [G2, G2.replace("ab", "cd")],
        }, s);
        break;
      case 2:
        yield jcpEnvelope(id, {
          verdict: "deny",
          deny_reason: n % 4 ? "caveat-unsatisfied" : "budget-exceeded",
          cost_uj: 300,
        }, s);
        break;
      case 3: {
        const hold = jcpEnvelope(id, { held_uj: 5000, cost_uj: 0 }, s);
        const settle = jcpEnvelope(id + 1, { cost_uj: 700 + n, settles: cidOf(hold) }, s);
        if (n % 5 === 0) yield hold; // never settled
        else if (n % 4 === 1) yield* [settle, hold]; // settled early
        else yield* [hold, settle];
        break;
      }
      case 4:
        yield jcpEnvelope(id, { action: "mint", cost_uj: 0, minted_uj: 1000 + n }, s);
        break;
      default:
        yield jcpEnvelope(id, { cost_uj: 50, energy_coverage: "Partial", debited_minor: 3 }, s);
    }
  }
}

Deno.test({
  name: "e2e accounts: the accounts survive SIGKILL and restart, equal to a recomputation",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-accounts-crash-" });
    const env = { DATA_DIR: dir, JC_BATCH_AGE_MS: "2" };
    let svc = await startService(env);
    const gens = Array.from({ length: WORKERS }, (_, w) => receipts(w));
    let acked = 0;
    try {
      svc = await killUnderLoad(
        { env, lanes: WORKERS, acked: () => acked, first: 300, more: 200 },
        async (w, url) => {
          if ((await appendStatus(url, gens[w].next().value!)) === 201) acked++;
        },
        svc,
      );
      // the restarted service answers the same accounts its store holds
      const did0 = steward(60).did;
      const live = await (await fetch(
        `${svc.url}/v1/accounts?steward=${encodeURIComponent(did0)}&limit=100`,
      )).json();
      await svc.stop();

      const s = openSqliteStorage(`${dir}/log.sqlite`);
      try {
        const size = (await s.latestHead())!.size;
        const want = await recomputeAccounts(s, size);
        const x = s.capabilities().streamIndex!;
        const [h] = await s.heads(Math.floor(size / 2), 1);
        let compared = 0, outstanding = 0, settled = 0;
        for (let w = 0; w < WORKERS; w++) {
          const did = steward(60 + w).did;
          for (
            const [from, to] of [[undefined, undefined], [h.timestamp, undefined], [
              undefined,
              h.timestamp,
            ]]
          ) {
            const got = await x.accounts({ steward: did, limit: 100, from, to });
            assert.deepEqual(
              got.accounts,
              want.accounts(did, from, to),
              `steward ${w} ${from} ${to}`,
            );
            compared += got.accounts.length;
          }
          const all = want.accounts(did);
          outstanding += all.reduce((n, a) => n + a.outstanding_holds, 0);
          settled += all.reduce((n, a) => n + a.holds_settled, 0);
        }
        assert.deepEqual(live.accounts, want.accounts(did0), "the restarted service's answer");
        assert.ok(
          outstanding > 0 && settled > 0,
          `holds open (${outstanding}), settled (${settled})`,
        );
        console.log(`accounts after SIGKILL: ${size} entries, ${compared} accounts equal`);
      } finally {
        await s.close();
      }
    } finally {
      await svc.stop().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});
