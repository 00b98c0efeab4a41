// The one-time migrations of a store written by an older version, run by `openLog` before the log
// serves (docs/STORAGE.md "Migration"): the SHA-256 view (log/view_backfill.ts) and the content
// index (docs/DECISIONS.md "One entry per signed content"). Each is idempotent and records how far
// it got, so an interrupted one is run again. Pure: storage is injected.
import { blake3Hasher } from "./hasher.ts";
import { envelopeContentId } from "./crypto.ts";
import { LogIntegrityError } from "./errors.ts";
import type { ContentIndex, LogStorage, ViewMigration } from "./storage.ts";
import { recover, type Recovered } from "./recover.ts";
import { backfillSha256View } from "./view_backfill.ts";
import type { LogOptions } from "./log.ts";

/** A proven store with both views' edges (the SHA-256 one migrated when missing). */
export type Proven = Recovered & { sha256Edge: NonNullable<Recovered["sha256Edge"]> };

/**
 * Proves the store (log/recover.ts); a store written before the SHA-256 view is migrated first
 * (through its `ViewMigration`), then proved again, both views this time. Undefined: a store
 * never written.
 */
export async function recoverMigrated(
  s: LogStorage,
  migration: ViewMigration | undefined,
  pub: Uint8Array,
): Promise<Proven | undefined> {
  let r = await recover(s, blake3Hasher, pub);
  if (r && !r.sha256Edge) {
    if (!migration) {
      throw new LogIntegrityError(
        "Cannot open log: the store predates the SHA-256 view and cannot migrate it",
      );
    }
    await backfillSha256View(s, migration, r.head.size);
    r = await recover(s, blake3Hasher, pub);
    if (!r?.sha256Edge) {
      throw new LogIntegrityError("Cannot open log: migrating the SHA-256 view failed");
    }
  }
  return r as Proven | undefined;
}

/**
 * Completes the content index (`ix`, the store's `ContentIndex`) of a store written before it
 * existed: every stored entry's identity, 1024 entries per write, before the log takes appends.
 * Once per store; a store created with the index, or without one, has nothing to do.
 */
export async function backfillContentIndex(
  s: LogStorage,
  ix: ContentIndex | undefined,
  o: LogOptions,
  size: number,
): Promise<void> {
  if (o.contentId === null || !ix) return;
  const contentId = o.contentId ?? envelopeContentId;
  let reach = await ix.contentIndexReach();
  while (reach !== "all") {
    const entries = reach < size ? await s.entries(reach, 1024) : [];
    const rows: { index: number; contentId: Uint8Array }[] = [];
    entries.forEach((e, k) => {
      const id = contentId(e);
      if (id) rows.push({ index: reach as number + k, contentId: id });
    });
    const next = entries.length === 0 || reach + entries.length >= size
      ? "all"
      : reach + entries.length;
    await ix.backfillContentIndex(rows, next);
    reach = next;
  }
}
