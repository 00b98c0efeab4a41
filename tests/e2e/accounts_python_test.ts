// The accounts over real HTTP agree with an independent replay (issue 30; docs/ACCOUNTING.md),
// on the Deno service: tests/e2e/_accounts_scenario.ts, with /v1/sparql's store, the N-Quads
// export and `client accounts`.
import { startService } from "../../fixtures/service.ts";
import { exerciseAccounts } from "./_accounts_scenario.ts";

Deno.test({
  name: "e2e accounts: GET /v1/accounts equals the Python replay of JCP §8.1 over every window",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jc-accounts-py-" });
    const svc = await startService({ DATA_DIR: dir, JC_BATCH_AGE_MS: "2" });
    try {
      const f = await exerciseAccounts(svc.url, [1, 2, 3, 4, 5, 6], { sparql: true, client: true });
      console.log(
        `accounts agreement: ${f.streams} streams, ${f.receipts} receipts, ${f.windows} windows, ` +
          `${f.accounts} accounts, ${f.sums} sums equal to the replay's over HTTP; ${f.rdfSums} ` +
          "sums from /v1/sparql and the N-Quads export equal",
      );
    } finally {
      await svc.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
