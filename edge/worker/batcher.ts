// A batcher in front of the sequencer (docs/EDGE.md "Batchers"; issue 12, Azul's order): the
// stateless front Worker spreads appends over B batcher Durable Objects, each of which forwards
// what it holds to the sequencer as one call once it holds `max` appends or its oldest waited
// `ageMs` — so the sequencer sees one call per batch, not per append (Cloudflare: about 1,000
// requests/s per object). A batcher keeps nothing durable: if it is lost, its pending callers get
// errors (never an answer the sequencer did not give), and their retries are answered exactly
// once by the sequencer's dedup. Platform-neutral (the Durable Object class wraps it).
import type { AgentLink, AppendResult } from "../../log/mod.ts";
import { LogStorageError } from "../../log/mod.ts";
import { type Outcome, toWire } from "./wire.ts";

/**
 * Forwards one batch to the sequencer: one Outcome per entry, in order; `links[k]` is entry k's
 * agent link (a meter reading's chain head, written in the same commit), undefined for others.
 */
export type ForwardBatch = (
  entries: Uint8Array[],
  links: (AgentLink | undefined)[],
) => Promise<Outcome<AppendResult>[]>;

interface Waiting {
  entry: Uint8Array;
  link: AgentLink | undefined;
  resolve(o: Outcome<AppendResult>): void;
}

/** Collects appends and forwards them in batches. */
export class Batcher {
  readonly #forward: ForwardBatch;
  readonly #max: number;
  readonly #ageMs: number;
  #pending: Waiting[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Calls made to the sequencer, and appends forwarded (stats). */
  forwards = 0;
  forwarded = 0;

  constructor(forward: ForwardBatch, max: number, ageMs: number) {
    this.#forward = forward;
    this.#max = max;
    this.#ageMs = ageMs;
  }

  append(entry: Uint8Array, link?: AgentLink): Promise<Outcome<AppendResult>> {
    const { promise, resolve } = Promise.withResolvers<Outcome<AppendResult>>();
    this.#pending.push({ entry, link, resolve });
    if (this.#pending.length >= this.#max) this.#flush();
    else this.#timer ??= setTimeout(() => this.#flush(), this.#ageMs);
    return promise;
  }

  #flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending.splice(0, this.#max);
    if (this.#pending.length) this.#timer = setTimeout(() => this.#flush(), this.#ageMs);
    if (batch.length === 0) return;
    this.forwards++;
    this.forwarded += batch.length;
    this.#forward(batch.map((w) => w.entry), batch.map((w) => w.link)).then(
      (outs) => batch.forEach((w, k) => w.resolve(outs[k])),
      (e) => {
        const err = toWire(
          new LogStorageError("sequencer-unavailable", "Cannot append: the sequencer failed", {
            cause: e,
          }),
        );
        for (const w of batch) w.resolve({ ok: false, error: err });
      },
    );
  }
}
