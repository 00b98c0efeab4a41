// Witnessing on Deno (docs/WITNESS.md), for api/main.ts: the witness role from `config.witness`
// (its own key, refused if it is the log key, checked with its state `<data_dir>/witness.sqlite`
// against the pin beside the key before it may cosign: api/witness_start.ts; memory with
// JC_STORE=memory), and the collector of cosignatures for our own SHA-256 checkpoints from
// `config.witnesses`.
import { createWitness } from "../log/c2sp/witness_role.ts";
import { memoryWitnessState, type WitnessStateStore } from "../log/c2sp/witness_state.ts";
import type { Log } from "../log/mod.ts";
import { sha256Source } from "./witness_source.ts";
import { defaultWitnessName } from "./witness_name.ts";
import { bytesEqual, ed25519PublicKey } from "../verify/mod.ts";
import { ConfigError, type ServiceConfig } from "./config.ts";
import { WitnessStartError } from "../log/c2sp/witness_pin.ts";
import { openWitnessIdentity, stateFilePresent } from "./witness_start.ts";
import type { Metrics } from "./metrics.ts";
import { WitnessCollector } from "./witness_collector.ts";

export { sha256Source };

/** What api/main.ts runs for witnessing. */
export interface Witnessing {
  /** For `AppDeps.extra`: `witness` (the role) and `collector`, when configured. */
  extra: Record<string, unknown>;
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
  let state: WitnessStateStore;
  let stateFile = "";
  let statePresent = false;
  let mark: { pinned(): boolean; markPinned(): void } | undefined;
  if (config.store === "memory") state = memoryWitnessState();
  else {
    const { openSqliteWitnessState, WITNESS_DB_FILE } = await import(
      "../log/sqlite/witness_state.ts"
    );
    stateFile = `${config.dataDir.replace(/\/+$/, "")}/${WITNESS_DB_FILE}`;
    statePresent = stateFilePresent(stateFile); // before the open creates it
    const sqlite = openSqliteWitnessState(stateFile);
    state = mark = sqlite;
  }
  const extra: Record<string, unknown> = {};
  let collector: WitnessCollector | undefined;
  let closeIdentity: (() => Promise<void>) | undefined;
  const close = async () => {
    await collector?.stop();
    await closeIdentity?.();
    await state.close();
  };
  try {
    const role = config.witness;
    if (role) {
      const id = await openWitnessIdentity({
        memory: config.store === "memory",
        keyFile: role.keyFile,
        stateFile,
        statePresent,
        state,
        mark,
        checkKey: (secret) => {
          if (bytesEqual(ed25519PublicKey(secret), log.publicKey())) {
            throw new ConfigError(
              `Cannot load config: witness.key_file ${role.keyFile} holds the log key; a ` +
                "witness needs a key of its own",
            );
          }
        },
      });
      closeIdentity = id.close;
      const secret = id.secret;
      extra.witness = createWitness({
        name: role.name || defaultWitnessName(log.logName()),
        secret,
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
      extra.collector = collector;
    }
    return { extra, close };
  } catch (e) {
    await close();
    if (e instanceof ConfigError || e instanceof WitnessStartError) throw e;
    throw new ConfigError(`Cannot load config: witness: ${(e as Error).message}`);
  }
}
