// An account as GET /v1/accounts answers it (issue 30; docs/ACCOUNTING.md): the counters of a
// (steward, grant) over a window of integration time, named, with what follows from them.
import { ACCOUNT_MAX, AT, type Counter, COUNTERS, type Counters } from "./facts.ts";

/** What GET /v1/accounts asks: a steward's accounts, one grant or all, over [from, to). */
export interface AccountQuery {
  steward: string;
  /** One grant (64 lowercase hex), or every grant of the steward (paged by grant id). */
  grant?: string;
  /** The window, integration time in ms since the epoch: from <= t < to (either open). */
  from?: number;
  to?: number;
  /** Paging: grants after this grant id, at most `limit`. */
  after?: string;
  limit: number;
}

/** One account of the answer. */
export type AccountRow =
  & { grant: string; first_index: number; last_index: number }
  & {
    [k in Counter]: number;
  }
  & {
    /**
     * holds − holds_settled, held_uj − released_uj: the holds no logged receipt settles (over a
     * window: their net change, negative where the window settled more than it held).
     */
    outstanding_holds: number;
    outstanding_uj: number;
    /** §8.1's replay: debited_uj and every unsettled hold's held_uj. */
    replay_uj: number;
    /** §5.2: a total summed from receipts of which any is Partial is Partial. */
    partial_total: boolean;
    /** A figure or a sum reached 2^53 − 1 and is a lower bound. */
    saturated: boolean;
  };

/** A page of accounts: the stored window sums, and the next page's `after` (null: last). */
export interface AccountPage {
  accounts: AccountRow[];
  next: string | null;
  /** From which index on the entries were counted ("all": every entry). */
  counted_from: number | "all";
}

/** The answered row of one account's window counters. */
export function accountRow(
  grant: string,
  firstIndex: number,
  lastIndex: number,
  c: Counters,
): AccountRow {
  const named = Object.fromEntries(COUNTERS.map((n, i) => [n, c[i] ?? 0])) as {
    [k in Counter]: number;
  };
  // over a window a net change: a hold placed before the window may be settled inside it
  const outstandingUj = c[AT.held_uj] - c[AT.released_uj];
  const replay = c[AT.debited_uj] + outstandingUj;
  return {
    grant,
    first_index: firstIndex,
    last_index: lastIndex,
    ...named,
    outstanding_holds: c[AT.holds] - c[AT.holds_settled],
    outstanding_uj: outstandingUj,
    replay_uj: Math.min(replay, ACCOUNT_MAX),
    partial_total: c[AT.partial] > 0,
    saturated: c.some((v) => v >= ACCOUNT_MAX) || replay > ACCOUNT_MAX,
  };
}
