// Accounts at append (issue 30; docs/ACCOUNTING.md) on the SQLite store: JCP §8.1's reading of
// each kind of receipt, the hold resolved once (a settle before its hold, a second settle), the
// window arithmetic of the prefix sums, figures past 2^53 − 1 saturating rather than failing the
// batch's commit, and the accounts surviving a reopen.
import assert from "node:assert/strict";
import { type AccountRow, type Log, openLog } from "../../log/mod.ts";
import { openSqliteStorage } from "../../log/sqlite/mod.ts";
import { steward } from "../../fixtures/app.ts";
import { cidOf, jcpEnvelope } from "../_streams.ts";

const KEY = new Uint8Array(32).fill(5);
const G = "11".repeat(32), R = "22".repeat(32);

async function withLog(fn: (log: Log, reopen: () => Promise<Log>) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/log.sqlite`;
  let log = await openLog(openSqliteStorage(path), { secretKey: KEY, batchAgeMs: 1 });
  try {
    await fn(log, async () => {
      await log.close();
      log = await openLog(openSqliteStorage(path), { secretKey: KEY, batchAgeMs: 1 });
      return log;
    });
  } finally {
    await log.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function account(log: Log, grant: string, from?: number, to?: number) {
  const p = await log.streamReads!.accounts({ steward: steward().did, grant, from, to, limit: 10 });
  return p.accounts[0] as AccountRow | undefined;
}

Deno.test("accounts: each receipt read by JCP §8.1, a hold resolved once", async () => {
  await withLog(async (log, reopen) => {
    let n = 0;
    const put = (m: Record<string, unknown>) => log.append(jcpEnvelope(++n, { grant_id: G, ...m }));
    await put({ cost_uj: 1000 }); // rule 3: an allow debits cost_uj
    await put({ cost_uj: 1000, debited_uj: 400 }); // rule 2: capped
    await put({ cost_uj: 1000, chain_ids: [R, G], chain_debited_uj: [900, 300] }); // rule 1
    await put({ verdict: "deny", deny_reason: "caveat-unsatisfied", cost_uj: 70 }); // legacy: 70
    await put({ verdict: "deny", deny_reason: "window-exceeded", cost_uj: 70, debited_uj: 0 });
    await put({ verdict: "deny", deny_reason: "budget-exceeded", cost_uj: 500 }); // refusal: 0
    await put({ verdict: "deny", deny_reason: "budget-exceeded", cost_uj: 5, held_uj: 99 });
    await put({ action: "mint", cost_uj: 0, minted_uj: 7000 }); // a firing
    const hold = jcpEnvelope(++n, { grant_id: G, cost_uj: 0, held_uj: 5000 });
    const settle = jcpEnvelope(++n, { grant_id: G, cost_uj: 800, settles: cidOf(hold) });
    const again = jcpEnvelope(++n, { grant_id: G, cost_uj: 800, settles: cidOf(hold) });
    await log.append(settle); // before its hold: remembered
    let a = (await account(log, G))!;
    assert.equal(a.holds_settled, 0);
    await log.append(hold); // resolved by the settle logged before it
    a = (await account(log, G))!;
    assert.deepEqual([a.holds, a.holds_settled, a.outstanding_uj], [1, 1, 0]);
    await log.append(again); // a second settle releases nothing, debits what it states
    await put({ cost_uj: 0, held_uj: 3000, energy_coverage: "Partial" }); // never settled
    log = await reopen();
    a = (await account(log, G))!;
    const want = {
      receipts: 12,
      allowed: 5,
      refused: 4,
      debited_uj: 1000 + 400 + 300 + 70 + 0 + 0 + 0 + 800 + 800,
      holds: 2,
      held_uj: 8000,
      holds_settled: 1,
      released_uj: 5000,
      settles: 2,
      settled_uj: 1600,
      firings: 1,
      minted_uj: 7000,
      partial: 1,
      outstanding_holds: 1,
      outstanding_uj: 3000,
      partial_total: true,
    };
    for (const [k, v] of Object.entries(want)) assert.equal(a[k as keyof AccountRow], v, k);
    assert.equal(a.replay_uj, a.debited_uj + 3000);
    const root = (await account(log, R))!;
    assert.equal(root.debited_uj, 900, "rule 1: the root link its own figure");
    assert.equal(root.receipts, 1);
  });
});

Deno.test("accounts: windows are differences of prefix sums by integration time", async () => {
  await withLog(async (log) => {
    const ts: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await log.append(jcpEnvelope(100 + i, { grant_id: G, cost_uj: 10 ** i }));
      ts.push(r.tree_head.timestamp);
      await new Promise((res) => setTimeout(res, 3));
    }
    assert.equal((await account(log, G))!.debited_uj, 111111);
    assert.equal((await account(log, G, ts[2]))!.debited_uj, 111100);
    assert.equal((await account(log, G, undefined, ts[2]))!.debited_uj, 11);
    const mid = (await account(log, G, ts[1], ts[4]))!;
    assert.equal(mid.debited_uj, 1110);
    assert.equal(mid.receipts, 3);
    assert.equal(mid.first_index, 1);
    assert.equal(mid.last_index, 3);
    assert.equal(await account(log, G, ts[5] + 1), undefined, "nothing in the window");
  });
});

Deno.test("accounts: a figure past 2^53 - 1 saturates; the batch still commits", async () => {
  await withLog(async (log) => {
    const big = 2n ** 64n - 1n;
    const r = await log.append(jcpEnvelope(200, { grant_id: G, cost_uj: big }));
    assert.equal(r.created, true);
    await log.append(jcpEnvelope(201, { grant_id: G, cost_uj: big }));
    const a = (await account(log, G))!;
    assert.equal(a.debited_uj, Number.MAX_SAFE_INTEGER);
    assert.equal(a.saturated, true);
    assert.equal(a.receipts, 2);
  });
});
