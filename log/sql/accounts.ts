// The SQL store's accounts (issue 30; docs/ACCOUNTING.md): the tables the fold
// (log/accounts/fold.ts) reads and writes inside a batch's commit transaction, and the reads of
// GET /v1/accounts. One schema for node:sqlite and the Durable Object (the store's table prefix),
// additive: a store written before it gains the tables on open, and its `accounts_upto` mark says
// from which index on its entries were counted.
//
// Windows are prefix sums: per (steward, grant) one row per integration time (the batch head's
// timestamp) at which a receipt named the grant, holding the counters summed over every receipt
// up to it. An append updates or adds the latest row (integration times never go back: a head
// older than the latest row is counted in it); a window [from, to) is the row before `to` minus
// the row before `from`: two index seeks at any log size.
import {
  type AccountPage,
  type AccountQuery,
  accountRow,
  type AccountTx,
  addCounters,
  AT,
  COUNTERS,
  type Counters,
  type StoredHold,
  zeroCounters,
} from "../accounts/mod.ts";
import type { SqlExecutor, SqlRow } from "./executor.ts";

/** The tables (CREATE ... IF NOT EXISTS, like the streams'). */
export function accountSchema(p: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${p}accounts (steward TEXT NOT NULL, gid TEXT NOT NULL,` +
    ` first_idx INTEGER NOT NULL, last_idx INTEGER NOT NULL, PRIMARY KEY (steward, gid))` +
    " WITHOUT ROWID",
    `CREATE TABLE IF NOT EXISTS ${p}account_windows (steward TEXT NOT NULL, gid TEXT NOT NULL,` +
    ` ts INTEGER NOT NULL, first_idx INTEGER NOT NULL, last_idx INTEGER NOT NULL,` +
    ` c TEXT NOT NULL, PRIMARY KEY (steward, gid, ts)) WITHOUT ROWID`,
    `CREATE TABLE IF NOT EXISTS ${p}account_holds (steward TEXT NOT NULL, cid BLOB NOT NULL,` +
    ` idx INTEGER NOT NULL, grants TEXT NOT NULL, held INTEGER NOT NULL, settled INTEGER,` +
    ` PRIMARY KEY (steward, cid)) WITHOUT ROWID`,
    `CREATE TABLE IF NOT EXISTS ${p}account_early_settles (steward TEXT NOT NULL,` +
    ` cid BLOB NOT NULL, idx INTEGER NOT NULL, PRIMARY KEY (steward, cid)) WITHOUT ROWID`,
    // From which index on entries were counted: "all" for a store created with the tables.
    `INSERT OR IGNORE INTO ${p}meta (k, v) SELECT 'accounts_upto', CASE WHEN coalesce(max(size),` +
    ` 0) = 0 THEN 'all' ELSE CAST(max(size) AS TEXT) END FROM ${p}heads`,
  ];
}

/** A stored counters array (a row written by an older build may have fewer: zeros). */
function counters(r: SqlRow | undefined): Counters {
  const c = zeroCounters();
  if (!r) return c;
  const v = JSON.parse(String(r.c)) as number[];
  for (let i = 0; i < c.length && i < v.length; i++) c[i] = Number(v[i]) || 0;
  return c;
}

/** The accounts' statements and reads over one executor. */
export class SqlAccounts {
  readonly #x: SqlExecutor;
  readonly #q: ReturnType<typeof accountQueries>;
  constructor(x: SqlExecutor, p: string) {
    this.#x = x;
    this.#q = accountQueries(p);
  }

  /**
   * The fold's view of the state; valid inside the caller's transaction only. A batch's deltas
   * are summed in memory per (steward, grant) and written by `flush`: one read and two writes per
   * account the batch touched (a batch has one integration time), not per receipt.
   */
  tx(): AccountTx & { flush(): void } {
    const x = this.#x, q = this.#q;
    const pending = new Map<
      string,
      { steward: string; grant: string; ts: number; first: number; last: number; d: Counters }
    >();
    return {
      add: (steward, grant, ts, index, d) => {
        const k = `${steward}\n${grant}`, p = pending.get(k);
        if (!p) pending.set(k, { steward, grant, ts, first: index, last: index, d: [...d] });
        else {
          addCounters(p.d, d);
          p.last = index;
          p.ts = Math.max(p.ts, ts);
        }
      },
      flush: () => {
        for (const { steward, grant, ts, first, last, d } of pending.values()) {
          const r = x.all(q.latest, steward, grant)[0];
          const c = JSON.stringify(addCounters(counters(r), d));
          if (r && Number(r.ts) >= ts) x.run(q.updWindow, last, c, steward, grant, Number(r.ts));
          else x.run(q.insWindow, steward, grant, ts, first, last, c);
          x.run(q.upsAccount, steward, grant, first, last);
        }
        pending.clear();
      },
      hold: (steward, cid) => {
        const r = x.all(q.hold, steward, cid)[0];
        if (!r) return undefined;
        const h: StoredHold = {
          index: Number(r.idx),
          grants: JSON.parse(String(r.grants)),
          heldUj: Number(r.held),
        };
        if (r.settled !== null && r.settled !== undefined) h.settledBy = Number(r.settled);
        return h;
      },
      putHold: (steward, cid, h) =>
        void x.run(
          q.putHold,
          steward,
          cid,
          h.index,
          JSON.stringify(h.grants),
          h.heldUj,
          h.settledBy ?? null,
        ),
      earlySettle: (steward, cid) => {
        const r = x.all(q.early, steward, cid)[0];
        return r ? Number(r.idx) : undefined;
      },
      putEarlySettle: (steward, cid, index) => void x.run(q.putEarly, steward, cid, index),
    };
  }

  /** A page of a steward's accounts over a window (docs/ACCOUNTING.md "Windows"). */
  page(a: AccountQuery): Omit<AccountPage, "counted_from"> {
    const x = this.#x, q = this.#q;
    const grants = a.grant !== undefined
      ? x.all(q.account, a.steward, a.grant)
      : x.all(q.accounts, a.steward, a.after ?? "", a.limit);
    const out: AccountPage["accounts"] = [];
    for (const g of grants) {
      const gid = String(g.gid);
      const hi = a.to === undefined
        ? x.all(q.latest, a.steward, gid)[0]
        : x.all(q.before, a.steward, gid, a.to)[0];
      if (!hi) continue;
      const lo = a.from === undefined ? undefined : x.all(q.before, a.steward, gid, a.from)[0];
      const c = counters(hi), l = counters(lo);
      for (let i = 0; i < COUNTERS.length; i++) c[i] -= l[i];
      if (c[AT.receipts] <= 0) continue; // no receipt named it in the window
      const first = lo === undefined
        ? Number(g.first_idx)
        : Number(x.all(q.after, a.steward, gid, Number(lo.ts))[0]?.first_idx ?? g.first_idx);
      out.push(accountRow(gid, first, Number(hi.last_idx), c));
    }
    const more = a.grant === undefined && grants.length === a.limit;
    return { accounts: out, next: more ? String(grants[grants.length - 1].gid) : null };
  }

  /** From which index on entries were counted ("all": every entry). */
  reach(): number | "all" {
    const v = this.#x.all(this.#q.reach)[0]?.v;
    return v === undefined || v === "all" ? "all" : Number(v);
  }
}

function accountQueries(p: string) {
  const w = `${p}account_windows`;
  return {
    latest: `SELECT ts, first_idx, last_idx, c FROM ${w} WHERE steward = ? AND gid = ?` +
      " ORDER BY ts DESC LIMIT 1",
    before: `SELECT ts, first_idx, last_idx, c FROM ${w} WHERE steward = ? AND gid = ? AND ts < ?` +
      " ORDER BY ts DESC LIMIT 1",
    after: `SELECT first_idx FROM ${w} WHERE steward = ? AND gid = ? AND ts > ?` +
      " ORDER BY ts LIMIT 1",
    updWindow: `UPDATE ${w} SET last_idx = ?, c = ? WHERE steward = ? AND gid = ? AND ts = ?`,
    insWindow: `INSERT INTO ${w} (steward, gid, ts, first_idx, last_idx, c)` +
      " VALUES (?, ?, ?, ?, ?, ?)",
    upsAccount: `INSERT INTO ${p}accounts (steward, gid, first_idx, last_idx) VALUES (?, ?, ?, ?)` +
      " ON CONFLICT (steward, gid) DO UPDATE SET last_idx = excluded.last_idx",
    account: `SELECT gid, first_idx, last_idx FROM ${p}accounts WHERE steward = ? AND gid = ?`,
    accounts: `SELECT gid, first_idx, last_idx FROM ${p}accounts WHERE steward = ? AND gid > ?` +
      " ORDER BY gid LIMIT ?",
    hold: `SELECT idx, grants, held, settled FROM ${p}account_holds WHERE steward = ? AND cid = ?`,
    putHold: `INSERT OR REPLACE INTO ${p}account_holds (steward, cid, idx, grants, held, settled)` +
      " VALUES (?, ?, ?, ?, ?, ?)",
    early: `SELECT idx FROM ${p}account_early_settles WHERE steward = ? AND cid = ?`,
    putEarly: `INSERT OR IGNORE INTO ${p}account_early_settles (steward, cid, idx)` +
      " VALUES (?, ?, ?)",
    reach: `SELECT v FROM ${p}meta WHERE k = 'accounts_upto'`,
  };
}
