// The log's sequencer as the Durable Object runs it (docs/EDGE.md; ARCHITECTURE "Storage and
// sequencing": one sequencer per log decides order). Platform-neutral: the Durable Object class
// (durable_object.ts) hands it a storage backend, the log key and the sequencer settings; every
// method answers an `Outcome` so errors cross Workers RPC intact (wire.ts). Kept apart from the
// class so Deno tests drive it over the memory backend.
import {
  type AgentHead,
  type AgentLink,
  answerStreamQuery,
  type AppendResult,
  type Log,
  LogInputError,
  type LogStorage,
  openLog,
  type StreamQuery,
  type TreeHead,
  type TreeView,
} from "../../log/mod.ts";
import { fromHex } from "../../verify/mod.ts";
import { EdgeConfigError } from "./errors.ts";
import { entryLink } from "../../api/mod.ts";
import { edgeConfig } from "./settings.ts";
import { capture, type Outcome } from "./wire.ts";

/** Name of the Worker secret holding the log key: 32-byte Ed25519 secret, 64 hex digits. */
export const LOG_KEY_SECRET = "JC_LOG_KEY";

/** Reads the log key from the Worker's bindings; throws EdgeConfigError naming what is wrong. */
export function logKeyFromEnv(env: Record<string, unknown>): Uint8Array {
  const v = env[LOG_KEY_SECRET];
  if (typeof v !== "string" || v.length === 0) {
    throw new EdgeConfigError(
      `Cannot open the log: the ${LOG_KEY_SECRET} secret is not set (wrangler secret put ${LOG_KEY_SECRET})`,
    );
  }
  if (!/^[0-9a-f]{64}$/.test(v.trim())) {
    throw new EdgeConfigError(
      `Cannot open the log: ${LOG_KEY_SECRET} must be 64 lowercase hex digits (a 32-byte Ed25519 secret)`,
    );
  }
  return fromHex(v.trim());
}

/**
 * Opens the log over `storage` with the key and sequencer settings of the Worker's bindings; a
 * shard after the first (docs/SHARDS.md) brings its own key and log name in `shard`.
 */
export async function openEdgeLog(
  storage: LogStorage,
  env: Record<string, unknown>,
  shard?: { secretKey: Uint8Array; logName: string },
): Promise<Log> {
  const secretKey = shard?.secretKey ?? logKeyFromEnv(env);
  const config = edgeConfig(env);
  if (shard) config.logName = shard.logName;
  try {
    return await openEdgeLogWith(storage, secretKey, config);
  } catch (e) {
    // A JC_LOG_NAME other than the one bound to the object's storage is the deployment's
    // configuration at fault (a 500, logged with this message), not the caller's request.
    if (
      e instanceof LogInputError && (e.code === "log-name-changed" || e.code === "bad-log-name")
    ) {
      throw new EdgeConfigError(e.message);
    }
    throw e;
  }
}

function openEdgeLogWith(
  storage: LogStorage,
  secretKey: Uint8Array,
  config: ReturnType<typeof edgeConfig>,
): Promise<Log> {
  return openLog(storage, {
    secretKey,
    batchMax: config.batchMax,
    batchAgeMs: config.batchAgeMs,
    pendingMax: config.pendingMax,
    logName: config.logName,
  });
}

/**
 * One log behind RPC: opens it on first use (again after a failed open, so a fixed secret or
 * store recovers without a redeploy) and answers each call as an Outcome.
 */
export class SequencerCore {
  readonly #open: () => Promise<Log>;
  #log: Promise<Log> | undefined;

  constructor(open: () => Promise<Log>) {
    this.#open = open;
  }

  /** The open log (opening it when needed). */
  log(): Promise<Log> {
    if (!this.#log) {
      const p = this.#open();
      this.#log = p;
      p.catch(() => {
        if (this.#log === p) this.#log = undefined;
      });
    }
    return this.#log;
  }

  append(entry: Uint8Array, link?: AgentLink): Promise<Outcome<AppendResult>> {
    return capture(async () => (await this.log()).append(entry, link));
  }
  agentHead(did: string): Promise<Outcome<AgentHead | undefined>> {
    return capture(async () => {
      const log = await this.log();
      if (!log.agentHead) throw new Error("Cannot read chain heads: the log keeps none");
      // the fold of a store older than chain heads: meter readings' and configurations' links
      return await log.agentHead(did, entryLink);
    });
  }
  /** A stream read (issue 24): the stream state is this object's SQLite's. */
  streamQuery(q: StreamQuery): Promise<Outcome<unknown>> {
    return capture(async () => {
      const r = (await this.log()).streamReads;
      if (!r) throw new Error("Cannot read streams: the log keeps none");
      return await answerStreamQuery(r, q);
    });
  }
  latestHead(): Promise<Outcome<TreeHead>> {
    return capture(async () => (await this.log()).latestHead());
  }
  checkpoint(view: TreeView): Promise<Outcome<string>> {
    return capture(async () => (await this.log()).checkpoint(view));
  }
  check(): Promise<Outcome<void>> {
    return capture(async () => (await this.log()).check());
  }
  /** Drains the sequencer and closes the store; the next call reopens. */
  close(): Promise<Outcome<void>> {
    return capture(async () => {
      const p = this.#log;
      this.#log = undefined;
      if (p) await (await p).close();
    });
  }
}
