// The witness state (log/c2sp/witness_state.ts) in a SQLite-backed Durable Object's storage, beside
// the log's tables (docs/WITNESS.md, docs/EDGE.md): the one SQL witness state
// (log/sql/witness_state.ts) over the Durable Object executor. A Durable Object runs one call at a
// time and its output gate holds every answer until the write is durable, so a cosignature leaves
// only after its (size, root) is stored and two requests for one origin never both win.
import type { WitnessStateStore } from "../c2sp/witness_state.ts";
import { sqlWitnessState } from "../sql/witness_state.ts";
import { DurableExecutor } from "./executor.ts";
import type { DurableSqlStorage } from "./sql_types.ts";

/**
 * The witness state over `storage` (tables `<prefix>witnessed`, `<prefix>collector`).
 *
 * @example
 * ```ts
 * const state = openDurableWitnessState(ctx.storage);
 * ```
 */
export function openDurableWitnessState(
  storage: DurableSqlStorage,
  prefix = "jc_",
): WitnessStateStore {
  if (!/^[a-z][a-z0-9_]*$/.test(prefix)) throw new RangeError(`Cannot use prefix ${prefix}`);
  return sqlWitnessState(new DurableExecutor(storage), prefix);
}
