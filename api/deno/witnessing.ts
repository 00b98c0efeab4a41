// Witnessing on Deno (docs/WITNESS.md), for api/deno/main.ts: the witness role from `config.witness`
// (its own key, refused if it is the log key, checked with its state `<data_dir>/witness.sqlite`
// against the pin beside the key before it may cosign: api/deno/witness_start.ts; memory with
// JC_STORE=memory), and the collector of cosignatures for our own SHA-256 checkpoints from
// `config.witnesses`.
import type { AppServices } from "../services/services.ts";
import { createWitness } from "../../log/c2sp/mod.ts";
import { memoryWitnessState, type WitnessStateStore } from "../../log/c2sp/mod.ts";
import type { Log } from "../../log/mod.ts";
import { sha256Source } from "../services/witness_source.ts";
import { defaultWitnessName } from "../services/witness_name.ts";
import { bytesEqual, ed25519PublicKey } from "../../verify/mod.ts";
import { ConfigError, type ServiceConfig } from "../services/config.ts";
import { WitnessStartError } from "../../log/c2sp/mod.ts";
import { openWitnessIdentity } from "./witness_start.ts";
import type { Metrics } from "../http/metrics.ts";
import { WitnessCollector } from "../services/witness_collector.ts";

export { sha256Source };

/** What api/deno/main.ts runs for witnessing. */
export interface Witnessing {
  /** For `AppDeps.services`: `witness` (the role) and `collector`, when configured. */
  services: Pick<AppServices, "witness" | "collector">;
  close(): Promise<void>;
}

/**
 * Opens the witness state and builds the witness role and the collector (when configured).
 *
 * @example
 * ```ts
 * const w = await openWitnessing(config, log, metrics);
 * ```
 */
export async function openWitnessing(
  config: ServiceConfig,
  log: Log,
  metrics: Metrics,
): Promise<Witnessing> {
  const memory = config.store === "memory";
  const { openSqliteWitnessState, WITNESS_DB_FILE } = memory
    ? { openSqliteWitnessState: undefined, WITNESS_DB_FILE: "" }
    : await import("../../log/sqlite/witness_state.ts");
  const stateFile = `${config.dataDir.replace(/\/+$/, "")}/${WITNESS_DB_FILE}`;
  const openState = openSqliteWitnessState && (() => openSqliteWitnessState(stateFile));
  const role = config.witness;
  // The role's state is opened by its identity (key, state and pin checked together, before the
  // file is created where it is missing); the collector's alone otherwise.
  const id = role
    ? await openWitnessIdentity({
      keyFile: role.keyFile,
      stateFile,
      openState,
      checkKey: (secret) => {
        if (bytesEqual(ed25519PublicKey(secret), log.publicKey())) {
          throw new ConfigError(
            `Cannot load config: witness.key_file ${role.keyFile} holds the log key; a ` +
              "witness needs a key of its own",
          );
        }
      },
    }).catch((e) => {
      if (e instanceof ConfigError || e instanceof WitnessStartError) throw e;
      throw new ConfigError(`Cannot load config: witness: ${(e as Error).message}`);
    })
    : undefined;
  const state: WitnessStateStore = id?.raw ?? openState?.() ?? memoryWitnessState();
  const services: Pick<AppServices, "witness" | "collector"> = {};
  let collector: WitnessCollector | undefined;
  const close = async () => {
    await collector?.stop();
    await id?.close();
    await state.close();
  };
  try {
    if (role && id) {
      services.witness = createWitness({
        name: role.name || defaultWitnessName(log.logName()),
        secret: id.secret,
        logs: role.logs,
        state: id.state,
        onRefusal: (origin, r) => {
          metrics.inc("jc_witness_refusals_total", { code: r.code });
          if (r.status === 422) {
            // tlog-witness: "the witness MAY log the request even if the checkpoint fails one of
            // the consistency checks above ... as it might be proof of log misbehavior".
            console.error(`witness: refused ${origin} (${r.code}): ${r.message}`);
          }
        },
      });
    }
    if (config.witnesses.length > 0) {
      collector = new WitnessCollector({
        witnesses: config.witnesses,
        source: sha256Source(log),
        state,
        metrics,
      });
      collector.start();
      services.collector = collector;
    }
    return { services, close };
  } catch (e) {
    await close();
    if (e instanceof ConfigError || e instanceof WitnessStartError) throw e;
    throw new ConfigError(`Cannot load config: witness: ${(e as Error).message}`);
  }
}
