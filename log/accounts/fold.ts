// The accounts at append (issue 30; docs/ACCOUNTING.md): each logged receipt's account facts
// added to the accounts of every grant it names, run by the store inside the commit transaction
// of the batch that logs the entries (like the stream checks, log/streams/check.ts), so the
// accounts move exactly with the log. Each receipt costs a bounded number of indexed point reads
// and writes (its grants, its hold, its settle): O(log n) at any log size. Pure: the state is the
// store's.
import { type AccountFacts, AT, type Counters, zeroCounters } from "./facts.ts";

/** A hold as the accounts keep it, until (and after) a receipt settles it. */
export interface StoredHold {
  /** The hold's entry. */
  index: number;
  /** The grants it names and its held_uj (each grant reads as debited it while unsettled). */
  grants: string[];
  heldUj: number;
  /** The entry of the settle that resolved it, once logged. */
  settledBy?: number;
}

/** The store's account state inside its commit transaction (log/sql/accounts.ts). Synchronous. */
export interface AccountTx {
  /**
   * Adds `d` to the account of (steward, grant) in the window at `ts` (the integration time of
   * the batch: the first signed head covering the entry), entry `index` its latest.
   */
  add(steward: string, grant: string, ts: number, index: number, d: Counters): void;
  /** A steward's hold by its envelope's content id. */
  hold(steward: string, cid: Uint8Array): StoredHold | undefined;
  putHold(steward: string, cid: Uint8Array, h: StoredHold): void;
  /** The first logged settle of the steward naming hold `cid` before the hold was logged. */
  earlySettle(steward: string, cid: Uint8Array): number | undefined;
  putEarlySettle(steward: string, cid: Uint8Array, index: number): void;
}

/** A receipt of the batch: its index, its envelope's content id and its account facts. */
export interface AccountEntry {
  index: number;
  cid: Uint8Array;
  facts: AccountFacts;
}

/** Adds the batch's receipts to the accounts, in index order; `ts` the batch's head timestamp. */
export function foldAccounts(tx: AccountTx, entries: AccountEntry[], ts: number): void {
  for (const e of entries) foldOne(tx, e, ts);
}

function foldOne(tx: AccountTx, { index, cid, facts: f }: AccountEntry, ts: number): void {
  const deltas = new Map<string, Counters>();
  const at = (g: string) => deltas.get(g) ?? deltas.set(g, zeroCounters()).get(g)!;
  for (const g of f.grants) {
    const d = at(g.grant);
    d[AT.receipts] += 1;
    if (f.partial) d[AT.partial] += 1; // §5.2: a total summed from a Partial figure is Partial
    if (f.kind === "hold") {
      // §8.1: a hold debits nothing itself; §8.2: it is no action
      d[AT.holds] += 1;
      d[AT.held_uj] += f.heldUj ?? 0;
    } else if (f.kind === "firing") {
      // §8.1: a firing debits nothing and adds one firing and its minted_uj to the mint ledger
      d[AT.firings] += 1;
      d[AT.minted_uj] += f.mintedUj ?? 0;
    } else {
      // §8.2: actions allowed, actions refused; the joules are what §8.1 reads as debited
      d[f.allow ? AT.allowed : AT.refused] += 1;
      d[AT.debited_uj] += g.uj;
      d[AT.debited_minor] += g.minor;
      if (f.settles) {
        d[AT.settles] += 1;
        d[AT.settled_uj] += g.uj;
      }
    }
  }
  const release = (h: StoredHold) => {
    // §8.1: "a hold that a receipt in the stream settles restores nothing": its held_uj is
    // released from every grant it names, in the window where the second of the two is logged.
    for (const g of h.grants) {
      const d = at(g);
      d[AT.holds_settled] += 1;
      d[AT.released_uj] += h.heldUj;
    }
  };
  if (f.settles) {
    // §8.1: a hold is resolved by the receipt that settles it, once ("a hold resolves exactly
    // once"); only the steward's own stream settles its hold.
    const h = tx.hold(f.steward, f.settles);
    if (h && h.settledBy === undefined) {
      release(h);
      tx.putHold(f.steward, f.settles, { ...h, settledBy: index });
    } else if (!h && tx.earlySettle(f.steward, f.settles) === undefined) {
      tx.putEarlySettle(f.steward, f.settles, index); // submissions come out of order
    }
  }
  if (f.kind === "hold" && tx.hold(f.steward, cid) === undefined) {
    const h: StoredHold = { index, grants: f.grants.map((g) => g.grant), heldUj: f.heldUj ?? 0 };
    const early = tx.earlySettle(f.steward, cid);
    if (early !== undefined) {
      release(h);
      h.settledBy = early;
    }
    tx.putHold(f.steward, cid, h);
  }
  for (const [g, d] of deltas) tx.add(f.steward, g, ts, index, d);
}
