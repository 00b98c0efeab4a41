// The grant and revocation checks at append (issue 25; docs/GRANTS.md): run with the stream checks
// (check.ts) inside the store's commit, in log order, so a revocation earlier in the same batch
// is seen by an allow after it. A logged grant and a logged revocation move the state; an allow
// (JCP §8 `verdict: "allow"`) is checked against it. Each entry writes O(1) rows; an allow reads
// one row per link of its chain (a logged chain is at most MAX_GRANT_DEPTH deep). Pure.
import type { EntryFacts, FindingCode, StreamFinding } from "./facts.ts";
import { type RevocationStatus, revocationStatus, walkSync } from "./revocation.ts";

export { MAX_GRANT_DEPTH } from "./revocation.ts";

/** A logged grant as the checks read it. */
export interface GrantRow {
  index: number;
  parent?: Uint8Array;
  issuer: string;
  subject: string;
  /** Hops from its root (a root: 0). */
  depth: number;
}

/** A logged grant with its revocation, as the store answers it. */
export interface GrantRecord extends GrantRow {
  /** The index of its first revocation, if revoked. */
  revocation?: number;
}

/** The store's grant state inside its commit transaction (log/sql/grants.ts). Synchronous. */
export interface GrantTx {
  /** A logged grant and its first revocation (the grant's marker, JCP §4.3), in one read. */
  grant(id: Uint8Array): GrantRecord | undefined;
  putGrant(id: Uint8Array, row: GrantRow): void;
  /** Records a revocation; a later one of the same grant leaves the first in place. */
  putRevocation(id: Uint8Array, index: number): void;
  /** Whether `issuer` has a grant logged here (it keeps its grants, and revocations, here). */
  issuerKnown(issuer: string): boolean;
}

/**
 * Checks one entry's grant facts at `index` and writes their state; `add` records a finding; an
 * allow's revocation status is returned (revocation.ts). JCP §4.3: "deny (`revoked`) any decision
 * against the revoked grant or any chain containing it": an allow logged after a revocation of
 * its grant or of any ancestor (through the logged `parent` links, and any `chain_ids` link) is
 * `grant-revoked`, naming the first revocation's index (its marker). "Where a point states no
 * marker, an auditor MUST treat its allows as unverifiable for revocation": an allow whose grant
 * or a chain link is not logged, by an issuer that keeps its grants here, is stored
 * `revocation-unverifiable` (every other one states it in its status only: docs/DECISIONS.md
 * "Grants and revocations").
 */
export function checkGrantFacts(
  tx: GrantTx,
  index: number,
  f: EntryFacts,
  add: (code: FindingCode, more?: Partial<StreamFinding>) => void,
): RevocationStatus | undefined {
  if (f.grant) {
    const g = f.grant;
    if (!tx.grant(g.id)) {
      const parent = g.parent && tx.grant(g.parent);
      tx.putGrant(g.id, {
        index,
        parent: g.parent,
        issuer: g.issuer,
        subject: g.subject,
        depth: parent ? parent.depth + 1 : 0,
      });
    }
  }
  if (f.revokes) tx.putRevocation(f.revokes, index);
  if (!f.allow) return undefined;
  const w = walkSync(f.allow, index, (id) => tx.grant(id));
  if (w.marker !== undefined) add("grant-revoked", { other: w.marker });
  else if (w.missing && tx.issuerKnown(f.allow.issuer)) add("revocation-unverifiable");
  return revocationStatus(w, index);
}
