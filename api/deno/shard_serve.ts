// The embedded default's shards, for api/deno/main.ts (docs/SHARDS.md "Embedded"): the shard files
// under the data directory (or memory), the operator key (generated mode 0600 on first start,
// `operator_key_file`), the ShardSet with the configured rotation, a witness collector for every
// shard after the first (its own state in its folder: a frozen shard's final checkpoint is offered
// until the witnesses cosigned it, like any other), and one app per shard serving only the log
// routes below the shard's prefix.
import type { AppServices } from "../services/services.ts";
import type { Hono } from "hono";
import { join } from "node:path";
import { ed25519GenerateSecret } from "../../verify/mod.ts";
import { createApp } from "../http/app.ts";
import type { ServiceConfig } from "../services/config.ts";
import type { Metrics } from "../http/metrics.ts";
import type { AppDeps, AppEnv } from "../http/route.ts";
import { allRoutes, SHARD_ROUTE_GROUPS } from "../http/routes.ts";
import { memoryShardFiles, type ShardLogOptions, sqliteShardFiles } from "./shard_files.ts";
import { type ShardHandle, ShardSet } from "../services/shard_set.ts";
import { WitnessCollector } from "../services/witness_collector.ts";
import { sha256Source } from "../services/witness_source.ts";

/** The open shards and how to build each one's app. */
export interface ShardServing {
  shards: ShardSet;
  /** For the dispatcher: a shard's app (built on first use from the root's deps), by id. */
  apps(
    root: AppDeps,
  ): (id: string, clientAddr: string) => ((req: Request) => Promise<Response>) | undefined;
}

/** Opens the shards of `config` (s0: the data directory's store, as before shards). */
export async function openShardServing(
  config: ServiceConfig,
  o: ShardLogOptions & { logName?: string },
  metrics: Metrics,
): Promise<ShardServing> {
  const { logName: _ignored, ...logOptions } = o;
  let files, operatorKey: (create: boolean) => Uint8Array;
  if (config.store === "memory") {
    files = memoryShardFiles(logOptions);
    operatorKey = () => ed25519GenerateSecret();
  } else {
    // 0700 whatever the umask (issue 27)
    await Deno.mkdir(config.dataDir, { recursive: true, mode: 0o700 });
    const { loadOrCreateLogKey } = await import("../../log/sqlite/key.ts");
    files = sqliteShardFiles(
      config.dataDir,
      config.keyFile,
      logOptions,
      config.pinFile,
      config.pinDir,
    );
    // generated only for a new service; otherwise bound to the directory it signed (issue 27)
    operatorKey = (create) =>
      loadOrCreateLogKey(config.operatorKeyFile, {
        what: "operator key",
        create,
        missingWhy: "this log's shard directory was signed with it",
      }).secret;
  }
  const collectors = new Map<ShardHandle, { c: WitnessCollector; close(): Promise<void> }>();
  // once per process: a shard's pin in the data directory is restored with it (docs/DECISIONS.md)
  let pinWarned = config.store === "memory" || config.pinDir !== undefined;
  const onShard = async (h: ShardHandle) => {
    if (h.n > 0 && !pinWarned) {
      pinWarned = true;
      console.error(
        `shards: ${h.id}'s signed-head pin lives in the data directory (beside its key); a whole ` +
          "data directory restored from an older copy cannot be told from the latest for it: set " +
          'pin_dir (JC_PIN_DIR) to a durable directory outside it (docs/OPERATIONS.md "Restore")',
      );
    }
    if (h.n === 0 || config.witnesses.length === 0) return; // s0's: api/deno/witnessing.ts
    const dir = files.dirOf(h.n);
    let state;
    if (dir) {
      const { openSqliteWitnessState, WITNESS_DB_FILE } = await import(
        "../../log/sqlite/witness_state.ts"
      );
      state = openSqliteWitnessState(join(dir, WITNESS_DB_FILE));
    } else {
      const { memoryWitnessState } = await import("../../log/c2sp/mod.ts");
      state = memoryWitnessState();
    }
    const c = new WitnessCollector({
      witnesses: config.witnesses,
      source: sha256Source(h.gate.inner),
      state,
      metrics,
    });
    c.start();
    collectors.set(h, { c, close: () => state.close() });
  };
  const onShardClose = async (h: ShardHandle) => {
    const w = collectors.get(h);
    if (!w) return;
    await w.c.stop();
    await w.close();
  };
  const shards = await ShardSet.open({
    files,
    operatorKey,
    logName: config.logName,
    maxSize: config.shardMaxSize,
    maxAgeMs: config.shardMaxAgeMs,
    onShard,
    onShardClose,
    report: (line) => console.error(line),
  });
  return {
    shards,
    apps(root) {
      const built = new Map<ShardHandle, Hono<AppEnv>>();
      const routes = allRoutes(SHARD_ROUTE_GROUPS);
      return (id, clientAddr) => {
        const h = shards.byId(id);
        if (!h || h.n === 0) return undefined;
        let app = built.get(h);
        if (!app) {
          const w = collectors.get(h);
          const services: AppServices = {
            shards,
            shardLogs: () => shards.listed(),
            shardPrefix: h.prefix,
            ...(w ? { collector: w.c } : {}),
          };
          app = createApp({ ...root, log: h.gate.log, services }, routes);
          built.set(h, app);
        }
        const a = app;
        return async (req) => await a.fetch(req, { clientAddr });
      };
    },
  };
}
