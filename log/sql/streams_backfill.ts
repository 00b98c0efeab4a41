// The stream backfill's store side (docs/STREAMS.md "Backfill"; issue 24): entries logged before
// the stream checks existed (or while they were off) were never checked. Checking them now into
// the live state would not give what checking at append would have given: the live state already
// holds the later entries, so an old link would be the fork's second side, a gap its later link
// reported would be "cleared" instead of never raised, a settle's hold found "unknown". So the
// backfill recomputes: every entry's checks in log order, into a second set of the stream tables
// (prefix `sbf_`), in bounded steps that record their progress in the same transaction (an
// interrupted backfill continues from it). The step that reaches the log's size checks the last
// entries itself, inside its transaction (no append commits in between), and the rebuilt tables
// replace the live ones there: the findings are then exactly a recomputation's.
import { checkStreams, type EntryFacts } from "../streams/mod.ts";
import { StorageConflictError, type StreamBackfillStep } from "../storage.ts";
import type { SqlExecutor } from "./executor.ts";
import {
  SqlStreams,
  type SqlStreamsOptions,
  STREAM_INDEXES,
  STREAM_TABLES,
  streamTables,
} from "./streams.ts";
import { bumpTailGen } from "./search_tail.ts";
import { SqlGrants } from "./grants.ts";

/** The rebuilt tables' prefix, after the store's. */
const SHADOW = "sbf_";

/** The stream backfill over one executor; its methods run inside the caller's transaction. */
export class SqlStreamsBackfill {
  readonly #x: SqlExecutor;
  readonly #p: string;
  readonly #shadow: SqlStreams;
  readonly #grants: SqlGrants;

  constructor(x: SqlExecutor, p: string, o: SqlStreamsOptions) {
    this.#x = x;
    this.#p = p;
    this.#shadow = new SqlStreams(x, p + SHADOW, { ...o, metaPrefix: p });
    // issue 25: the grant findings are stream findings, so the recomputation makes them too,
    // against the grant state as it stood at each entry (the live tables, read "as of")
    this.#grants = new SqlGrants(x, p);
  }

  #meta(k: string): string | undefined {
    return this.#x.all(`SELECT v FROM ${this.#p}meta WHERE k = ?`, k)[0]?.v as string | undefined;
  }

  #putMeta(k: string, v: string): void {
    this.#x.run(`INSERT OR REPLACE INTO ${this.#p}meta (k, v) VALUES (?, ?)`, k, v);
  }

  /** The rebuilt state's next entry, undefined when every entry was checked. */
  next(): number | undefined {
    const reach = this.#meta("streams_upto");
    if (reach === undefined || reach === "all") return undefined;
    return Number(this.#meta("streams_rebuilt") ?? 0);
  }

  /** Marks the entries up to `size` unchecked (a batch committed with the checks off). */
  unchecked(size: number): void {
    this.#putMeta("streams_upto", String(size));
  }

  /** One step (`StreamBackfillStep`); inside the caller's transaction. */
  step(s: StreamBackfillStep): number | "all" {
    const x = this.#x, p = this.#p;
    const at = this.next();
    if (at === undefined) return "all";
    if (at !== s.from) {
      throw new StorageConflictError(
        `Cannot backfill streams from ${s.from}: the backfill is at ${at}`,
      );
    }
    if (this.#meta("streams_rebuilt") === undefined) {
      // the first step creates the rebuilt tables (empty), in its own transaction
      for (const t of STREAM_TABLES) x.run(`DROP TABLE IF EXISTS ${p}${SHADOW}${t}`);
      for (const sql of streamTables(p + SHADOW)) x.run(sql);
      bumpTailGen(x, p + SHADOW, p); // a copy of an earlier run's tail is void
    }
    const tx = this.#shadow.tx();
    let now = 0;
    tx.grants = this.#grants.txAsOf(() => now);
    const head = { size: -1, ts: 0 };
    const check = (index: number, f: EntryFacts | undefined) => {
      if (!f) return;
      if (index >= head.size) {
        // the batch's head: the first signed head covering the entry (what its commit signed)
        const r = x.all(
          `SELECT size, ts FROM ${p}heads WHERE size > ? ORDER BY size LIMIT 1`,
          index,
        )[0];
        head.size = Number(r?.size ?? Infinity);
        head.ts = Number(r?.ts ?? 0);
      }
      now = index;
      checkStreams(tx, [{ index, facts: f }], head.ts, s.skewMs);
    };
    s.facts.forEach((f, k) => check(s.from + k, f));
    let next = s.from + s.facts.length;
    const size = Number(x.all(`SELECT max(size) AS size FROM ${p}heads`)[0]?.size ?? 0);
    if (size - next <= s.catchUp) {
      const rows = x.all(
        `SELECT idx, bytes FROM ${p}entries WHERE idx >= ? ORDER BY idx LIMIT ?`,
        next,
        size - next,
      );
      for (const r of rows) {
        if (Number(r.idx) !== next) break; // pruned here (a Durable Object): the runner reads on
        check(next++, s.read(r.bytes as Uint8Array));
      }
    }
    tx.flush();
    if (next < size) {
      this.#putMeta("streams_rebuilt", String(next));
      return next;
    }
    this.#replace();
    return "all";
  }

  /**
   * The rebuilt tables become the live ones; the reach is "all". The rebuilt findings are
   * numbered after every live one (in their log order): a monitor's cursor ("findings after
   * number N", client monitor --watch-steward) then reads all of them, a fork the backfill found
   * among old entries included, rather than skip those numbered below what it had read.
   */
  #replace(): void {
    const x = this.#x, p = this.#p;
    const base = Number(x.all(`SELECT coalesce(max(id), 0) AS m FROM ${p}stream_findings`)[0].m);
    if (base > 0) {
      // two steps: no id collides with another while they move
      x.run(`UPDATE ${p}${SHADOW}stream_findings SET id = -id`);
      x.run(`UPDATE ${p}${SHADOW}stream_findings SET id = ? - id`, base);
    }
    for (const i of STREAM_INDEXES) x.run(`DROP INDEX IF EXISTS ${p}${SHADOW}${i}`);
    for (const t of STREAM_TABLES) {
      x.run(`DROP TABLE ${p}${t}`);
      x.run(`ALTER TABLE ${p}${SHADOW}${t} RENAME TO ${p}${t}`);
    }
    for (const sql of streamTables(p)) x.run(sql); // the findings' indexes, under their names
    bumpTailGen(x, p, p); // every connection reads the (rebuilt) tail again
    x.run(`DELETE FROM ${p}meta WHERE k = 'streams_rebuilt'`);
    this.#putMeta("streams_upto", "all");
  }
}
