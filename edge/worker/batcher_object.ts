// The batcher Durable Object (docs/EDGE.md; issue 12), bound as LOG_BATCHER in wrangler.toml
// (nothing durable): B of them collect appends from the front Worker and forward them to the
// shard's sequencer in batches (batcher.ts), each shard's apart. Loaded only inside workerd
// (imports cloudflare:workers).
import { DurableObject } from "cloudflare:workers";
import type { AgentLink, AppendResult } from "../../log/mod.ts";
import { Batcher } from "./batcher.ts";
import { edgeSettings } from "./settings.ts";
import type { Outcome } from "./wire.ts";
import { type ObjectState, sequencerOf, type SequencerStub } from "./object_state.ts";

/**
 * A batcher. It batches for each shard apart (`shard`: its number; s0 when absent), forwarding
 * to that shard's sequencer.
 */
export class LogBatcher extends DurableObject {
  readonly #batchers = new Map<number, Batcher>();
  readonly #env: Record<string, unknown>;

  constructor(ctx: ObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.#env = env;
  }

  #batcher(n: number): Batcher {
    let b = this.#batchers.get(n);
    if (b) return b;
    const s = edgeSettings(this.#env);
    b = new Batcher((entries, links) => this.forward(n, entries, links), s.batchMax, s.batchAgeMs);
    this.#batchers.set(n, b);
    return b;
  }

  /** Forwards one batch to shard `n`'s sequencer (links only when one entry has one). */
  protected forward(
    n: number,
    entries: Uint8Array[],
    links: (AgentLink | undefined)[],
  ): Promise<Outcome<AppendResult>[]> {
    return sequencerOf<SequencerStub>(this.#env, n).appendMany(
      entries,
      links.some((l) => l !== undefined) ? links : undefined,
    );
  }

  /** This object's batchers, one per shard it has batched for. */
  protected batchers(): Iterable<Batcher> {
    return this.#batchers.values();
  }

  append(entry: Uint8Array, link?: AgentLink, shard = 0): Promise<Outcome<AppendResult>> {
    return this.#batcher(shard).append(entry, link);
  }
}
