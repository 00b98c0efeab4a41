// Agents' chain heads (docs/METER-READING.md, JCP §5): the store keeps each agent's last accepted
// chained entry, written in the commit of the entry, so that the next one is checked in O(1) at
// any log size. A store written before chain heads were kept is folded once, on the first read,
// in chunks that yield to the event loop. Pure: storage is injected.
import { LogStorageError } from "./errors.ts";
import type { AgentHead, AgentHeads, AgentLink, LogStorage } from "./storage.ts";

/** Reads an entry's agent link (undefined: not a chained entry). */
export type LinkOf = (entry: Uint8Array) => AgentLink | undefined;

/** An agent's chain head from a store, folding an older store's log into them once. */
export class AgentHeadReader {
  readonly #s: LogStorage;
  /** The store's chain heads (its `AgentHeads` extension), undefined when it keeps none. */
  readonly #a: AgentHeads | undefined;
  /** The log's durable size now (later appends store their own heads). */
  readonly #size: () => number;
  #ready: Promise<void> | undefined;

  constructor(s: LogStorage, a: AgentHeads | undefined, size: () => number) {
    this.#s = s;
    this.#a = a;
    this.#size = size;
  }

  /**
   * An agent's chain head, one store read. On a store written before chain heads were kept, the
   * first call folds the log once with `linkOf` and stores the result.
   */
  head(did: string, linkOf?: LinkOf): Promise<AgentHead | undefined> {
    const a = this.#a;
    if (!a) {
      return Promise.reject(
        new LogStorageError("storage-no-agent-heads", "Cannot read chain heads: store keeps none"),
      );
    }
    if (!this.#ready) {
      const p = this.#ready = this.#backfill(a, linkOf);
      p.catch(() => {
        if (this.#ready === p) this.#ready = undefined; // try again next time
      });
    }
    return this.#ready.then(() => a.agentHead(did));
  }

  /** Once per store written before chain heads were kept: folds the log into them. */
  async #backfill(a: AgentHeads, linkOf?: LinkOf): Promise<void> {
    const s = this.#s;
    if (await a.agentHeadsComplete()) return;
    if (!linkOf) {
      throw new LogStorageError(
        "storage-agent-heads-incomplete",
        "Cannot read chain heads: the store predates them and no backfill was given",
      );
    }
    const upto = this.#size(); // later appends store their own heads
    const heads = new Map<string, AgentHead>();
    const CHUNK = 512; // one short synchronous read each (node:sqlite reads on this thread)
    let slice = performance.now();
    for (let i = 0; i < upto; i += CHUNK) {
      const es = await s.entries(i, Math.min(CHUNK, upto - i));
      for (let k = 0; k < es.length; k++) {
        const l = linkOf(es[k]);
        if (!l) continue;
        // calibrations are carried from head to head: an entry names only its own
        const cal = { ...heads.get(l.did)?.calibrations, ...l.calibrations };
        const h: AgentHead = { ...l, index: i + k };
        if (Object.keys(cal).length) h.calibrations = cal;
        heads.set(l.did, h);
      }
      if (performance.now() - slice > 10) {
        await new Promise((r) => setTimeout(r, 0)); // let other requests run: 10 ms slices
        slice = performance.now();
      }
    }
    await a.putAgentHeads([...heads.values()], true);
  }
}
