// The stream backfill's runner (docs/STREAMS.md "Backfill"; issue 24): a store whose entries were
// logged before the stream checks existed (or while they were off) has them recomputed once, in
// log order, by the store (`StreamIndex.backfillStreams`, log/sql/streams_backfill.ts), in steps
// of a bounded number of entries, each its own short transaction, off the request path: the log
// serves and appends meanwhile, and the runner waits at least as long as a step took before the
// next (at most half the time the backfill's). Progress is the store's: an interrupted backfill
// continues at the next open. Pure: storage is injected.
import { type LogStorage, StorageConflictError, type StreamIndex } from "./storage.ts";
import type { EntryFacts } from "./streams/mod.ts";

/** Entries per step (each a few indexed reads and writes: a step is milliseconds). */
export const STREAM_BACKFILL_CHUNK = 256;

/** The stream backfill of one log. */
export class StreamBackfill {
  readonly #s: LogStorage;
  readonly #x: StreamIndex;
  readonly #facts: (entry: Uint8Array) => EntryFacts | undefined;
  readonly #skewMs: number;
  readonly #chunk: number;
  #stop = false;
  #wake: (() => void) | undefined;
  /** The failure that stopped it (it runs again at the next open), if one did. */
  error: unknown;
  /** Settles when the backfill is done, stopped or failed (never rejects). */
  readonly done: Promise<void>;

  constructor(
    s: LogStorage,
    x: StreamIndex,
    facts: (entry: Uint8Array) => EntryFacts | undefined,
    skewMs: number,
    chunk = STREAM_BACKFILL_CHUNK,
  ) {
    this.#s = s;
    this.#x = x;
    this.#facts = facts;
    this.#skewMs = skewMs;
    this.#chunk = chunk;
    this.done = this.#run().catch((err) => {
      this.error = err;
    });
  }

  async #run(): Promise<void> {
    let next = await this.#x.streamsBackfillNext();
    while (next !== undefined && !this.#stop) {
      const t0 = performance.now();
      const es = await this.#s.entries(next, this.#chunk);
      if (this.#stop) return;
      const r = await this.#x.backfillStreams({
        from: next,
        facts: es.map((e) => this.#facts(e)),
        read: this.#facts,
        skewMs: this.#skewMs,
        catchUp: this.#chunk,
      });
      if (r !== "all" && r <= next) {
        throw new StorageConflictError(`Cannot backfill streams: no entries at ${next}`);
      }
      next = r === "all" ? undefined : r;
      // the log's own work first: wait at least as long as the step took
      const wait = Math.max(1, performance.now() - t0);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, wait);
        this.#wake = () => (clearTimeout(t), resolve());
      });
      this.#wake = undefined;
    }
  }

  /** Stops after the step under way (the store keeps the progress). */
  stop(): Promise<void> {
    this.#stop = true;
    this.#wake?.();
    return this.done;
  }
}
