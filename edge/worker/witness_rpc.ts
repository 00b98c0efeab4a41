// The witness role on the Worker (docs/WITNESS.md, docs/EDGE.md): its state lives in the log's
// Durable Object (log/durable/witness_state.ts), reached over RPC; each call is one atomic step
// there, so the compare-and-swap keeps its meaning across isolates; the object refuses them when
// its storage was lost or rolled back (witness_guard.ts). The witness key is the JC_WITNESS_KEY
// Worker secret (never the log key).
import type {
  CollectorRecord,
  CosignedRecord,
  OriginHead,
  WitnessStateStore,
} from "../../log/c2sp/mod.ts";
import { fromHex } from "../../verify/mod.ts";
import type { CosignedCheckpoints, WitnessStatus } from "../../api/mod.ts";
import { ApiError } from "../../api/mod.ts";
import { EdgeConfigError } from "./errors.ts";
import { WITNESS_STATE_BEHIND } from "../../log/r2/mod.ts";
import { type Outcome, unwrap } from "./wire.ts";

/** The Durable Object's witness-state methods (edge/worker/durable_object.ts). */
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

/** The collector in the Durable Object, as the routes see it (api/services/witness_collector.ts). */
export function rpcCollector(rpc: () => WitnessRpc): CosignedCheckpoints {
  return {
    served: async (latest) => unwrap(await rpc().servedCheckpoint(latest)),
    status: async () => unwrap(await rpc().collectorStatus()),
  };
}

/**
 * Unwraps a witness-state call. The object's refusal of a state lost or rolled back with its log
 * (witness_guard.ts) is answered as 503 `witness-state-behind`, without Retry-After: it waits for
 * an operator, like the embedded witness that refuses to start with that code (issue 27).
 */
async function witnessCall<T>(call: Promise<Outcome<T>>): Promise<T> {
  const o = await call;
  if (!o.ok && o.error.code === WITNESS_STATE_BEHIND) {
    throw new ApiError(WITNESS_STATE_BEHIND, o.error.message);
  }
  return unwrap(o);
}

/** The witness state behind the Durable Object (`rpc` gives the stub, per call). */
export function rpcWitnessState(rpc: () => WitnessRpc): WitnessStateStore {
  return {
    get: (origin) => witnessCall(rpc().witnessGet(origin)),
    heads: () => witnessCall(rpc().witnessHeads()),
    compareAndSwap: (origin, expected, next) =>
      witnessCall(rpc().witnessCas(origin, expected, next)),
    getCollector: (w) => witnessCall(rpc().collectorGet(w)),
    putCollector: (w, rec) => witnessCall(rpc().collectorPut(w, rec)),
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
