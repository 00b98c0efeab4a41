// A shard's log behind a gate (docs/SHARDS.md "Lifecycle"): appends pass while the shard is
// active; a rotation holds new appends, drains the ones in flight (each accepted append is
// committed and answered), and once the directory names the next shard the gate is frozen: every
// later append answers 409 `shard-frozen` naming the active shard, reads pass forever.
// Platform-neutral: the Deno entry uses it; the log itself (log/) knows nothing of shards.
import type { AgentLink, AppendResult, Log } from "../../log/mod.ts";
import { ApiError } from "../http/errors.ts";
import { ForwardingLog } from "./log_forward.ts";

/** Where appends go instead: the active shard's id and prefix. */
export interface ActiveRef {
  id: string;
  prefix: string;
}

/** The 409 a frozen shard answers appends with. */
export function shardFrozen(id: string, active: ActiveRef): ApiError {
  return new ApiError(
    "shard-frozen",
    `Cannot append to shard ${id}: it is frozen; append to the active shard ${active.id} at ` +
      `${active.prefix === "/" ? "/" : `${active.prefix}/`}v1/log/entries`,
    { extra: { active: { id: active.id, prefix: active.prefix } } },
  );
}

/** A shard's log whose appends go through its gate; every other call is the log's own. */
class GatedLog extends ForwardingLog {
  readonly #append: Log["append"];

  constructor(inner: Log, append: Log["append"]) {
    super(() => inner);
    this.#append = append;
  }

  override append(entry: Uint8Array, link?: AgentLink): Promise<AppendResult> {
    return this.#append(entry, link);
  }
}

/** One shard's gate and its gated log. */
export class ShardGate {
  readonly id: string;
  readonly inner: Log;
  /** The log handlers use: `inner` with appends through the gate. */
  readonly log: Log;
  /** Set once frozen: the shard that is active now (asked at each refusal, issue 27). */
  #active: (() => ActiveRef) | undefined;
  #held: Promise<void> | undefined;
  #inflight = 0;
  #drained: (() => void) | undefined;

  /** `onAppended`: called after every append that succeeded (the size-based rotation check). */
  constructor(id: string, inner: Log, onAppended?: (r: AppendResult) => void) {
    this.id = id;
    this.inner = inner;
    this.log = new GatedLog(inner, async (entry, link) => {
      while (this.#held) await this.#held;
      if (this.#active) throw shardFrozen(this.id, this.#active());
      this.#inflight++;
      try {
        const r = await inner.append(entry, link);
        onAppended?.(r);
        return r;
      } finally {
        if (--this.#inflight === 0) this.#drained?.();
      }
    });
  }

  /** Whether the shard is frozen, and where appends go instead. */
  get frozenFor(): ActiveRef | undefined {
    return this.#active?.();
  }

  /** Holds new appends (they wait) until the returned release is called. */
  hold(): () => void {
    let release!: () => void;
    const p = new Promise<void>((r) => release = r);
    this.#held = p;
    return () => {
      if (this.#held === p) this.#held = undefined;
      release();
    };
  }

  /** Resolves once no append is in flight (call while held: then none can start). */
  drain(): Promise<void> {
    if (this.#inflight === 0) return Promise.resolve();
    return new Promise((r) => this.#drained = () => (this.#drained = undefined, r()));
  }

  /**
   * Freezes the shard for good: appends answer 409 naming the shard `active()` says is active
   * when they are refused — after later rotations that is no longer this shard's successor, so it
   * is asked each time, never remembered (issue 27: "409 `active` always names the active shard").
   */
  freeze(active: () => ActiveRef): void {
    this.#active = active;
  }
}
