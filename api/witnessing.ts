// Witnessing on Deno (docs/WITNESS.md): builds the witness role from `config.witness` (its own key,
// generated mode 0600 on first start and refused if it is the log key; its state in
// `<data_dir>/witness.sqlite`, or memory with JC_STORE=memory) for api/main.ts.
import { type Witness } from "../log/c2sp/witness_role.ts";
import { createWitness } from "../log/c2sp/witness_role.ts";
import { memoryWitnessState, type WitnessStateStore } from "../log/c2sp/witness_state.ts";
import type { Log } from "../log/mod.ts";
import { bytesEqual, ed25519PublicKey } from "../verify/mod.ts";
import { ConfigError, type ServiceConfig } from "./config.ts";

/** What api/main.ts runs for witnessing. */
export interface Witnessing {
  witness?: Witness;
  state: WitnessStateStore;
  close(): Promise<void>;
}

/** The default cosigner name: `<log name>/witness`. */
export function defaultWitnessName(logName: string): string {
  return `${logName}/witness`;
}

/**
 * Opens the witness state and builds the witness role (when configured).
 *
 * @example
 * ```ts
 * const w = await openWitnessing(config, log, "example.org/jouleclaw");
 * ```
 */
export async function openWitnessing(
  config: ServiceConfig,
  log: Log,
  logName: string,
): Promise<Witnessing> {
  let state: WitnessStateStore;
  if (config.store === "memory") state = memoryWitnessState();
  else {
    const { openSqliteWitnessState, WITNESS_DB_FILE } = await import(
      "../log/sqlite/witness_state.ts"
    );
    state = openSqliteWitnessState(`${config.dataDir.replace(/\/+$/, "")}/${WITNESS_DB_FILE}`);
  }
  const close = () => state.close();
  const role = config.witness;
  if (!role) return { state, close };
  try {
    const { loadOrCreateLogKey } = await import("../log/sqlite/key.ts");
    const secret = loadOrCreateLogKey(role.keyFile).secret;
    if (bytesEqual(ed25519PublicKey(secret), log.publicKey())) {
      throw new ConfigError(
        `Cannot load config: witness.key_file ${role.keyFile} holds the log key; a witness ` +
          "needs a key of its own",
      );
    }
    const witness = createWitness({
      name: role.name || defaultWitnessName(logName),
      secret,
      logs: role.logs,
      state,
      onRefusal: (origin, r) => {
        if (r.status === 422) {
          // tlog-witness: "the witness MAY log the request even if the checkpoint fails one of
          // the consistency checks above ... as it might be proof of log misbehavior".
          console.error(`witness: refused ${origin} (${r.code}): ${r.message}`);
        }
      },
    });
    return { witness, state, close };
  } catch (e) {
    await state.close();
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(`Cannot load config: witness: ${(e as Error).message}`);
  }
}
