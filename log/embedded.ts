// The embedded log (docs/CONTRACTS.md `Log`): the one reader (log/reader.ts) over the store and
// the sequencer's durable head (log/store_source.ts), with appends through the sequencer
// (log/sequencer.ts) and agents' chain heads from the store (log/agent_heads.ts). Pure.
import type { AgentHead, AgentLink, LogStorage, StorageCapabilities } from "./storage.ts";
import type { AppendResult, Log } from "./log.ts";
import { LogReader } from "./reader.ts";
import type { Sequencer } from "./sequencer.ts";
import { type StoreNodes, StoreSource } from "./store_source.ts";
import { AgentHeadReader, type LinkOf } from "./agent_heads.ts";
import { type EntryFacts, LogStreams } from "./streams/mod.ts";
import type { StreamBackfill } from "./streams_backfill.ts";

/** A log over a store, sequenced in this process. */
export class EmbeddedLog extends LogReader implements Log {
  readonly #s: LogStorage;
  readonly #seq: Sequencer;
  readonly #agents: AgentHeadReader;
  readonly #release: (() => void) | undefined;
  /** Streams, findings and lookups (issue 24), with a store that keeps them. */
  readonly streamReads: LogStreams | undefined;
  /** The stream backfill under way or done (log/streams_backfill.ts), when the log runs one. */
  streamBackfill: StreamBackfill | undefined;
  #closed = false;

  constructor(
    s: LogStorage,
    caps: StorageCapabilities,
    seq: Sequencer,
    nodes: StoreNodes,
    id: { publicKey: Uint8Array; logName: string },
    release?: () => void,
  ) {
    super(new StoreSource(s, caps.tileGroups, seq, nodes), id);
    this.#s = s;
    this.#seq = seq;
    this.#agents = new AgentHeadReader(s, caps.agentHeads, () => seq.served.head.size);
    this.#release = release;
    const x = caps.streamIndex;
    this.streamReads = x && new LogStreams(
      s,
      x,
      caps.contentIndex,
      () => seq.served.head.size,
      caps.keyIndex,
    );
  }

  append(entry: Uint8Array, link?: AgentLink, facts?: EntryFacts): Promise<AppendResult> {
    return this.#seq.append(entry, link, facts);
  }

  agentHead(did: string, linkOf?: LinkOf): Promise<AgentHead | undefined> {
    return this.#agents.head(did, linkOf);
  }

  phaseCpuMs(): { sequence: number; commit: number; answer: number } {
    return this.#seq.phaseCpuMs();
  }

  /** Drains the sequencer, then closes the store, then releases the pin (once). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.streamBackfill?.stop(); // its progress is the store's
      await this.#seq.drain();
      await this.#s.close();
    } finally {
      this.#release?.();
    }
  }
}
