// What the log reads from a receipt to keep accounts (issue 30; docs/ACCOUNTING.md): the "account
// facts" of one logged receipt, as JCP §8.1's reading rules give them, and the counters an
// account keeps. Pure data; log/accounts/read_facts.ts reads them from a core, the fold
// (log/accounts/fold.ts) adds them to the accounts inside the commit of the entry.

/** The largest figure an account holds exactly; a sum past it saturates (docs/ACCOUNTING.md). */
export const ACCOUNT_MAX = Number.MAX_SAFE_INTEGER;

/**
 * What one receipt is, for an account (JCP §8.1): a decision (an action, §8.2), a hold (an allow
 * stating `held_uj`, debits nothing itself) or a firing (an allow stating `minted_uj`, debits
 * nothing, adds to the standing grant's mint ledger).
 */
export type ReceiptKind = "action" | "hold" | "firing";

/** What the receipt debited from one grant it names (JCP §8.1 rules 1-3 and the money rule). */
export interface GrantDebit {
  /** The grant id (64 lowercase hex). */
  grant: string;
  /** Joules debited, µJ (0 for a hold or a firing). */
  uj: number;
  /** Money debited, minor units of the grant's money ceiling (§4.8, §8.1). */
  minor: number;
}

/** The account facts of one receipt. */
export interface AccountFacts {
  /** The signer (the COSE kid, bound to the core's `steward`): whose account it is. */
  steward: string;
  /** Every grant the receipt names (`chain_ids` root first, else `grant_id`), what it debited. */
  grants: GrantDebit[];
  kind: ReceiptKind;
  /** `verdict` is allow. */
  allow: boolean;
  /** A hold's `held_uj` (each grant it names reads as debited this while no receipt settles it). */
  heldUj?: number;
  /** A firing's `minted_uj` (to the ledger of `grant_id`, the standing grant). */
  mintedUj?: number;
  /** `settles`: the content id of the hold's envelope, 32 bytes. */
  settles?: Uint8Array;
  /** JCP §5.2: the receipt's energy figure is `Partial`. */
  partial: boolean;
  /** A figure was past ACCOUNT_MAX and was read as ACCOUNT_MAX. */
  saturated?: boolean;
}

/**
 * The counters of an account, in their stored order (log/sql/accounts.ts keeps one array per
 * row). Each is a count or a sum over the receipts naming the grant (docs/ACCOUNTING.md).
 */
export const COUNTERS = [
  "receipts", // receipts naming the grant, of every kind
  "allowed", // actions allowed (§8.2; a hold and a firing are no action)
  "refused", // actions refused (§8.2: denials; a refusal counts no joules, a debit-point denial its debit)
  "debited_uj", // §8.1 rules 1-3 (holds and firings debit nothing)
  "debited_minor", // §8.1 money: chain_debited_minor, else debited_minor, else none
  "holds", // holds naming the grant
  "held_uj", // their held_uj
  "holds_settled", // holds resolved by a settle (counted when both are logged)
  "released_uj", // the held_uj of those holds
  "settles", // receipts stating `settles`
  "settled_uj", // what they debited (part of debited_uj)
  "firings", // firings on the (standing) grant
  "minted_uj", // their minted_uj: the mint ledger
  "partial", // receipts whose energy is Partial (§5.2)
] as const;

/** A counter's name. */
export type Counter = (typeof COUNTERS)[number];

/** An account's counters, in COUNTERS order. */
export type Counters = number[];

/** Zero counters. */
export function zeroCounters(): Counters {
  return COUNTERS.map(() => 0);
}

/** a + b, saturating at ACCOUNT_MAX (both >= 0). */
export function satAdd(a: number, b: number): number {
  const s = a + b;
  return s > ACCOUNT_MAX ? ACCOUNT_MAX : s;
}

/** Adds `d` into `c` (saturating), in place; returns `c`. */
export function addCounters(c: Counters, d: Counters): Counters {
  for (let i = 0; i < COUNTERS.length; i++) c[i] = satAdd(c[i] ?? 0, d[i] ?? 0);
  return c;
}

/** Index of a counter in COUNTERS. */
export const AT: Readonly<Record<Counter, number>> = Object.fromEntries(
  COUNTERS.map((n, i) => [n, i]),
) as Record<Counter, number>;
