// The batcher Durable Object of the edge deployment (docs/EDGE.md; issue 12): B of them collect
// appends from the front Worker and forward them to each shard's sequencer in batches
// (batcher.ts). Loaded only inside workerd (imports cloudflare:workers).
import { DurableObject } from "cloudflare:workers";
import type { AgentLink, AppendResult } from "../../log/mod.ts";
import { capture, type Outcome } from "./wire.ts";
import { edgeSettings } from "./settings.ts";
import { Batcher } from "./batcher.ts";
import { EdgeConfigError } from "./errors.ts";
import {
  type EdgeFaults,
  type ObjectState,
  sequencerOf,
  type SequencerStub,
} from "./object_types.ts";

/**
 * A batcher, bound as LOG_BATCHER in wrangler.toml (nothing durable). It batches for each shard
 * apart (`shard`: its number; s0 when absent), forwarding to that shard's sequencer.
 */
export class LogBatcher extends DurableObject {
  readonly #batchers = new Map<number, Batcher>();
  readonly #state: ObjectState;
  readonly #env: Record<string, unknown>;
  #crash = false;
  readonly #hooks: boolean;

  constructor(ctx: ObjectState, env: Record<string, unknown>) {
    super(ctx, env);
    this.#state = ctx;
    this.#env = env;
    this.#hooks = edgeSettings(env).testHooks;
  }

  #batcher(n: number): Batcher {
    let b = this.#batchers.get(n);
    if (b) return b;
    const s = edgeSettings(this.#env);
    b = new Batcher(
      (entries, links) =>
        sequencerOf<SequencerStub>(this.#env, n).appendMany(
          entries,
          links.some((l) => l !== undefined) ? links : undefined,
        ),
      s.batchMax,
      s.batchAgeMs,
    );
    b.beforeForward = () => {
      if (this.#crash) {
        this.#crash = false;
        this.#state.abort("injected batcher restart");
      }
    };
    this.#batchers.set(n, b);
    return b;
  }

  append(
    entry: Uint8Array,
    link?: AgentLink,
    shard = 0,
  ): Promise<Outcome<AppendResult>> {
    return this.#batcher(shard).append(entry, link);
  }
  /** Test hooks only: restart this batcher when it next forwards (its appends pending). */
  injectFaults(f: EdgeFaults): Promise<Outcome<void>> {
    return capture(() => {
      if (!this.#hooks) {
        throw new EdgeConfigError("Cannot inject: JC_EDGE_TEST_HOOKS is off");
      }
      this.#crash = f.batcherCrash === true;
    });
  }
  /** Calls this batcher made to the sequencers and appends it forwarded (all shards). */
  stats(): Promise<Outcome<{ forwards: number; forwarded: number }>> {
    return capture(() => {
      let forwards = 0, forwarded = 0;
      for (const b of this.#batchers.values()) {
        forwards += b.forwards;
        forwarded += b.forwarded;
      }
      return { forwards, forwarded };
    });
  }
}
