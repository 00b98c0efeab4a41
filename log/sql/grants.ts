// The SQL store's grant state (issue 25; docs/GRANTS.md): the logged grants (their links) and the
// first revocation of each, written by the checks (log/streams/grants.ts) inside a batch's commit
// transaction, and read by GET /v1/grants/{grant_id} and the grant routes' admission. Additive
// (CREATE ... IF NOT EXISTS, like the stream tables, log/sql/streams.ts): a store written before
// gains the tables on open; its entries before then logged no grant (no route took one).
import type { GrantRecord, GrantTx } from "../streams/mod.ts";
import type { SqlExecutor, SqlRow } from "./executor.ts";

/** The tables. */
export function grantSchema(p: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${p}grants (gid BLOB PRIMARY KEY, idx INTEGER NOT NULL,` +
    ` parent BLOB, issuer TEXT NOT NULL, subject TEXT NOT NULL, depth INTEGER NOT NULL)` +
    " WITHOUT ROWID",
    `CREATE INDEX IF NOT EXISTS ${p}grants_issuer ON ${p}grants (issuer)`,
    // the first revocation of a grant: its index is the grant's revocation marker (JCP §4.3)
    `CREATE TABLE IF NOT EXISTS ${p}revocations (gid BLOB PRIMARY KEY, idx INTEGER NOT NULL)` +
    " WITHOUT ROWID",
  ];
}

function toRecord(r: SqlRow): GrantRecord {
  const g: GrantRecord = {
    index: Number(r.idx),
    issuer: r.issuer as string,
    subject: r.subject as string,
    depth: Number(r.depth),
  };
  if (r.parent instanceof Uint8Array) g.parent = r.parent;
  if (r.rev !== null && r.rev !== undefined) g.revocation = Number(r.rev);
  return g;
}

/** The grant state's statements and reads over one executor. */
export class SqlGrants {
  readonly #x: SqlExecutor;
  readonly #q: ReturnType<typeof grantQueries>;
  constructor(x: SqlExecutor, p: string) {
    this.#x = x;
    this.#q = grantQueries(p);
  }

  /**
   * The check's view of the state; valid inside the caller's transaction only. A batch's allows
   * mostly name the same few chains: each grant is read once per batch (a write forgets it).
   */
  tx(): GrantTx {
    const x = this.#x, q = this.#q;
    const seen = new Map<string, GrantRecord | undefined>();
    const key = (id: Uint8Array) => String.fromCharCode(...id);
    return {
      grant: (id) => {
        const k = key(id);
        if (seen.has(k)) return seen.get(k);
        const r = x.all(q.record, id)[0];
        const g = r && toRecord(r);
        seen.set(k, g);
        return g;
      },
      putGrant: (id, g) => {
        seen.delete(key(id));
        x.run(q.putGrant, id, g.index, g.parent ?? null, g.issuer, g.subject, g.depth);
      },
      putRevocation: (id, index) => {
        seen.delete(key(id));
        x.run(q.putRevocation, id, index);
      },
      issuerKnown: (issuer) => x.all(q.issuer, issuer).length > 0,
    };
  }

  /**
   * The state as it stood before entry `at()` (the stream backfill, log/sql/streams_backfill.ts:
   * it checks old entries in log order against the live tables, which already hold later grants
   * and revocations): a grant or a revocation logged at or after it is not there yet. Writes are
   * the live ones (INSERT OR IGNORE: a grant the checks recorded is left as it is).
   */
  txAsOf(at: () => number): GrantTx {
    const live = this.tx(), x = this.#x, q = this.#q;
    return {
      grant: (id) => {
        const g = live.grant(id);
        if (!g || g.index >= at()) return undefined;
        if (g.revocation === undefined || g.revocation < at()) return g;
        const { revocation: _later, ...before } = g;
        return before;
      },
      putGrant: live.putGrant,
      putRevocation: live.putRevocation,
      issuerKnown: (issuer) => x.all(q.issuerBefore, issuer, at()).length > 0,
    };
  }

  /** A logged grant and its first revocation, or undefined. */
  grant(id: Uint8Array): GrantRecord | undefined {
    const r = this.#x.all(this.#q.record, id)[0];
    return r && toRecord(r);
  }
}

function grantQueries(p: string) {
  return {
    putGrant: `INSERT OR IGNORE INTO ${p}grants (gid, idx, parent, issuer, subject, depth)` +
      " VALUES (?, ?, ?, ?, ?, ?)",
    putRevocation: `INSERT OR IGNORE INTO ${p}revocations (gid, idx) VALUES (?, ?)`,
    issuer: `SELECT 1 AS x FROM ${p}grants WHERE issuer = ? LIMIT 1`,
    issuerBefore: `SELECT 1 AS x FROM ${p}grants WHERE issuer = ? AND idx < ? LIMIT 1`,
    record: `SELECT g.idx AS idx, g.parent AS parent, g.issuer AS issuer, g.subject AS subject,` +
      ` g.depth AS depth, r.idx AS rev FROM ${p}grants g LEFT JOIN ${p}revocations r` +
      " ON r.gid = g.gid WHERE g.gid = ?",
  };
}
