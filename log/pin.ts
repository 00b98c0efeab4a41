// The signed-head pin (issue 27; docs/STORAGE.md "Signed-head pin"): the latest tree size and roots
// the log signed, recorded durably outside its store (beside its key), written after the store's
// commit is durable and before any head at that size is served. At open the store must reach the
// pin with the same roots (as Sunlight checks its lock backend's checkpoint against storage): a
// store that is missing, emptied, rolled back or forked refuses to open, and the log never signs
// two roots at one size whatever happens to its files. Pure: the record's medium is injected.
import { LogStateError } from "./errors.ts";
import type { StoredHead } from "./storage.ts";
import { sha256Hasher } from "./hasher.ts";

/** What a pin records: a signed size and both views' roots at it. */
export interface PinnedHead {
  size: number;
  /** BLAKE3 view (the §22.2 head's root). */
  root: Uint8Array;
  sha256Root: Uint8Array;
}

/** What the pin records of a signed head. */
export function pinOf(head: StoredHead): PinnedHead {
  return { size: head.size, root: head.root, sha256Root: head.sha256Root ?? sha256Hasher.empty() };
}

/** Where a pin is kept (log/sqlite/pin_file.ts: a file beside the log key). */
export interface HeadPin {
  /** Names the pin in messages (its path). */
  readonly where: string;
  /** Names the store it guards, in messages. */
  readonly store: string;
  /** The pinned head; undefined when none was ever written. */
  read(): Promise<PinnedHead | undefined>;
  /** Records `head`, durable before it resolves. Never called concurrently (PinWriter). */
  write(head: PinnedHead): Promise<void>;
  /** Optional: releases the pin's medium; the log calls it once closed (after its store). */
  close?(): void;
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

function same(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Checks a store against its pin: the store's latest size reaches the pinned size, and its head
 * at the pinned size has the pinned roots. A store ahead of the pin is fine (a crash between the
 * commit and the pin's write: nothing past the pin was served).
 */
export function checkStoreAgainstPin(
  pin: PinnedHead,
  where: { store: string; where: string },
  latest: StoredHead | undefined,
  atPin: StoredHead | undefined,
): void {
  const size = latest?.size ?? 0;
  if (size < pin.size) {
    throw new LogStateError(
      "store-behind-signed-head",
      `Cannot open the log: its store ${where.store} holds ${
        latest ? `a tree of ${size} entries` : "no tree (missing or empty)"
      }, but the log signed a head at size ${pin.size} (pin ${where.where}); a new head at a ` +
        "size already signed would fork the log. Restore the newest copy of the store, or see " +
        'docs/OPERATIONS.md "When the log refuses to open"',
    );
  }
  const roots = atPin && same(atPin.root, pin.root) &&
    (atPin.sha256Root === undefined || same(atPin.sha256Root, pin.sha256Root));
  if (!roots) {
    throw new LogStateError(
      "store-forks-signed-head",
      `Cannot open the log: its store ${where.store} has ${
        atPin ? `root ${hex(atPin.root)}` : "no head"
      } at size ${pin.size}, but the log signed root ${
        hex(pin.root)
      } there (pin ${where.where}): ` +
        "this store is not the log's; restore the log's own store (docs/OPERATIONS.md \"When " +
        'the log refuses to open")',
    );
  }
}

/**
 * Advances a pin as heads become durable: writes never overlap, a write covers every head asked
 * for meanwhile (one write per batch at most, fewer under load), and the pin never goes back or
 * changes its root at a size.
 */
export class PinWriter {
  readonly #pin: HeadPin;
  #pinned: PinnedHead | undefined;
  #want: PinnedHead | undefined;
  #waiters: { size: number; resolve(): void; reject(e: unknown): void }[] = [];
  #running = false;

  constructor(pin: HeadPin, pinned: PinnedHead | undefined) {
    this.#pin = pin;
    this.#pinned = pinned;
  }

  /** Where the pin is kept (for messages). */
  get source(): HeadPin {
    return this.#pin;
  }

  /** The pinned head (the last durable write). */
  get pinned(): PinnedHead | undefined {
    return this.#pinned;
  }

  /** Resolves once the pin records `head` or a later head; refuses another root at a size. */
  advance(head: PinnedHead): Promise<void> {
    const top = this.#want ?? this.#pinned;
    if (top && head.size === top.size && !same(head.root, top.root)) {
      return Promise.reject(
        new LogStateError(
          "store-forks-signed-head",
          `Cannot sign: a second root at size ${head.size} (pin ${this.#pin.where})`,
        ),
      );
    }
    if (this.#pinned && head.size <= this.#pinned.size) return Promise.resolve();
    if (!top || head.size > top.size) this.#want = head;
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    this.#waiters.push({ size: head.size, resolve, reject });
    if (!this.#running) this.#run();
    return promise;
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      while (this.#want && (!this.#pinned || this.#want.size > this.#pinned.size)) {
        const h = this.#want;
        try {
          await this.#pin.write(h);
        } catch (e) {
          // the pin may or may not hold it: what it held stays the floor; waiters fail
          this.#want = this.#pinned;
          const w = this.#waiters;
          this.#waiters = [];
          for (const x of w) x.reject(e);
          return;
        }
        this.#pinned = h;
        const left = [];
        for (const x of this.#waiters) {
          if (x.size <= h.size) x.resolve();
          else left.push(x);
        }
        this.#waiters = left;
      }
    } finally {
      this.#running = false;
    }
  }
}
