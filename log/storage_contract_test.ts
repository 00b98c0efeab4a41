// Runs the shared storage-contract suite against the memory and SQLite backends (SQLite with its
// default lagging leaf index, with every batch flushed, and with a tiny lag so flushes happen
// mid-case).
import { runStorageContractTests } from "./storage_contract_tests.ts";
import { createMemoryStore } from "./memory.ts";
import { openSqliteStorage } from "./sqlite/mod.ts";

runStorageContractTests("memory", () => Promise.resolve({ storage: createMemoryStore() }));

for (
  const [name, leafIndexLag] of [["sqlite", undefined], ["sqlite lag 0", 0], [
    "sqlite lag 3",
    3,
  ]] as const
) {
  runStorageContractTests(name, async () => {
    const dir = await Deno.makeTempDir({ prefix: "jc-log-contract-" });
    return {
      storage: openSqliteStorage(`${dir}/log.sqlite`, { leafIndexLag }),
      cleanup: () => Deno.remove(dir, { recursive: true }),
    };
  });
}
