// Runs the shared storage-contract suite against the memory and SQLite backends.
import { runStorageContractTests } from "./storage_contract_tests.ts";
import { createMemoryStore } from "./memory.ts";
import { openSqliteStorage } from "./sqlite/mod.ts";

runStorageContractTests("memory", () => Promise.resolve({ storage: createMemoryStore() }));

runStorageContractTests("sqlite", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jc-log-contract-" });
  return {
    storage: openSqliteStorage(`${dir}/log.sqlite`),
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
});
