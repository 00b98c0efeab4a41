// The log's sequencer as a Cloudflare Durable Object (docs/EDGE.md; ARCHITECTURE "Storage and
// sequencing"). One object (named "log") per log holds the whole log in its SQLite storage through
// the log core's storage contract (log/durable/) and runs the log core's sequencer over it, so the
// Worker and the embedded default share one sequencer, one tree and one head format. Durable
// Objects are single-threaded per object and the runtime's output gate releases an answer only
// after the storage writes before it are durable: an append is acknowledged only once stored and
// covered by a signed head (Decision 7). Loaded only inside workerd (imports cloudflare:workers).
import { DurableObject } from "cloudflare:workers";
import type { AppendResult, TreeHead, TreeView } from "../../log/mod.ts";
import { openDurableStorage } from "../../log/durable/mod.ts";
import type { DurableSqlStorage } from "../../log/durable/mod.ts";
import { openEdgeLog, SequencerCore } from "./sequencer.ts";
import type { Outcome } from "./wire.ts";

/** Name of the one Durable Object instance that holds the log. */
export const LOG_OBJECT_NAME = "log";

/** The Durable Object class bound as LOG_SEQUENCER in wrangler.toml (SQLite storage). */
export class LogSequencer extends DurableObject {
  readonly #core: SequencerCore;

  constructor(ctx: { storage: DurableSqlStorage }, env: Record<string, unknown>) {
    super(ctx, env);
    this.#core = new SequencerCore(() => openEdgeLog(openDurableStorage(ctx.storage), env));
  }

  append(entry: Uint8Array): Promise<Outcome<AppendResult>> {
    return this.#core.append(entry);
  }
  entry(index: number): Promise<Outcome<Uint8Array | undefined>> {
    return this.#core.entry(index);
  }
  indexOfLeaf(leafHash: Uint8Array): Promise<Outcome<number | undefined>> {
    return this.#core.indexOfLeaf(leafHash);
  }
  latestHead(): Promise<Outcome<TreeHead>> {
    return this.#core.latestHead();
  }
  headAt(size: number): Promise<Outcome<TreeHead | undefined>> {
    return this.#core.headAt(size);
  }
  inclusionProof(index: number, size: number): Promise<Outcome<Uint8Array[]>> {
    return this.#core.inclusionProof(index, size);
  }
  consistencyProof(first: number, second: number): Promise<Outcome<Uint8Array[]>> {
    return this.#core.consistencyProof(first, second);
  }
  checkpoint(view: TreeView): Promise<Outcome<string>> {
    return this.#core.checkpoint(view);
  }
  tile(
    view: TreeView,
    level: number,
    index: number,
    width: number,
  ): Promise<Outcome<Uint8Array | undefined>> {
    return this.#core.tile(view, level, index, width);
  }
  bundle(index: number, width: number): Promise<Outcome<Uint8Array | undefined>> {
    return this.#core.bundle(index, width);
  }
  check(): Promise<Outcome<void>> {
    return this.#core.check();
  }
}
