// The log the service-level routes that append (`/v1/readings`, `GET /v1/agents/{did}`) use on a
// sharded deployment (docs/SHARDS.md: they append to the active shard; agents' chain heads carry
// across rotations), shared by the embedded shard set and the Worker: every call goes to the
// active shard's log, an agent's chain head is the newest shard's that has one, and an append
// that meets a rotation (409 `shard-frozen`) is made once more on the new active shard.
// Platform-neutral.
import {
  type AgentHead,
  type AgentLink,
  answerStreamQuery,
  type AppendResult,
  type EntryFacts,
  type Log,
  queriedStreamReads,
  type StreamReads,
  type TreeHead,
  type TreeView,
} from "../../log/mod.ts";
import { ApiError } from "../http/errors.ts";
import { ForwardingLog } from "./log_forward.ts";

/** Where the active shard's log and every shard's log (oldest first, the active last) come from. */
export interface ShardLogs {
  /** The active shard's log (`fresh`: after a 409, re-read whatever says which one is active). */
  active(fresh?: boolean): Log | Promise<Log>;
  /** Every shard's log, oldest first. */
  all(): Log[] | Promise<Log[]>;
}

/** An agent's chain head: the newest shard's that has one (one indexed read per older shard). */
export async function agentHeadAcross(
  logs: Log[],
  did: string,
  linkOf?: (e: Uint8Array) => AgentLink | undefined,
): Promise<AgentHead | undefined> {
  for (let i = logs.length - 1; i >= 0; i--) {
    const h = await logs[i].agentHead?.(did, linkOf);
    if (h) return h;
  }
  return undefined;
}

/** Appends on the active shard; a rotation that froze it meanwhile: once more, on the new one. */
export async function appendToActive(
  s: ShardLogs,
  entry: Uint8Array,
  link?: AgentLink,
  facts?: EntryFacts,
): Promise<AppendResult> {
  try {
    return await (await s.active()).append(entry, link, facts);
  } catch (e) {
    if (e instanceof ApiError && e.code === "shard-frozen") {
      return await (await s.active(true)).append(entry, link, facts);
    }
    throw e;
  }
}

/** Shard logs whose active one is known synchronously (the embedded shard set). */
export interface CurrentShardLogs extends ShardLogs {
  active(fresh?: boolean): Log;
  all(): Log[];
}

/**
 * The active shard's log as the service-level routes use it (the embedded shard set): `append` and
 * `agentHead` follow the shards as above, every other call is the active shard's, synchronous
 * ones staying so.
 */
export class ActiveShardLog extends ForwardingLog {
  readonly #s: CurrentShardLogs;

  constructor(s: CurrentShardLogs) {
    super(() => s.active());
    this.#s = s;
  }

  override append(
    entry: Uint8Array,
    link?: AgentLink,
    facts?: EntryFacts,
  ): Promise<AppendResult> {
    return appendToActive(this.#s, entry, link, facts);
  }
  override get agentHead(): Log["agentHead"] {
    return (did: string, linkOf?: (e: Uint8Array) => AgentLink | undefined) =>
      agentHeadAcross(this.#s.all(), did, linkOf);
  }
}

/** What only the shard's own log can answer synchronously. */
function notHere(what: string): never {
  throw new Error(
    `Cannot read ${what} of the active shard synchronously: ask the shard's log`,
  );
}

/**
 * The active shard's log on the Worker, where which shard is active is read from R2: `append`
 * and `agentHead` follow the shards as above, every read is the awaited active shard's.
 */
export class AsyncActiveShardLog implements Log {
  readonly #s: ShardLogs;

  /**
   * The active shard's stream reads, each read asked of the shard active then (the routes that
   * resolve identities read the active shard: it holds every chain, docs/SHARDS.md).
   */
  readonly streamReads: StreamReads;

  constructor(s: ShardLogs) {
    this.#s = s;
    this.streamReads = queriedStreamReads(async (q) => {
      const r = (await this.#log()).streamReads;
      if (!r) {
        throw new Error(
          "Cannot read streams: the active shard's log keeps none",
        );
      }
      return await answerStreamQuery(r, q);
    });
  }

  async #log(): Promise<Log> {
    return await this.#s.active();
  }

  append(
    entry: Uint8Array,
    link?: AgentLink,
    facts?: EntryFacts,
  ): Promise<AppendResult> {
    return appendToActive(this.#s, entry, link, facts);
  }
  async agentHead(
    did: string,
    linkOf?: (e: Uint8Array) => AgentLink | undefined,
  ): Promise<AgentHead | undefined> {
    return agentHeadAcross(await this.#s.all(), did, linkOf);
  }
  async close(): Promise<void> {
    return (await this.#log()).close();
  }
  async latestHead(): Promise<TreeHead> {
    return (await this.#log()).latestHead();
  }
  async headAt(size: number): Promise<TreeHead | undefined> {
    return (await this.#log()).headAt(size);
  }
  async firstHead(): Promise<TreeHead | undefined> {
    return (await this.#log()).firstHead();
  }
  async entry(index: number): Promise<Uint8Array | undefined> {
    return (await this.#log()).entry(index);
  }
  async indexOfLeaf(leafHash: Uint8Array): Promise<number | undefined> {
    return (await this.#log()).indexOfLeaf(leafHash);
  }
  async leafHashAt(index: number): Promise<Uint8Array | undefined> {
    return (await this.#log()).leafHashAt(index);
  }
  async inclusionProof(index: number, size: number): Promise<Uint8Array[]> {
    return (await this.#log()).inclusionProof(index, size);
  }
  async consistencyProof(first: number, second: number): Promise<Uint8Array[]> {
    return (await this.#log()).consistencyProof(first, second);
  }
  async checkpoint(view: TreeView): Promise<string> {
    return (await this.#log()).checkpoint(view);
  }
  async tile(view: TreeView, level: number, index: number, width: number) {
    return (await this.#log()).tile(view, level, index, width);
  }
  async bundle(index: number, width: number): Promise<Uint8Array | undefined> {
    return (await this.#log()).bundle(index, width);
  }
  async check(): Promise<void> {
    return (await this.#log()).check();
  }
  publicKey(): Uint8Array {
    return notHere("the public key");
  }
  signer(): string {
    return notHere("the signer");
  }
  logName(): string {
    return notHere("the log name");
  }
  vkeys(): Record<TreeView, string> {
    return notHere("the vkeys");
  }
  /** None here: the active shard's read faults are counted by its own log. */
  readFaults(): number {
    return 0;
  }
}
