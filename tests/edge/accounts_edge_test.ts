// Accounts at the edge (issue 30), in real local workerd: the same Python-built streams as the
// Deno service (tests/e2e/_accounts_scenario.ts): appends go front Worker → batchers → the
// sequencer object, whose SQLite keeps the accounts in the round's own transaction (the one SQL
// store's), and GET /v1/accounts is asked of the sequencer. The edge has no /v1/sparql store; the
// documented query runs over its N-Quads export.
import { removeBundle, startWorker } from "../../fixtures/worker.ts";
import { exerciseAccounts } from "../e2e/_accounts_scenario.ts";

Deno.test({
  name: "edge: GET /v1/accounts equals the Python replay of JCP §8.1 in workerd",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const state = await Deno.makeTempDir({ prefix: "jc-edge-accounts-" });
    const rt = await startWorker(state, { JC_EDGE_BATCHERS: "4" });
    try {
      const f = await exerciseAccounts(rt.url.href.replace(/\/$/, ""), [7, 8, 9], {
        sparql: false,
        client: false,
      });
      console.log(
        `edge accounts: ${f.streams} streams, ${f.receipts} receipts, ${f.accounts} accounts, ` +
          `${f.sums} sums equal over HTTP, ${f.rdfSums} from the export`,
      );
    } finally {
      await rt.stop();
      await removeBundle();
      await Deno.remove(state, { recursive: true });
    }
  },
});
