// The SQL store's key state (issue 25; docs/KEYS.md; JCP §2.1): each identity's head (its first
// chain's last event, O(1) per append), the chain's events by seq, and the forks logged as
// evidence. Written inside a batch's commit transaction from the writes the sequencer's checks
// made (log/keys/judge.ts), so the state moves exactly with the log: a crash leaves both or
// neither. One schema for node:sqlite and the Durable Object (the store's table prefix), additive.
import type { IdentityRecord, KeyChainEvent, KeyFork, KeyHead, KeyWrites } from "../keys/mod.ts";
import type { SqlExecutor, SqlRow } from "./executor.ts";

/** The tables (CREATE ... IF NOT EXISTS, like the stream tables). */
export function keySchema(p: string): string[] {
  return [
    // the first chain: (identity, seq) is unique, so the resolution can never fork
    `CREATE TABLE IF NOT EXISTS ${p}key_events (identity TEXT NOT NULL, seq INTEGER NOT NULL,` +
    ` cur TEXT NOT NULL, next BLOB NOT NULL, cid BLOB NOT NULL, idx INTEGER NOT NULL,` +
    ` PRIMARY KEY (identity, seq)) WITHOUT ROWID`,
    `CREATE TABLE IF NOT EXISTS ${p}key_heads (identity TEXT PRIMARY KEY, seq INTEGER NOT NULL,` +
    ` forked INTEGER)`,
    `CREATE TABLE IF NOT EXISTS ${p}key_forks (identity TEXT NOT NULL, seq INTEGER NOT NULL,` +
    ` idx INTEGER NOT NULL, first INTEGER NOT NULL, PRIMARY KEY (identity, idx)) WITHOUT ROWID`,
  ];
}

const toEvent = (r: SqlRow): KeyChainEvent => ({
  seq: Number(r.seq),
  current: r.cur as string,
  nextHash: r.next as Uint8Array,
  cid: r.cid as Uint8Array,
  index: Number(r.idx),
});

/** The key state's statements and reads over one executor. */
export class SqlKeys {
  readonly #x: SqlExecutor;
  readonly #q: ReturnType<typeof keyQueries>;
  constructor(x: SqlExecutor, p: string) {
    this.#x = x;
    this.#q = keyQueries(p);
  }

  /** The heads of these identities (those with a chain). */
  heads(identities: string[]): Map<string, KeyHead> {
    const out = new Map<string, KeyHead>();
    if (identities.length === 0) return out;
    for (const r of this.#x.all(this.#q.heads, JSON.stringify(identities))) {
      const h: KeyHead = { identity: r.identity as string, ...toEvent(r) };
      if (r.forked !== null && r.forked !== undefined) h.forkedAt = Number(r.forked);
      out.set(h.identity, h);
    }
    return out;
  }

  /** The first chain's event at `seq`. */
  event(identity: string, seq: number): KeyChainEvent | undefined {
    const r = this.#x.all(this.#q.event, identity, seq)[0];
    return r && toEvent(r);
  }

  /** GET /v1/keys/{identity}: the head, the events' indices in seq order, the forks. */
  record(identity: string): IdentityRecord | undefined {
    const head = this.heads([identity]).get(identity);
    if (!head) return undefined;
    const events = this.#x.all(this.#q.events, identity).map((r) => Number(r.idx));
    const forks = this.#x.all(this.#q.forks, identity).map((r): KeyFork => ({
      seq: Number(r.seq),
      index: Number(r.idx),
      first: Number(r.first),
    }));
    return { head, events, forks };
  }

  /** Writes a batch's key state (inside the commit transaction). */
  put(w: KeyWrites): void {
    const x = this.#x, q = this.#q;
    for (const { identity, event: e } of w.events) {
      // a second event at a logged seq fails the primary key: the batch is refused, never forked
      x.run(q.putEvent, identity, e.seq, e.current, e.nextHash, e.cid, e.index);
      x.run(q.putHead, identity, e.seq);
    }
    for (const { identity, fork: f } of w.forks) {
      x.run(q.putFork, identity, f.seq, f.index, f.first);
      x.run(q.freeze, f.index, identity);
    }
  }
}

function keyQueries(p: string) {
  return {
    heads: `SELECT h.identity AS identity, h.forked AS forked, e.seq AS seq, e.cur AS cur,` +
      ` e.next AS next, e.cid AS cid, e.idx AS idx FROM ${p}key_heads h JOIN ${p}key_events e` +
      ` ON e.identity = h.identity AND e.seq = h.seq WHERE h.identity IN (SELECT value FROM` +
      ` json_each(?))`,
    event: `SELECT seq, cur, next, cid, idx FROM ${p}key_events WHERE identity = ? AND seq = ?`,
    events: `SELECT idx FROM ${p}key_events WHERE identity = ? ORDER BY seq`,
    forks: `SELECT seq, idx, first FROM ${p}key_forks WHERE identity = ? ORDER BY idx`,
    putEvent: `INSERT INTO ${p}key_events (identity, seq, cur, next, cid, idx)` +
      " VALUES (?, ?, ?, ?, ?, ?)",
    // the head only moves forward (seq + 1), and keeps a fork's mark
    putHead: `INSERT INTO ${p}key_heads (identity, seq) VALUES (?1, ?2) ON CONFLICT (identity)` +
      " DO UPDATE SET seq = excluded.seq WHERE excluded.seq = seq + 1",
    putFork: `INSERT INTO ${p}key_forks (identity, seq, idx, first) VALUES (?, ?, ?, ?)`,
    freeze: `UPDATE ${p}key_heads SET forked = coalesce(forked, ?) WHERE identity = ?`,
  };
}
