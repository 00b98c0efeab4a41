// The witness role on the Worker (docs/WITNESS.md, docs/EDGE.md): its state lives in the log's
// Durable Object (log/durable/witness_state.ts), reached over RPC; each call is one atomic step
// there, so the compare-and-swap keeps its meaning across isolates. The witness key is the
// JC_WITNESS_KEY Worker secret (never the log key).
import type {
  CollectorRecord,
  CosignedRecord,
  OriginHead,
  WitnessStateStore,
} from "../../log/c2sp/witness_state.ts";
import { fromHex } from "../../verify/mod.ts";
import type { CosignedCheckpoints, WitnessStatus } from "../witness_collector.ts";
import { EdgeConfigError } from "./errors.ts";
import { type Outcome, unwrap } from "./wire.ts";

/** The Durable Object's witness-state methods (api/edge/durable_object.ts). */
export interface WitnessRpc {
  witnessGet(origin: string): Promise<Outcome<CosignedRecord | undefined>>;
  witnessHeads(): Promise<Outcome<OriginHead[]>>;
  witnessCas(
    origin: string,
    expected: { size: number; root: Uint8Array } | undefined,
    next: CosignedRecord,
  ): Promise<Outcome<boolean>>;
  collectorGet(witness: string): Promise<Outcome<CollectorRecord | undefined>>;
  collectorPut(witness: string, rec: CollectorRecord): Promise<Outcome<void>>;
  servedCheckpoint(latest: string): Promise<Outcome<string>>;
  collectorStatus(): Promise<Outcome<WitnessStatus[]>>;
}

/** The collector in the Durable Object, as the routes see it (api/witness_collector.ts). */
export function rpcCollector(rpc: () => WitnessRpc): CosignedCheckpoints {
  return {
    served: async (latest) => unwrap(await rpc().servedCheckpoint(latest)),
    status: async () => unwrap(await rpc().collectorStatus()),
  };
}

/** The witness state behind the Durable Object (`rpc` gives the stub, per call). */
export function rpcWitnessState(rpc: () => WitnessRpc): WitnessStateStore {
  return {
    get: async (origin) => unwrap(await rpc().witnessGet(origin)),
    heads: async () => unwrap(await rpc().witnessHeads()),
    compareAndSwap: async (origin, expected, next) =>
      unwrap(await rpc().witnessCas(origin, expected, next)),
    getCollector: async (w) => unwrap(await rpc().collectorGet(w)),
    putCollector: async (w, rec) => unwrap(await rpc().collectorPut(w, rec)),
    close: () => Promise.resolve(),
  };
}

/** Name of the Worker secret holding the witness key: 32-byte Ed25519 secret, 64 hex digits. */
export const WITNESS_KEY_SECRET = "JC_WITNESS_KEY";

/** Reads the witness key from the Worker's bindings; throws EdgeConfigError naming the problem. */
export function witnessKeyFromEnv(env: Record<string, unknown>): Uint8Array {
  const v = env[WITNESS_KEY_SECRET];
  if (typeof v !== "string" || !/^[0-9a-f]{64}$/.test(v.trim())) {
    throw new EdgeConfigError(
      `Cannot start the witness: the ${WITNESS_KEY_SECRET} secret must be 64 lowercase hex ` +
        `digits (wrangler secret put ${WITNESS_KEY_SECRET})`,
    );
  }
  return fromHex(v.trim());
}
