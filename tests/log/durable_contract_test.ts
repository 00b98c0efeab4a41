// The shared storage-contract suite (log/storage_contract_tests.ts) against the Durable Object
// backend (log/durable/) in Deno: the one SQL store over the Durable Object executor, over a real
// SQLite file through node:sqlite (fixtures/sqlite_durable.ts; the same engine the object
// runs). tests/edge/contract_test.ts runs the same suite inside workerd.
import { runStorageContractTests } from "../../log/storage_contract_tests.ts";
import { openDurableStorage } from "../../log/durable/mod.ts";
import { sqliteDurableStorage } from "../../fixtures/sqlite_durable.ts";

runStorageContractTests("durable executor over node:sqlite", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-do-contract-" });
  const sql = sqliteDurableStorage(`${dir}/do.sqlite`);
  return {
    storage: openDurableStorage(sql),
    cleanup: async () => {
      sql.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
});
