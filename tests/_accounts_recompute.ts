// The accounts recomputed from a log's entries alone (issue 30): every entry's account facts read
// from its bytes (log/streams/read_facts.ts), folded in index order by the same fold over an
// in-memory state, each entry's window the first signed head covering it. What a store holds must
// equal this whatever crashed in between (tests/e2e/accounts_crash_test.ts).
import {
  type AccountRow,
  accountRow,
  type AccountTx,
  addCounters,
  type Counters,
  foldAccounts,
  type StoredHold,
  zeroCounters,
} from "../log/accounts/mod.ts";
import { entryFacts } from "../log/streams/mod.ts";
import type { LogStorage } from "../log/mod.ts";
import { toHex } from "../verify/mod.ts";

/** The recomputed accounts: each (steward, grant)'s deltas with their integration time. */
export class Recomputed {
  readonly deltas = new Map<string, { ts: number; index: number; d: Counters }[]>();

  /** The accounts of `steward` over [from, to), by grant, as GET /v1/accounts answers them. */
  accounts(steward: string, from?: number, to?: number): AccountRow[] {
    const out: AccountRow[] = [];
    for (const [k, list] of [...this.deltas].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const [s, grant] = k.split(" ");
      if (s !== steward) continue;
      const c = zeroCounters();
      let first = -1, last = -1;
      for (const e of list) {
        if ((from !== undefined && e.ts < from) || (to !== undefined && e.ts >= to)) continue;
        addCounters(c, e.d);
        if (first < 0) first = e.index;
        last = e.index;
      }
      if (c[0] > 0) out.push(accountRow(grant, first, last, c));
    }
    return out;
  }
}

/** Replays `size` entries of `s` through the fold. */
export async function recomputeAccounts(s: LogStorage, size: number): Promise<Recomputed> {
  const r = new Recomputed();
  const holds = new Map<string, StoredHold>(), early = new Map<string, number>();
  const tx: AccountTx = {
    add: (steward, grant, ts, index, d) => {
      const k = `${steward} ${grant}`;
      (r.deltas.get(k) ?? r.deltas.set(k, []).get(k)!).push({ ts, index, d: [...d] });
    },
    hold: (steward, cid) => holds.get(`${steward} ${toHex(cid)}`),
    putHold: (steward, cid, h) => void holds.set(`${steward} ${toHex(cid)}`, { ...h }),
    earlySettle: (steward, cid) => early.get(`${steward} ${toHex(cid)}`),
    putEarlySettle: (steward, cid, index) => void early.set(`${steward} ${toHex(cid)}`, index),
  };
  for (let i = 0; i < size; i += 256) {
    const es = await s.entries(i, Math.min(256, size - i));
    for (let k = 0; k < es.length; k++) {
      const index = i + k;
      const f = entryFacts(es[k]);
      if (!f?.account) continue;
      const [head] = await s.heads(index + 1, 1);
      foldAccounts(tx, [{ index, cid: f.cid, facts: f.account }], head.timestamp);
    }
  }
  return r;
}
