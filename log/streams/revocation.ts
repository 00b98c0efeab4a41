// An allow's revocation status (issue 25; JCP §4.3; docs/GRANTS.md "Revocation status"): what the
// log can say, for every `jcp` allow, about the revocation of the grants it was decided against.
// "An auditor MUST treat an allow with no revocation marker (e.g. a log index) as unverifiable
// for revocation": the log is the revocation feed and an entry's index its marker, so an allow
// whose grants are all logged before it was checked against every revocation before its index
// (`checked`, the marker that index), one of whose grants has a revocation logged before it is
// `revoked` (the first such revocation's index), and one naming a grant not logged before it is
// `unverifiable`. One walk, shared by the check at append (grants.ts, synchronous, inside the
// commit) and the reads (reads.ts, asynchronous): the walk yields the grant ids it needs and is
// handed each one's row as it stood before the allow. Each walk reads at most MAX_GRANT_DEPTH + 2
// rows per grant it starts from. Pure.
import type { AllowFacts } from "./facts.ts";
import { toHex } from "../crypto.ts";

/**
 * The deepest logged delegation (root 0): a deeper grant is refused `grant-chain-too-deep`, so an
 * allow's walk up its chain stays bounded (docs/DECISIONS.md "Grants and revocations").
 */
export const MAX_GRANT_DEPTH = 64;

/** Why an allow is unverifiable for revocation. */
export type UnverifiableReason =
  /** A grant it names (or an ancestor of one, by its logged `parent`) is not logged before it. */
  | "grant-not-logged"
  /** The log did not check it: no stream checks, or before their reach (docs/STREAMS.md). */
  | "not-checked";

/** The revocation status of a `jcp` allow (the append answer's and the entry JSON's). */
export type RevocationStatus =
  | { status: "checked"; marker: number }
  | { status: "revoked"; index: number }
  | { status: "unverifiable"; reason: UnverifiableReason; grant_id?: string };

/** An allow the log did not check. */
export const NOT_CHECKED: RevocationStatus = { status: "unverifiable", reason: "not-checked" };

/** What a walk reads of a logged grant (grants.ts `GrantRecord` is one). */
export interface WalkRow {
  /** Its entry. */
  index: number;
  parent?: Uint8Array;
  /** Its first revocation's entry. */
  revocation?: number;
}

/** What a walk found: the first revocation before the allow, the first grant not logged. */
export interface Walked {
  marker?: number;
  missing?: Uint8Array;
}

/**
 * Walks the grants of allow `a` at `index` (its `chain_ids`, its `grant_id`, and their logged
 * `parent` links): yields each id, and is sent its row as it stood before `index` (undefined: not
 * logged then). JCP §4.3: "a revoked grant and every chain containing it are dead".
 */
export function* allowWalk(
  a: AllowFacts,
  index: number,
): Generator<Uint8Array, Walked, WalkRow | undefined> {
  const out: Walked = {};
  const seen = new Set<string>();
  for (const start of [...a.chain, a.grant]) {
    let id: Uint8Array | undefined = start;
    for (let hop = 0; id && hop <= MAX_GRANT_DEPTH + 1; hop++) {
      const k = toHex(id);
      if (seen.has(k)) break;
      seen.add(k);
      const row: WalkRow | undefined = yield id;
      if (!row || row.index >= index) {
        out.missing ??= id;
        break;
      }
      const r = row.revocation;
      if (r !== undefined && r < index && (out.marker === undefined || r < out.marker)) {
        out.marker = r;
      }
      id = row.parent;
    }
  }
  return out;
}

/** Runs a walk over a synchronous grant read (the commit's). */
export function walkSync(
  a: AllowFacts,
  index: number,
  grant: (id: Uint8Array) => WalkRow | undefined,
): Walked {
  const w = allowWalk(a, index);
  for (let s = w.next();; s = w.next(grant(s.value))) if (s.done) return s.value;
}

/** Runs a walk over an asynchronous grant read (the reads'). */
export async function walkAsync(
  a: AllowFacts,
  index: number,
  grant: (id: Uint8Array) => Promise<WalkRow | undefined>,
): Promise<Walked> {
  const w = allowWalk(a, index);
  for (let s = w.next();; s = w.next(await grant(s.value))) if (s.done) return s.value;
}

/** The status a walk of the allow at `index` gives. */
export function revocationStatus(w: Walked, index: number): RevocationStatus {
  if (w.marker !== undefined) return { status: "revoked", index: w.marker };
  if (w.missing) {
    return { status: "unverifiable", reason: "grant-not-logged", grant_id: toHex(w.missing) };
  }
  return { status: "checked", marker: index };
}
