// Durable state of the witness role and of the cosignature collector (docs/WITNESS.md):
// - per witnessed origin, the latest cosigned (size, root) and that checkpoint with our
//   cosignature, moved only by compare-and-swap (tlog-witness: "checking the old size against
//   the latest checkpoint and persisting the new checkpoint must be performed atomically");
// - per witness of our own log, the size it last cosigned and its latest cosignature lines.
// The contract and a memory implementation (pure); SQLite in log/sqlite/witness_state.ts, Durable
// Object storage on the edge.
import { bytesEqual } from "../../verify/mod.ts";

/** The latest checkpoint cosigned for one origin. */
export interface CosignedRecord {
  size: number;
  root: Uint8Array;
  /** The checkpoint note with the log's signature(s) verified and our cosignature. */
  note: Uint8Array;
}

/** The latest cosigned (size, root) of one origin (what the witness's pin records). */
export interface OriginHead {
  origin: string;
  size: number;
  root: Uint8Array;
}

/** What the collector keeps per witness of our own log. */
export interface CollectorRecord {
  /** The size the witness last cosigned (from a 200, or learned from a 409). */
  size: number;
  /** Cosignature lines (`— name base64\n`) the witness returned for `size`, if any. */
  cosignature?: string;
  /** Root of the checkpoint those lines cosign (hex); absent with no cosignature. */
  root?: string;
}

/** Storage of the witness role and the collector. */
export interface WitnessStateStore {
  get(origin: string): Promise<CosignedRecord | undefined>;
  /** The latest head of every origin cosigned (log/c2sp/witness_pin.ts checks it at start). */
  heads(): Promise<OriginHead[]>;
  /**
   * Replaces the record of `origin` with `next` only if it still is `expected` (same size and
   * root; undefined: no record). Returns whether it did; durable before it resolves true.
   */
  compareAndSwap(
    origin: string,
    expected: { size: number; root: Uint8Array } | undefined,
    next: CosignedRecord,
  ): Promise<boolean>;
  getCollector(witness: string): Promise<CollectorRecord | undefined>;
  putCollector(witness: string, rec: CollectorRecord): Promise<void>;
  close(): Promise<void>;
}

/** Whether a stored record is still the expected one (CAS comparison). */
export function sameHead(
  rec: { size: number; root: Uint8Array } | undefined,
  expected: { size: number; root: Uint8Array } | undefined,
): boolean {
  if (rec === undefined || expected === undefined) return rec === expected;
  return rec.size === expected.size && bytesEqual(rec.root, expected.root);
}

/**
 * The witness state in memory (tests, `JC_STORE=memory`).
 *
 * @example
 * ```ts
 * const s = memoryWitnessState();
 * await s.compareAndSwap("example.com/log", undefined, { size: 1, root, note });
 * ```
 */
export function memoryWitnessState(): WitnessStateStore {
  const heads = new Map<string, CosignedRecord>();
  const collectors = new Map<string, CollectorRecord>();
  return {
    get: (origin) => Promise.resolve(heads.get(origin)),
    heads: () =>
      Promise.resolve(
        [...heads].map(([origin, r]) => ({ origin, size: r.size, root: r.root.slice() })),
      ),
    compareAndSwap(origin, expected, next) {
      if (!sameHead(heads.get(origin), expected)) return Promise.resolve(false);
      heads.set(origin, { size: next.size, root: next.root.slice(), note: next.note.slice() });
      return Promise.resolve(true);
    },
    getCollector: (w) => Promise.resolve(collectors.get(w)),
    putCollector(w, rec) {
      collectors.set(w, { ...rec });
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
}
