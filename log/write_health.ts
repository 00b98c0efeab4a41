// Health after a failed commit (docs/OPERATIONS.md "Health"): a store that refused a commit (a
// full disk) is `storage-write` until a commit succeeds or its write probe (`WriteProbe`, at most
// one a second) is accepted again; a store refusing to publish over a head the log already signed
// keeps its pinned-head code (issue 27: /healthz names the pin it failed). Pure.
import { isPinnedHeadRefusal, LogStorageError } from "./errors.ts";
import type { WriteProbe } from "./storage.ts";

/** Least time between two write probes, ms. */
const PROBE_MS = 1000;

/** The innermost message of an error chain (a storage fault wrapped by the sequencer). */
function errorText(e: Error): string {
  let x: unknown = e;
  while (x instanceof Error && x.cause instanceof Error) x = x.cause;
  return x instanceof Error ? x.message : String(x);
}

/** The last commit's failure, until a commit or a write probe succeeds. */
export class WriteHealth {
  readonly #store: WriteProbe | undefined;
  #failure: Error | undefined;
  #probe: { at: number; result: Promise<void> } | undefined;

  /** `store`: the store's write probe, when it has one. */
  constructor(store?: WriteProbe) {
    this.#store = store;
  }

  /** A commit (or its durability) failed with `e`. */
  failed(e: unknown): void {
    this.#failure = e as Error;
  }

  /** A commit succeeded. */
  ok(): void {
    this.#failure = undefined;
  }

  /** Resolves when no commit failed since the last success, or the store accepts writes again. */
  async check(): Promise<void> {
    const failed = this.#failure;
    if (!failed) return;
    const store = this.#store;
    if (store) {
      const now = Date.now();
      if (!this.#probe || now - this.#probe.at >= PROBE_MS) {
        this.#probe = { at: now, result: store.probeWrite() };
        this.#probe.result.catch(() => {});
      }
      try {
        await this.#probe.result;
        if (this.#failure === failed) this.#failure = undefined;
        return;
      } catch { /* still refused */ }
    }
    if (isPinnedHeadRefusal(failed)) throw failed; // issue 27: /healthz names the pin it failed
    throw new LogStorageError(
      "storage-write",
      `Cannot write to the store: ${errorText(this.#failure ?? failed)}`,
      { cause: failed },
    );
  }
}
